#!/usr/bin/env python3
"""Adds a torch-* check: scripts/add_check.py torch-NAME "one-line summary"

(--root DIR before the name works on another checkout; default: this one.)

Creates, from scripts/templates/:
  checks/<Name>Check.h, checks/<Name>Check.cpp   a TorchCheck skeleton
  docs/checks/torch-NAME.md                      the doc page
  test/checks/torch-NAME.cpp                     a lit test: a positive with
                                                 its fix, a macro case, a
                                                 near miss
  harness/scenarios/torch-NAME.cpp               a scenario that reports
                                                 SKIPPED until it is written
then adds the check to checks/checks.json and regenerates README.md's checks
table. The summary is the README's "finds" text (Markdown, no final period).
Right afterwards the build passes, `torch-tidy --list-checks` shows the check
and its test passes; then replace every TODO in the files it created.
See docs/adding-a-check.md.
"""
import json
import os
import shutil
import string
import subprocess
import sys

import gen_checks

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    sys.stderr.write("add_check.py: error: %s\n" % msg)
    sys.exit(1)


def banner(file_name, what, cpp_header):
    """LLVM's first line: //===- File - what ----*- C++ -*-===//, 80 wide."""
    head = "//===- %s - %s " % (file_name, what)
    tail = "-*- C++ -*-===//" if cpp_header else "===//"
    return head + "-" * max(1, 80 - len(head) - len(tail)) + tail


def render(template, values):
    with open(os.path.join(HERE, "templates", template), encoding="utf-8") as f:
        return string.Template(f.read()).substitute(values)


def main():
    args = sys.argv[1:]
    root = os.path.dirname(HERE)
    if len(args) == 4 and args[0] == "--root":
        root, args = os.path.abspath(args[1]), args[2:]
    if len(args) != 2 or args[0] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        sys.exit(0 if args in (["-h"], ["--help"]) else 2)
    check, summary = args[0], args[1].strip()
    if not gen_checks.NAME.match(check):
        fail("'%s' is not a check name: torch- and lowercase words joined by "
             "'-' (torch-sync-in-loop)" % check)
    if not summary or "\n" in summary:
        fail("the summary must be one non-empty line")
    summary = summary.rstrip(".")

    list_path = os.path.join(root, "checks", "checks.json")
    with open(list_path, encoding="utf-8") as f:
        data = json.load(f)
    if any(c["name"] == check for c in data["checks"]):
        fail("%s is already in checks/checks.json" % check)
    class_name = "".join(w.capitalize() for w in check.split("-")[1:]) + "Check"
    values = {
        "check": check,
        "class_name": class_name,
        "guard": "TORCH_TIDY_%s_H" % class_name.upper(),
        "summary": summary,
        "summary_plain": summary.replace("`", "'"),
        "banner_h": banner(class_name + ".h", check, True),
        "banner_cpp": banner(class_name + ".cpp", check, False),
    }
    files = [
        (os.path.join("checks", class_name + ".h"), "Check.h.in"),
        (os.path.join("checks", class_name + ".cpp"), "Check.cpp.in"),
        (os.path.join("docs", "checks", check + ".md"), "check-doc.md.in"),
        (os.path.join("test", "checks", check + ".cpp"), "check-test.cpp.in"),
        (os.path.join("harness", "scenarios", check + ".cpp"),
         "scenario.cpp.in"),
    ]
    for path, _ in files:
        if os.path.exists(os.path.join(root, path)):
            fail("%s exists already" % path)

    for path, template in files:
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(render(template, values))
    # The templates are formatted; a long check name can still push a line
    # past 80 columns.
    clang_format = shutil.which("clang-format-22") or shutil.which("clang-format")
    if clang_format:
        subprocess.run([clang_format, "-i", "--style=LLVM"] +
                       [os.path.join(root, p) for p, _ in files[:2]],
                       check=False)
    data["checks"].append({
        "name": check,
        "class_name": class_name,
        "header": class_name + ".h",
        "summary": summary,
        "scenario": check,
    })
    with open(list_path, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    readme = os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    gen_checks.write_if_changed(readme, gen_checks.updated_readme(
        text, gen_checks.load(root)))

    print("Created:")
    for path, _ in files:
        print("  " + path)
    print("Updated:\n  checks/checks.json\n  README.md")
    print("Next: build, run `lit -sv build/test/checks/%s.cpp`, then replace "
          "every TODO in the created files (docs/adding-a-check.md)." % check)


if __name__ == "__main__":
    main()
