#!/usr/bin/env python3
"""gen_manpage.py NAME SUMMARY OUT -- COMMAND...: writes the man page OUT for
NAME from COMMAND's --help output (run with --help appended): NAME and
SUMMARY, then the help text as it is, preformatted, and where to read more."""
import datetime
import subprocess
import sys

name, summary, out = sys.argv[1:4]
command = sys.argv[sys.argv.index("--") + 1:] + ["--help"]
run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     universal_newlines=True)
if not run.stdout.strip():
    sys.exit("gen_manpage.py: %s printed no help" % " ".join(command))


def roff(text):
    lines = []
    for line in text.rstrip().splitlines():
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


# The date of the build is not part of the page: same input, same page.
page = """.TH %(upper)s 1 "" "torch-tidy" "User Commands"
.SH NAME
%(name)s \\- %(summary)s
.SH DESCRIPTION
.nf
%(help)s
.fi
.SH SEE ALSO
.BR clang-tidy (1),
/usr/share/doc/torch-tidy/README.md and /usr/share/doc/torch-tidy/docs/
""" % {"upper": name.upper(), "name": name, "summary": summary,
       "help": roff(run.stdout)}
with open(out, "w") as f:
    f.write(page)
