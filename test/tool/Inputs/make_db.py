"""make_db.py OUTDIR FLAGS FILE...: copies FILEs (from this directory) into
OUTDIR and writes OUTDIR/compile_commands.json compiling each .cpp with FLAGS."""
import json, os, shutil, sys

out, flags, files = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
entries = []
for name in files:
    shutil.copy(os.path.join(here, name), os.path.join(out, name))
    if name.endswith(".cpp"):
        entries.append({"directory": out, "file": name,
                        "command": "clang++ %s -c %s -o /dev/null" % (flags, name)})
with open(os.path.join(out, "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=1)
