#!/usr/bin/env python3
"""Fails on an #include that goes up the layers of checks/.

  scripts/check_layers.py [CHECKS_DIR]     (default: this checkout's checks/)

The shared analyses sit in four folders, lowest first; the checks themselves
(the files directly in checks/) are the top layer:

  ast/       the shape of the code, whatever library it uses
  libtorch/  what LibTorch's API is and does (types, modules, factories,
             host-device waits, CUDA launches, guards and streams)
  device/    where each tensor lives (DeviceFlow and what feeds it)
  program/   questions about the user's program (hot loops, host events,
             autograd history, optimizers, GPU use)
  checks/    one check per .h/.cpp pair

A file may include files of its own layer and of the layers below it, by
their folder-qualified name ("device/DeviceFlow.h"); it may never include a
higher layer, nor a check's header from inside a folder. Any other quoted
include in checks/ must be LLVM's, Clang's or clang-tidy's, or a file that
the build generates (*.inc). Prints one line per violation and exits 1;
prints a summary and exits 0 when there is none.
"""
import os
import re
import sys

LAYERS = ["ast", "libtorch", "device", "program"]
TOP = len(LAYERS)  # the checks, directly in checks/
EXTERNAL = ("clang/", "clang-tidy/", "llvm/")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of_file(rel):
    """The layer of a file given relative to checks/, or None if unknown."""
    parts = rel.split("/")
    if len(parts) == 1:
        return TOP
    return LAYERS.index(parts[0]) if parts[0] in LAYERS else None


def check(checks_dir):
    problems, files = [], 0
    for dirpath, dirnames, filenames in os.walk(checks_dir):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, checks_dir).replace(os.sep, "/")
            own = layer_of_file(rel)
            files += 1
            if own is None:
                problems.append("%s: not in a layer folder (%s)"
                                % (rel, ", ".join(LAYERS)))
                continue
            text = open(path, encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if target.startswith(EXTERNAL) or target.endswith(".inc"):
                    continue
                where = "%s:%d: " % (rel, line)
                folder = target.split("/")[0] if "/" in target else None
                if folder in LAYERS:
                    if LAYERS.index(folder) > own:
                        problems.append(
                            where + "'%s' (%s) includes '%s' (%s), a higher "
                            "layer" % (rel, layer_name(own), target, folder))
                elif "/" not in target and own == TOP:
                    continue  # a check's own header, TorchCheck.h
                elif "/" not in target:
                    problems.append(
                        where + "'%s' includes '%s' without its folder, or "
                        "a check's header from a lower layer" % (rel, target))
                else:
                    problems.append(where + "'%s' includes '%s', which is in "
                                    "no layer" % (rel, target))
    return problems, files


def layer_name(index):
    return "checks" if index == TOP else LAYERS[index]


def main():
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1] in
                             ("-h", "--help")):
        sys.stderr.write(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    here = os.path.dirname(os.path.abspath(__file__))
    checks_dir = sys.argv[1] if len(sys.argv) == 2 else os.path.join(
        os.path.dirname(here), "checks")
    if not os.path.isdir(checks_dir):
        sys.exit("check_layers.py: error: no directory '%s'" % checks_dir)
    problems, files = check(checks_dir)
    for p in problems:
        print("check_layers.py: " + p)
    if problems:
        sys.exit(1)
    print("check_layers.py: %d files, every include goes down (%s)"
          % (files, " < ".join(LAYERS + ["checks"])))


if __name__ == "__main__":
    main()
