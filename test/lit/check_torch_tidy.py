#!/usr/bin/env python3
"""Runs one torch-* check over a lit test file and verifies it.

  check_torch_tidy.py <tool paths> -- [--via torch-tidy|plugin] [--prefix P]
      [--tidy-arg ARG]... [--no-compile] SOURCE CHECKS TMPFILE -- COMPILE FLAGS

1. copies SOURCE to TMPFILE without its '// CHECK-...' comments;
2. runs the check with --fix (through torch-tidy or clang-tidy-22 --load);
3. FileChecks the diagnostics against CHECK-MESSAGES[-P] lines; any other
   warning or error fails the test, and a file without such lines must
   produce no warning at all;
4. FileChecks the fixed file against CHECK-FIXES[-P], or requires it to be
   unchanged when there are none;
5. compiles the fixed file against LibTorch, so every fix-it round-trips
   (a file no fix-it changed was compiled by step 2 already: a compile
   error there fails the test).
"""
import argparse
import re
import subprocess
import sys


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    return proc.returncode, proc.stdout


def fail(msg, output=""):
    sys.stderr.write(output + "\ncheck_torch_tidy: FAIL: " + msg + "\n")
    sys.exit(1)


def filecheck(args, source, prefix, input_file, implicit_not):
    cmd = [args.filecheck, source, "--check-prefix=" + prefix,
           "--input-file=" + input_file, "--dump-input=fail"]
    if implicit_not:
        cmd.append("--implicit-check-not={{warning|error}}:")
    code, out = run(cmd)
    if code:
        fail("FileCheck %s failed" % prefix, out)


def main():
    argv = sys.argv[1:]
    split = argv.index("--")
    tools = argparse.ArgumentParser()
    for name in ("torch-tidy", "clang-tidy", "plugin", "clangxx", "filecheck",
                 "resource-dir"):
        tools.add_argument("--" + name)
    tools.add_argument("--skip-plugin", action="store_true",
                       help="sanitizer builds: the plugin can not be loaded")
    args = tools.parse_args(argv[:split])
    rest = argv[split + 1:]
    if "--" in rest:
        split = rest.index("--")
        rest, flags = rest[:split], rest[split + 1:]
    else:
        flags = []
    test = argparse.ArgumentParser()
    test.add_argument("--via", choices=["torch-tidy", "plugin"], default="torch-tidy")
    test.add_argument("--prefix", default="")
    test.add_argument("--tidy-arg", action="append", default=[])
    test.add_argument("--no-compile", action="store_true")
    test.add_argument("source")
    test.add_argument("checks")
    test.add_argument("tmpfile")
    opts = test.parse_args(rest)

    suffix = "-" + opts.prefix if opts.prefix else ""
    msg_prefix, fix_prefix = "CHECK-MESSAGES" + suffix, "CHECK-FIXES" + suffix
    text = open(opts.source).read()
    stripped = re.sub(r"// *CHECK-[A-Z0-9\-]*:[^\r\n]*", "//", text)
    tmp = opts.tmpfile + ".cpp"
    with open(tmp, "w") as f:
        f.write(stripped)

    if opts.via == "plugin":
        if args.skip_plugin:
            print("check_torch_tidy: plugin run skipped in a sanitizer build")
            return
        tool = [args.clang_tidy, "--load", args.plugin]
    else:
        tool = [args.torch_tidy]
    cmd = tool + [tmp, "--fix", "--checks=-*," + opts.checks] + opts.tidy_arg
    cmd += ["--"] + flags
    code, out = run(cmd)
    if code:
        fail("'%s' exited with %d" % (" ".join(cmd), code), out)
    messages = opts.tmpfile + ".msg"
    with open(messages, "w") as f:
        f.write(out)

    if re.search(r"//\s*%s:" % re.escape(msg_prefix), text):
        filecheck(args, opts.source, msg_prefix, messages, True)
    elif re.search(r"(warning|error):", out):
        fail("expected no diagnostics", out)

    fixed = open(tmp).read()
    if re.search(r"//\s*%s:" % re.escape(fix_prefix), text):
        filecheck(args, opts.source, fix_prefix, tmp, False)
    elif fixed != stripped:
        fail("expected no fix-its, but the file changed", fixed)

    if not opts.no_compile and fixed != stripped:
        # The file last: flags such as `-x cuda` apply to what follows them.
        cmd = [args.clangxx, "-fsyntax-only", "-Wno-everything"] + flags + [tmp]
        code, out = run(cmd)
        if code:
            fail("the fixed file does not compile", out)


if __name__ == "__main__":
    main()
