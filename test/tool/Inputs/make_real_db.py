"""make_real_db.py OUTDIR FLAGS FULL_FLAGS: writes OUTDIR/db/compile_commands.json
shaped like the databases real LibTorch projects produce, over copies of
discarded.cpp (one torch-discarded-to finding each):
  launcher.cpp  `ccache /usr/bin/c++ FLAGS` (a command string)
  relative.cpp  `sccache clang++` arguments, "directory" relative to the
                database's folder, "file" relative to the directory
  response.cpp  FLAGS in a response file, `@flags.rsp`
  gcc.cpp       FLAGS plus GCC-only flags clang rejects
  zip.cpp       FULL_FLAGS with LibTorch in the pytorch.org zip's layout:
                -isystem <libtorch>/include and .../torch/csrc/api/include
CUDA entries are make_cuda_db.py's."""
import json, os, shutil, sys

out, flags, full = sys.argv[1], sys.argv[2], sys.argv[3]
here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(out, "src")
os.makedirs(src, exist_ok=True)
os.makedirs(os.path.join(out, "db"), exist_ok=True)
for name in ("launcher", "relative", "response", "gcc", "zip"):
    shutil.copy(os.path.join(here, "discarded.cpp"),
                os.path.join(src, name + ".cpp"))
with open(os.path.join(src, "flags.rsp"), "w") as f:
    f.write(flags + "\n")
# The zip's layout: include/{ATen,c10,torch,caffe2} next to nothing else.
zip_include = os.path.join(out, "libtorch", "include")
os.makedirs(zip_include, exist_ok=True)
for d in ("ATen", "c10", "torch", "caffe2"):
    if os.path.isdir("/usr/include/" + d):
        os.symlink("/usr/include/" + d, os.path.join(zip_include, d))
zip_flags = full.replace("-isystem /usr/include/torch/csrc/api/include",
                         "-isystem %s -isystem %s/torch/csrc/api/include"
                         % (zip_include, zip_include))
entries = [
    {"directory": src, "file": "launcher.cpp",
     "command": "ccache /usr/bin/c++ %s -c launcher.cpp -o launcher.o" % flags},
    {"directory": "../src", "file": "relative.cpp",
     "arguments": ["sccache", "clang++"] + flags.split() +
                  ["-c", "relative.cpp", "-o", "relative.o"]},
    {"directory": src, "file": "response.cpp",
     "command": "clang++ @flags.rsp -c response.cpp -o response.o"},
    {"directory": src, "file": os.path.join(src, "gcc.cpp"),
     "command": "g++ %s -fno-var-tracking-assignments -fipa-pta "
                "-Wno-maybe-uninitialized -c gcc.cpp -o gcc.o" % flags},
    {"directory": src, "file": "zip.cpp",
     "command": "c++ %s -c zip.cpp -o zip.o" % zip_flags},
]
with open(os.path.join(out, "db", "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=1)
