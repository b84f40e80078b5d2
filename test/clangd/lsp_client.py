#!/usr/bin/env python3
"""Drives torch-clangd over LSP stdio: initialize, didOpen, wait for
publishDiagnostics, then ask for code actions on the torch-* diagnostic.

  lsp_client.py CLANGD WORKDIR SOURCE COMPILE_FLAGS...
  lsp_client.py CLANGD WORKDIR SOURCE --compile-commands-dir=DIR

The first form writes WORKDIR/compile_commands.json with one entry; the
second uses DIR's database as it is.

Prints the torch-* diagnostics and quick fixes it received, one per line:
  DIAG <line>:<col> <code> <message>
  FIX <title> => <newText>@<line>:<col>
Exits non-zero if the server dies or nothing arrives within the timeout.
"""
import json
import os
import subprocess
import sys
import time


# Ask for code actions as literals (with edits), not as server commands.
CAPABILITIES = {"textDocument": {"codeAction": {"codeActionLiteralSupport": {
    "codeActionKind": {"valueSet": ["quickfix"]}}},
    "publishDiagnostics": {"codeActionsInline": False}}}


class Server:
    def __init__(self, cmd, cwd):
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=open(os.path.join(cwd, "clangd.log"), "w"))
        self.next_id = 1

    def send(self, method, params, request=True):
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            msg["id"] = self.next_id
            self.next_id += 1
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg.get("id")

    def read(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("torch-clangd exited unexpectedly")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def wait_for(self, pred, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            msg = self.read()
            if msg.get("method") == "window/workDoneProgress/create":
                self.proc.stdin.write(b"")  # ignored
            if pred(msg):
                return msg
        raise SystemExit("timed out waiting for a message")


def main():
    clangd, workdir, source = sys.argv[1:4]
    flags = sys.argv[4:]
    source = os.path.abspath(source)
    db_dir = workdir
    if len(flags) == 1 and flags[0].startswith("--compile-commands-dir="):
        db_dir = flags[0].split("=", 1)[1]
    else:
        with open(os.path.join(workdir, "compile_commands.json"), "w") as f:
            json.dump([{"directory": workdir, "file": source,
                        "arguments": ["clang++", *flags, "-c", source]}], f)
    with open(os.path.join(workdir, ".clangd"), "w") as f:
        f.write("Diagnostics:\n  ClangTidy:\n    Add: ['torch-*']\n"
                "    FastCheckFilter: Loose\n")
    server = Server([clangd, "--compile-commands-dir=" + db_dir,
                     "--log=error", "--background-index=false"], workdir)
    uri = "file://" + source
    rid = server.send("initialize", {"processId": os.getpid(),
                                     "rootUri": "file://" + workdir,
                                     "capabilities": CAPABILITIES})
    server.wait_for(lambda m: m.get("id") == rid, 60)
    server.send("initialized", {}, request=False)
    server.send("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "cpp", "version": 1,
        "text": open(source).read()}}, request=False)
    msg = server.wait_for(
        lambda m: m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri and m["params"]["diagnostics"], 120)
    diags = [d for d in msg["params"]["diagnostics"]
             if str(d.get("code", "")).startswith("torch-")]
    for d in diags:
        start = d["range"]["start"]
        print("DIAG %d:%d %s %s" % (start["line"] + 1, start["character"] + 1,
                                    d["code"], d["message"].splitlines()[0]))
    for d in diags:
        rid = server.send("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": d["range"],
            "context": {"diagnostics": [d]}})
        reply = server.wait_for(lambda m: m.get("id") == rid, 60)
        for action in reply.get("result") or []:
            edit_set = action.get("edit", {})
            edits = list(edit_set.get("changes", {}).get(uri, []))
            for change in edit_set.get("documentChanges", []):
                edits += change.get("edits", [])
            for edit in edits:
                start = edit["range"]["start"]
                print("FIX %s => %s@%d:%d" % (action["title"], edit["newText"],
                                              start["line"] + 1,
                                              start["character"] + 1))
    server.send("shutdown", None)
    server.send("exit", None, request=False)
    server.proc.wait(timeout=30)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
