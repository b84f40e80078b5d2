#!/usr/bin/env python3
"""Packs the release bundle into a wheel (scripts/release.sh).

Usage: make_wheel.py BUNDLE_DIR VERSION PLATFORM_TAG OUT_DIR

The wheel holds the bundle under torch_tidy/bundle/ (bin/torch-tidy,
bin/torch-clangd, lib/clang/N/include) and console entry points
torch-tidy and torch-clangd that exec those binaries, so that
`pip install torch_tidy-....whl` puts both on PATH. The archive is
deterministic: sorted entries, fixed timestamps.
"""
import base64
import hashlib
import os
import sys
import zipfile

LAUNCHER = '''"""Runs the binaries of torch-tidy's release bundle."""
import os
import sys

_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundle", "bin")


def _run(name):
    path = os.path.join(_BIN, name)
    os.execv(path, [path] + sys.argv[1:])


def torch_tidy():
    _run("torch-tidy")


def torch_clangd():
    _run("torch-clangd")
'''

SUMMARY = "clang-tidy checks for device-management bugs in LibTorch code"
DESCRIPTION = """# torch-tidy

A clang-tidy-style static analyzer for device-management bugs in LibTorch
(PyTorch C++) code and PyTorch C++/CUDA extensions: tensors on different
devices, discarded `.to()`, host-device syncs in training loops, leaked
autograd graphs, kernel launches without a device guard or error check.

This wheel holds two self-contained binaries (LLVM/Clang 22 linked in, only
glibc needed):

- `torch-tidy`: clang-tidy 22's command line with the `torch-*` checks,
  whole-codebase runs (`torch-tidy -p build`), SARIF, baselines;
- `torch-clangd`: clangd 22 with the checks, for editors.

```sh
pip install torch-tidy
torch-tidy -p build            # every unit of build/compile_commands.json
```
"""


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{name},sha256={digest.rstrip(b'=').decode()},{len(data)}"


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: make_wheel.py BUNDLE_DIR VERSION PLATFORM_TAG OUT_DIR")
    bundle, version, platform, out_dir = sys.argv[1:]
    if not os.path.isfile(os.path.join(bundle, "bin", "torch-tidy")):
        sys.exit(f"make_wheel.py: error: no bin/torch-tidy in {bundle}")
    dist_info = f"torch_tidy-{version}.dist-info"
    entries = {}  # name -> (bytes, executable)
    entries["torch_tidy/__init__.py"] = (
        f'__version__ = "{version}"\n'.encode(), False)
    entries["torch_tidy/__main__.py"] = (
        b"from torch_tidy._launch import torch_tidy\n\ntorch_tidy()\n", False)
    entries["torch_tidy/_launch.py"] = (LAUNCHER.encode(), False)
    for folder in ("bin", "lib"):
        for dirpath, _, files in os.walk(os.path.join(bundle, folder)):
            for f in files:
                path = os.path.join(dirpath, f)
                name = "torch_tidy/bundle/" + os.path.relpath(path, bundle)
                with open(path, "rb") as handle:
                    entries[name] = (handle.read(), os.access(path, os.X_OK))
    entries[f"{dist_info}/METADATA"] = ((
        "Metadata-Version: 2.1\n"
        "Name: torch-tidy\n"
        f"Version: {version}\n"
        f"Summary: {SUMMARY}\n"
        "Keywords: clang-tidy,libtorch,pytorch,cuda,static-analysis\n"
        "Classifier: Programming Language :: C++\n"
        "Classifier: Operating System :: POSIX :: Linux\n"
        "Classifier: Topic :: Software Development :: Quality Assurance\n"
        "Requires-Python: >=3.7\n"
        "Description-Content-Type: text/markdown\n"
        f"\n{DESCRIPTION}").encode(), False)
    entries[f"{dist_info}/WHEEL"] = ((
        "Wheel-Version: 1.0\n"
        "Generator: torch-tidy scripts/make_wheel.py\n"
        "Root-Is-Purelib: false\n"
        f"Tag: py3-none-{platform}\n").encode(), False)
    entries[f"{dist_info}/entry_points.txt"] = (
        b"[console_scripts]\n"
        b"torch-clangd = torch_tidy._launch:torch_clangd\n"
        b"torch-tidy = torch_tidy._launch:torch_tidy\n", False)
    entries[f"{dist_info}/top_level.txt"] = (b"torch_tidy\n", False)
    record = [record_line(n, d) for n, (d, _) in sorted(entries.items())]
    record.append(f"{dist_info}/RECORD,,")
    entries[f"{dist_info}/RECORD"] = (("\n".join(record) + "\n").encode(), False)

    os.makedirs(out_dir, exist_ok=True)
    wheel = os.path.join(out_dir, f"torch_tidy-{version}-py3-none-{platform}.whl")
    # dist-info last, as the wheel specification recommends.
    order = sorted(entries, key=lambda n: (n.startswith(dist_info), n))
    with zipfile.ZipFile(wheel + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
        for name in order:
            data, executable = entries[name]
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(wheel + ".tmp", wheel)
    print(wheel)


if __name__ == "__main__":
    main()
