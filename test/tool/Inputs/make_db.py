"""make_db.py OUTDIR FLAGS [--add] FILE...: copies FILEs (from this directory)
into OUTDIR and writes OUTDIR/compile_commands.json compiling each .cpp with
FLAGS. With --add, the FILEs are already in OUTDIR and their entries are added
to the existing database."""
import json, os, shutil, sys

out, flags, files = sys.argv[1], sys.argv[2], sys.argv[3:]
add = files[:1] == ["--add"]
if add:
    files = files[1:]
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
db = os.path.join(out, "compile_commands.json")
entries = json.load(open(db)) if add else []
for name in files:
    if not add:
        shutil.copy(os.path.join(here, name), os.path.join(out, name))
    if name.endswith(".cpp"):
        entries.append({"directory": out, "file": name,
                        "command": "clang++ %s -c %s -o /dev/null" % (flags, name)})
with open(db, "w") as f:
    json.dump(entries, f, indent=1)
