"""Runs each hook of a .pre-commit-hooks.yaml the way pre-commit does."""
import subprocess, sys
import yaml

hooks_file, torch_tidy, files = sys.argv[1], sys.argv[2], sys.argv[3:]
for hook in yaml.safe_load(open(hooks_file)):
    assert hook["entry"] == "torch-tidy" and hook["language"] == "system"
    cmd = [torch_tidy] + hook.get("args", [])
    if hook.get("pass_filenames", True):
        cmd += files
    rc = subprocess.run(cmd).returncode
    # Flushed, so the line follows the hook's own output.
    print("%s: exit %d" % (hook["id"], rc), flush=True)
