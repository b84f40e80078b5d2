#!/usr/bin/env python3
"""Scores a torch-tidy build against hand labels on real LibTorch projects.

bench/eval/repos.tsv pins each project: repository, commit, the files to
analyse (globs), its include directories and extra flags (OpenCV's include
directory, for projects that need libopencv-dev). bench/eval/labels.tsv labels
sites by hand: a `bug` is what a check must report, an `ok` is a near miss it
must leave alone; `via` is a second place where the report may sit (the call
of a helper in the loop, for a sync inside the helper).

The script checks each pinned commit out under build/eval/src (from a local
mirror of bare repositories named owner+name, or with `git clone`), writes a
compile database for the listed files, runs torch-tidy over it in batch
mode, and writes docs/evaluation.md: precision and recall per check, then
every false positive, false negative and unlabelled finding. An unlabelled
finding counts against precision until someone reads it and labels it.
Nothing fetched is committed: build/ is ignored.

With --set cuda it scores the CUDA extension set instead
(bench/eval/cuda-extensions/, written to docs/evaluation-cuda.md; --set
cuda-heldout: bench/eval/cuda-extensions-heldout/, a set the checks were
not tuned on, written to docs/evaluation-cuda-heldout.md): `.cu`
files get the command line torch.utils.cpp_extension gives nvcc, every file
is compiled against the CUDA LibTorch headers and the CUDA root of
scripts/fetch-cuda-headers.sh, and torch-tidy gets --cuda-path.

  scripts/evaluate.py [--set training|cuda|cuda-heldout]
                      [--torch-tidy build/bin/torch-tidy]
                      [--mirror DIR] [--out docs/evaluation.md] [-j 2]
                      [--rescore] [--database-only]

--database-only checks the projects out and writes their compile database
only; --set cuda-bench (large extension projects, not labelled) is used
that way, by bench/codebase.sh --extensions.
"""
import argparse
import collections
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_SUFFIXES = {".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx",
                   ".inl", ".ipp", ".tpp", ".inc", ".cu", ".cuh"}
TORCH_INCLUDES = ["/usr/include/torch/csrc/api/include"]
CUDA_ROOT = os.path.join(ROOT, "build", "cuda-12.4")
CUDA_TORCH = os.path.join(ROOT, "build", "libtorch-cuda-2.6", "usr", "include")


def read_tsv(path):
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f, delimiter="\t")
                if not row["repo"].startswith("#")]


def fail(message):
    sys.exit("evaluate.py: error: " + message)


def checkout(repo, commit, mirror, work):
    """The work tree of repo at commit, under work/src."""
    name = repo.replace("/", "+")
    tree = os.path.join(work, "src", name + "@" + commit[:12])
    if os.path.isdir(tree):
        return tree
    git_dir = ""
    for candidate in ([os.path.join(mirror, name, "repo"),
                       os.path.join(mirror, name, "repo", ".git"),
                       os.path.join(mirror, name)] if mirror else []):
        if os.path.isfile(os.path.join(candidate, "HEAD")):
            git_dir = candidate
            break
    if not git_dir:
        git_dir = os.path.join(work, "git", name + ".git")
        if not os.path.isdir(git_dir):
            url = "https://github.com/" + repo + ".git"
            if subprocess.call(["git", "clone", "--bare", "--quiet", url,
                                git_dir]) != 0:
                fail("cannot fetch %s (give --mirror DIR with %s in it)"
                     % (repo, name))
    shutil.rmtree(tree + ".tmp", ignore_errors=True)
    os.makedirs(tree + ".tmp")
    # Sources only: mirrors may lack large binary blobs.
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r",
                              "--name-only", commit], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL,
                             universal_newlines=True)
    sources = [p for p in listing.stdout.splitlines()
               if os.path.splitext(p)[1] in SOURCE_SUFFIXES]
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", commit,
                              "--"] + sources, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    if listing.returncode != 0:
        fail("%s has no commit %s" % (repo, commit))
    if archive.returncode == 0:
        subprocess.run(["tar", "-x", "-C", tree + ".tmp"],
                       input=archive.stdout, check=True)
    else:  # git archive can stop at a missing blob it was not asked for
        for path in sources:
            blob = subprocess.run(["git", "--git-dir", git_dir, "show",
                                   "%s:%s" % (commit, path)],
                                  stdout=subprocess.PIPE, check=True).stdout
            os.makedirs(os.path.join(tree + ".tmp", os.path.dirname(path)),
                        exist_ok=True)
            with open(os.path.join(tree + ".tmp", path), "wb") as f:
                f.write(blob)
    os.rename(tree + ".tmp", tree)
    return tree


def python_include():
    import sysconfig
    return sysconfig.get_paths()["include"]


def cuda_command(f, includes, flags):
    """What torch.utils.cpp_extension runs for a .cu (nvcc) or a .cpp."""
    torch = ["-isystem", CUDA_TORCH, "-isystem",
             os.path.join(CUDA_TORCH, "torch", "csrc", "api", "include"),
             "-isystem", python_include()]
    defines = ["-DTORCH_EXTENSION_NAME=ext", "-DTORCH_API_INCLUDE_EXTENSION_H",
               "-D_GLIBCXX_USE_CXX11_ABI=1"]
    if f.endswith(".cu"):
        return (["nvcc"] + defines + torch + includes + flags +
                ["-D__CUDA_NO_HALF_OPERATORS__", "--expt-relaxed-constexpr",
                 "--compiler-options", "'-fPIC'",
                 "-gencode=arch=compute_80,code=sm_80", "-std=c++17",
                 "-c", f, "-o", f + ".o"])
    # torch.utils.cpp_extension compiles the bindings with the C++ compiler
    # (GCC: c++).
    return (["c++", "-std=c++17"] + defines + torch +
            ["-isystem", os.path.join(CUDA_ROOT, "include")] + includes +
            flags + ["-c", f])


def compile_database(repos, trees, work, cuda=False):
    entries = []
    for r in repos:
        tree = trees[r["repo"]]
        includes = [] if r["include_dirs"] in ("", "-") else \
            r["include_dirs"].split()
        files = sorted({f for pattern in r["files"].split()
                        for f in glob.glob(os.path.join(tree, pattern),
                                           recursive=True)})
        if not files:
            fail("%s: no file matches %s" % (r["repo"], r["files"]))
        for f in files:
            if cuda:
                flags = [] if r.get("flags", "-") in ("", "-") else \
                    r["flags"].split()
                entries.append({"directory": tree, "file": f,
                                "arguments": cuda_command(
                                    f, ["-I" + os.path.join(tree, d)
                                        for d in includes], flags)})
                continue
            args = ["clang++-22", "-std=c++17"]
            args += ["-isystem" + d for d in TORCH_INCLUDES]
            args += ["-I" + os.path.join(tree, d) for d in includes]
            if r.get("flags", "-") not in ("", "-"):
                args += r["flags"].split()
            entries.append({"directory": tree, "file": f,
                            "arguments": args + ["-c", f]})
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "compile_commands.json"), "w") as f:
        json.dump(entries, f, indent=1)
    return len(entries)


def run_torch_tidy(binary, work, jobs, cuda=False):
    """One batch run per repository, as its users would run it: units of
    different projects must not meet in the cross-unit facts (two projects
    that both define NetImpl::NetImpl() would count as one program). The
    reports are joined into work/report.json."""
    report = os.path.join(work, "report.json")
    src = os.path.join(work, "src")
    with open(os.path.join(work, "compile_commands.json")) as f:
        entries = json.load(f)
    groups = {}
    for e in entries:
        path = os.path.normpath(os.path.join(e["directory"], e["file"]))
        tree = os.path.relpath(path, src).split(os.sep)[0]
        groups.setdefault(tree, []).append(path)
    joined = {"findings": [], "summary": None}
    for i, tree in enumerate(sorted(groups)):
        part = os.path.join(work, "report-%d.json" % i)
        if os.path.exists(part):
            os.remove(part)
        cmd = [binary, "-p", work, "-j", str(jobs), "--format=json",
               "--output", part, "--checks=-*,torch-*",
               "--header-filter=" + src + "/.*"]
        if cuda:
            cmd.append("--cuda-path=" + CUDA_ROOT)
        # Findings exit non-zero; a missing report is the failure.
        subprocess.call(cmd + sorted(set(groups[tree])),
                        stdout=subprocess.DEVNULL)
        if not os.path.exists(part):
            fail("torch-tidy wrote no report: " + " ".join(cmd))
        with open(part) as f:
            data = json.load(f)
        os.remove(part)
        joined["findings"] += data["findings"]
        if joined["summary"] is None:
            joined = dict(data, findings=joined["findings"])
        else:
            s, d = joined["summary"], data["summary"]
            for key, value in d.items():
                if isinstance(value, bool):
                    continue
                if isinstance(value, (int, float)) and key in s:
                    s[key] += value
                elif isinstance(value, list) and key in s:
                    s[key] += value
    if joined["summary"] is None:
        fail("no unit to analyse in " + work)
    joined["findings"].sort(key=lambda f: (f["file"], f["line"],
                                           f["column"], f["check"],
                                           f["message"]))
    with open(report, "w") as f:
        json.dump(joined, f, indent=1)
    return joined


def locate(path, trees):
    """(repo, path inside it) of an absolute path under a work tree."""
    path = os.path.abspath(path)
    for repo, tree in trees.items():
        if path.startswith(tree + "/"):
            return repo, path[len(tree) + 1:]
    return None, path


LAUNCH_CHECKS = ("torch-unchecked-kernel-launch", "torch-kernel-default-stream")


def launch_config_line(path, line):
    """For a launch starting at `line` whose `<<<` is on a later line (at
    most two below, nothing else before it): that line."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().split("\n")
    except OSError:
        return None
    if line < 1 or line > len(lines) or "<<<" in lines[line - 1]:
        return None
    for below in (line + 1, line + 2):
        if below <= len(lines) and lines[below - 1].lstrip().startswith("<<<"):
            return below
        if below <= len(lines) and lines[below - 1].strip():
            return None
    return None


def score(report, labels, trees):
    by_site = collections.defaultdict(list)
    for label in labels:
        by_site[(label["repo"], label["path"], int(label["line"]),
                 label["check"])].append(label)
        if label["via"] not in ("", "-"):
            path, line = label["via"].rsplit(":", 1)
            by_site[(label["repo"], path, int(line), label["check"])].append(
                label)
    found = set()
    results = collections.defaultdict(lambda: collections.defaultdict(list))
    for finding in report["findings"]:
        repo, path = locate(finding["file"], trees)
        key = (repo, path, finding["line"], finding["check"])
        matched = by_site.get(key, [])
        if not matched and finding["check"] in LAUNCH_CHECKS:
            # A launch is reported where it starts (`kernel<T>`); a label
            # may sit on its `<<<` line below.
            below = launch_config_line(finding["file"], finding["line"])
            if below:
                matched = by_site.get((repo, path, below, finding["check"]), [])
        if not matched and finding["check"] == "torch-unregistered-member":
            # A member is reported where it is assigned; a label may sit on
            # its declaration, which the finding's note names.
            for note in finding.get("notes", []):
                if note["message"].endswith("is declared here"):
                    nrepo, npath = locate(note["file"], trees)
                    matched = by_site.get(
                        (nrepo, npath, note["line"], finding["check"]), [])
        site = "%s %s:%d" % (repo, path, finding["line"])
        bugs = [l for l in matched if l["label"] == "bug"]
        oks = [l for l in matched if l["label"] == "ok"]
        if bugs:
            for l in bugs:
                found.add(id(l))
            results[finding["check"]]["tp"].append((site, bugs[0]["reason"]))
        elif oks:
            results[finding["check"]]["fp"].append((site, oks[0]["reason"]))
        else:
            results[finding["check"]]["unlabelled"].append(
                (site, finding["message"]))
    for label in labels:
        if label["label"] == "bug" and id(label) not in found:
            site = "%s %s:%s" % (label["repo"], label["path"], label["line"])
            results[label["check"]]["fn"].append((site, label["reason"]))
        results[label["check"]]["labels_" + label["label"]].append(label)
    return results


def percent(num, den):
    return "–" if den == 0 else "%.1f%%" % (100.0 * num / den)


def check_table(results):
    lines = ["| Check | Bugs labelled | Near misses labelled | Reported | "
             "True | False | Unlabelled | Missed | Precision | Recall |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for check in sorted(results):
        r = results[check]
        tp, fp, un = len(r["tp"]), len(r["fp"]), len(r["unlabelled"])
        bugs = len(r["labels_bug"])
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %d | %s | %s |" % (
            check, bugs, len(r["labels_ok"]), tp + fp + un, tp, fp, un,
            len(r["fn"]), percent(tp, tp + fp + un),
            percent(bugs - len(r["fn"]), bugs)))
    return lines


def block(path, name):
    """The text from <!-- name:begin --> to <!-- name:end --> in path."""
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        m = re.search(r"<!-- %s:begin -->.*?<!-- %s:end -->" % (name, name),
                      f.read(), re.S)
    return m.group(0) if m else ""


def update_block(path, name, body):
    """Replaces the named block of path (the training page) with body."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        text = f.read()
    new = "<!-- %s:begin -->\n%s\n<!-- %s:end -->" % (name, body, name)
    old = block(path, name)
    text = text.replace(old, new) if old else text.rstrip("\n") + "\n\n" + \
        new + "\n"
    with open(path, "w") as f:
        f.write(text)


def write_markdown(out, repos, report, results, eval_dir, setname, trees):
    cuda = setname.startswith("cuda")
    heldout = "heldout" in setname or setname == "training-koba"
    labels = os.path.relpath(os.path.join(eval_dir, "labels.tsv"), ROOT)
    lines = ["# Evaluation on real " + (
                 "C++/CUDA extensions" if cuda else "LibTorch projects"), "",
             "Written by `scripts/evaluate.py%s` from the hand labels in "
             "`%s`; do not edit by hand. Precision counts "
             "unlabelled findings as false until they are read and labelled; "
             "recall is over the labelled bugs." % (
                 " --set " + setname if setname != "training" else "",
                 labels), ""]
    lines += (["Held out: labelled by a reader who had not seen the checks' "
               "output; the set they were tuned on is scored in "
               "[%s](%s)." % ((SETS["cuda" if cuda else "training"][2],) * 2)
               + (HELDOUT_NOTES.get(setname, ""))]
              if heldout else
              ["The training and inference programs are scored in "
               "[evaluation.md](evaluation.md); a held-out set of extension "
               "projects in [evaluation-cuda-heldout.md]"
               "(evaluation-cuda-heldout.md) and "
               "[evaluation-cuda-heldout2.md](evaluation-cuda-heldout2.md)."]
              if cuda else
              ["The extension checks are scored on C++/CUDA extensions in "
               "[evaluation-cuda.md](evaluation-cuda.md)."])
    lines += ["", "## Projects", "", "| Repository | Commit | Files |",
              "|---|---|---|"]
    files = collections.OrderedDict()
    for r in repos:
        files.setdefault((r["repo"], r["commit"]), []).extend(
            r["files"].split())
    for (repo, commit), patterns in files.items():
        lines.append("| %s | `%s` | %s |" % (
            repo, commit[:12], " ".join("`%s`" % p for p in patterns)))
    summary = report["summary"]
    lines += ["", "%d files analysed, %d failed to analyse%s" % (
        summary["filesAnalysed"], len(summary["failures"]),
        ":" if summary["failures"] else ".")]
    for failure in summary["failures"]:
        repo, path = locate(failure["file"], trees)
        message = failure.get("message", "").strip().splitlines()
        message = re.sub(r"\S*/src/[^/ ]+@[0-9a-f]+/", "",
                         message[0] if message else "")
        lines.append("- %s `%s`: %s" % (repo, path, message))
    lines += ["", "## Per check", ""] + check_table(results)
    if setname == "training":
        # The other sets' tables, kept from their last runs (each rewrites
        # its own block).
        def kept(names):
            return ["\n\n".join(
                block(out, name) or
                "<!-- %s:begin -->\nRun `scripts/evaluate.py --set %s`.\n"
                "<!-- %s:end -->" % (name, name, name) for name in names)]
        lines += ["", "## Programs labelled blind, then used for tuning",
                  ""] + kept(["training-heldout"])
        lines += ["", "## Round 4: labelled blind, then used for tuning", ""] + kept(
            ["training-heldout2", "training-heldout3"])
        lines += ["", "## Round 5: labelled blind, then used for tuning", ""] + kept(
            ["training-heldout4"])
        lines += ["", "## Round 6: labelled blind, then used for tuning", ""] + kept(
            ["training-heldout5"])
        lines += ["", "## Rounds 7 to 9: labelled blind, then used for tuning", ""] + kept(
            ["training-heldout6", "training-heldout7", "training-heldout8"])
        lines += ["", "## Round 10: labelled blind, then used for tuning", ""] + kept(
            ["training-heldout9"])
        lines += ["", "## Round 11: labelled blind, then used for tuning", ""] + kept(
            ["training-heldout10"])
        lines += ["", "## Round 12: labelled blind, then used for tuning", ""] + kept(
            ["training-heldout11"])
        lines += ["", "## Rounds 14, 16, 17 and 18: labelled blind, then used for tuning",
                  ""] + kept(["training-heldout13", "training-heldout15",
                              "training-heldout16", "training-heldout17"])
        lines += ["", "## Rounds 19 and 20: labelled blind, then used for tuning",
                  ""] + kept(["training-heldout18", "training-heldout19"])
        lines += ["", "## Rounds 21 to 25: labelled blind, then used for tuning",
                  ""] + kept(["training-heldout20", "training-heldout21",
                              "training-heldout22", "training-heldout23",
                              "training-heldout24"])
        lines += ["", "## Rounds 26 to 28: labelled blind, then used for tuning",
                  ""] + kept(["training-heldout25", "training-heldout26",
                              "training-heldout27"])
        lines += ["", "## Rounds 29 to 31: labelled blind; 30 and 31 then used "
                  "for tuning", ""] + kept(["training-heldout28",
                                            "training-heldout29",
                                            "training-heldout30"])
        lines += ["", "## Rounds 32 to 34: labelled blind; 33 and 34 then used "
                  "for tuning", ""] + kept(["training-heldout31",
                                            "training-heldout32",
                                            "training-heldout33"])
        lines += ["", "## Rounds 35 to 37: labelled blind", ""] + kept(
            ["training-heldout34", "training-heldout35", "training-heldout36"])
        lines += ["", "## Rounds 13 and 15: held out, scored with the checks frozen",
                  ""] + kept(["training-heldout12", "training-heldout14"])
        lines += ["", "## The project issue 36 was measured on", ""] + kept(
            ["training-koba"])
        lines += ["", "## The extension checks, on C++/CUDA extensions", ""]
        lines += kept(["cuda", "cuda-heldout", "cuda-heldout2"])
    for title, key in (("False positives", "fp"), ("False negatives", "fn"),
                       ("Unlabelled findings", "unlabelled")):
        rows = [(check, site, why) for check in sorted(results)
                for site, why in sorted(results[check][key])]
        if not rows:
            continue
        lines += ["", "## " + title, ""]
        lines += ["- `%s` %s: %s" % (check, site, why)
                  for check, site, why in rows]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    if setname != "training":
        page = os.path.basename(out)
        title = (("Held out (%s), on projects the checks were not tuned on"
                  if setname in FROZEN else
                  "Labelled blind (%s); the checks were not changed "
                  "against it (first run in bench/eval/README.md)"
                  if setname in UNTUNED else
                  "Labelled blind (%s), then used to tune the "
                  "checks (first run in bench/eval/README.md)")
                 if heldout else "Tuning set (%s)") % (
                     "[%s](%s): %d projects, %d files" % (
                         page, page, len(files), summary["filesAnalysed"]))
        update_block(os.path.join(ROOT, "docs", "evaluation.md"), setname,
                     "\n".join(["### " + title, ""] + check_table(results)))


# --set NAME: (labels folder under bench/eval, work folder under build,
# page under docs). The sets other than "training" also keep their table in
# a block of docs/evaluation.md.
SETS = collections.OrderedDict([
    ("training", ("", "eval", "evaluation.md")),
    ("training-heldout", ("training-heldout", "eval-heldout",
                          "evaluation-heldout.md")),
    ("cuda", ("cuda-extensions", "eval-cuda", "evaluation-cuda.md")),
    ("cuda-heldout", ("cuda-extensions-heldout", "eval-cuda-heldout",
                      "evaluation-cuda-heldout.md")),
    ("cuda-heldout2", ("cuda-extensions-heldout2", "eval-cuda-heldout2",
                       "evaluation-cuda-heldout2.md")),
    ("training-heldout2", ("training-heldout2", "eval-heldout2",
                           "evaluation-heldout2.md")),
    ("training-heldout3", ("training-heldout3", "eval-heldout3",
                           "evaluation-heldout3.md")),
    ("training-heldout4", ("training-heldout4", "eval-heldout4",
                           "evaluation-heldout4.md")),
    ("training-heldout5", ("training-heldout5", "eval-heldout5",
                           "evaluation-heldout5.md")),
    ("training-heldout6", ("training-heldout6", "eval-heldout6",
                           "evaluation-heldout6.md")),
    ("training-heldout7", ("training-heldout7", "eval-heldout7",
                           "evaluation-heldout7.md")),
    ("training-heldout8", ("training-heldout8", "eval-heldout8",
                           "evaluation-heldout8.md")),
    ("training-heldout9", ("training-heldout9", "eval-heldout9",
                           "evaluation-heldout9.md")),
    ("training-heldout10", ("training-heldout10", "eval-heldout10",
                            "evaluation-heldout10.md")),
    ("training-heldout11", ("training-heldout11", "eval-heldout11",
                            "evaluation-heldout11.md")),
    ("training-heldout12", ("training-heldout12", "eval-heldout12",
                            "evaluation-heldout12.md")),
    ("training-heldout13", ("training-heldout13", "eval-heldout13",
                            "evaluation-heldout13.md")),
    ("training-heldout14", ("training-heldout14", "eval-heldout14",
                            "evaluation-heldout14.md")),
    ("training-heldout15", ("training-heldout15", "eval-heldout15",
                            "evaluation-heldout15.md")),
    ("training-heldout16", ("training-heldout16", "eval-heldout16",
                            "evaluation-heldout16.md")),
    ("training-heldout17", ("training-heldout17", "eval-heldout17",
                            "evaluation-heldout17.md")),
    ("training-heldout18", ("training-heldout18", "eval-heldout18",
                            "evaluation-heldout18.md")),
    ("training-heldout19", ("training-heldout19", "eval-heldout19",
                            "evaluation-heldout19.md")),
    ("training-heldout20", ("training-heldout20", "eval-heldout20",
                            "evaluation-heldout20.md")),
    ("training-heldout21", ("training-heldout21", "eval-heldout21",
                            "evaluation-heldout21.md")),
    ("training-heldout22", ("training-heldout22", "eval-heldout22",
                            "evaluation-heldout22.md")),
    ("training-heldout23", ("training-heldout23", "eval-heldout23",
                            "evaluation-heldout23.md")),
    ("training-heldout24", ("training-heldout24", "eval-heldout24",
                            "evaluation-heldout24.md")),
    ("training-heldout25", ("training-heldout25", "eval-heldout25",
                            "evaluation-heldout25.md")),
    ("training-heldout26", ("training-heldout26", "eval-heldout26",
                            "evaluation-heldout26.md")),
    ("training-heldout27", ("training-heldout27", "eval-heldout27",
                            "evaluation-heldout27.md")),
    ("training-heldout28", ("training-heldout28", "eval-heldout28",
                            "evaluation-heldout28.md")),
    ("training-heldout29", ("training-heldout29", "eval-heldout29",
                            "evaluation-heldout29.md")),
    ("training-heldout30", ("training-heldout30", "eval-heldout30",
                            "evaluation-heldout30.md")),
    ("training-heldout31", ("training-heldout31", "eval-heldout31",
                            "evaluation-heldout31.md")),
    ("training-heldout32", ("training-heldout32", "eval-heldout32",
                            "evaluation-heldout32.md")),
    ("training-heldout33", ("training-heldout33", "eval-heldout33",
                            "evaluation-heldout33.md")),
    ("training-heldout34", ("training-heldout34", "eval-heldout34",
                            "evaluation-heldout34.md")),
    ("training-heldout35", ("training-heldout35", "eval-heldout35",
                            "evaluation-heldout35.md")),
    ("training-heldout36", ("training-heldout36", "eval-heldout36",
                            "evaluation-heldout36.md")),
    ("training-koba", ("training-koba", "eval-koba", "evaluation-koba.md")),
    # Not labelled: large extension projects for the cold-run benchmark
    # (bench/codebase.sh --extensions), written with --database-only.
    ("cuda-bench", ("cuda-extensions-bench", "eval-cuda-bench", None)),
])

# Held-out sets scored once, with the checks frozen.
FROZEN = ("cuda-heldout2", "training-heldout12", "training-heldout14")

# Blind sets scored after their first run without the checks being changed
# against them.
UNTUNED = ("training-heldout36",)

# What happened to a held-out set after it was first scored.
HELDOUT_NOTES = {
    "training-heldout":
        " The checks were then changed against this set's first run (its "
        "false positives: an error branch that only prints, a timed helper "
        "that waits, nonzero of a CPU copy), so these are no longer "
        "held-out figures; the first run's are in bench/eval/README.md.",
    "cuda-heldout":
        " Labelled in two rounds (eight projects, then six more with the "
        "wrapper/launcher split, a device registry and TORCH_LIBRARY_IMPL "
        "kernels). The checks were changed against round two's first run "
        "(a registry's device check peeling one argument per call, "
        "at::cuda::check_device), so these are no longer held-out figures; "
        "the first run's are in bench/eval/README.md, and the held-out "
        "figures of the current checks in "
        "[evaluation-cuda-heldout2.md](evaluation-cuda-heldout2.md).",
    "cuda-heldout2":
        " Labelled and committed before the checks first ran on it, and "
        "scored once, with the checks frozen.",
    "training-heldout2":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a torch::Device "
        "parameter follows its callers), and labels its first run showed "
        "misplaced were moved, each saying so; the first run's figures and "
        "what happened to each finding are in bench/eval/README.md.",
    "training-heldout3":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run "
        "(torch-unregistered-member: helpers that hand back the registered "
        "tensor), and labels its first run showed misplaced were moved or "
        "added, each saying so; the first run's figures and what happened "
        "to each finding are in bench/eval/README.md.",
    "training-heldout4":
        " Labelled and committed before the checks first ran on it. The "
        "findings its first run left unlabelled were labelled after reading, "
        "each saying so; the checks were then changed against that run "
        "(torch-sync-in-loop: a loop over a tensor that no analysed file "
        "passes from a device; torch-create-then-move: a factory told to "
        "allocate on the CPU), so these are no longer held-out figures; the "
        "first run's are in bench/eval/README.md.",
    "training-koba":
        " koba-jon/pytorch_cpp's YOLOv3, where issue 36 found its examples "
        "(create-then-move with a device taken from an input, anchors moved "
        "per call, target building over CPU annotations); labelled blind "
        "after the checks were changed for those examples.",
    "training-heldout6":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (modules held by a "
        "plain local object move field by field), so its device-mismatch "
        "figures are no longer held-out ones; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout7":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a GPU only asked "
        "about names none; flags that default to off; CPU placement "
        "branches; create-then-move through if/else and random fills in "
        "place), so these are no longer held-out figures; the first run's "
        "are in bench/eval/README.md.",
    "training-heldout8":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (modules behind a "
        "std::shared_ptr; TorchScript outputs; device parameters left to a "
        "default; dataset examples), so these are no longer held-out "
        "figures; the first run's are in bench/eval/README.md.",
    "training-heldout9":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (boolean-mask "
        "indexing; braced lists and in-place ops in the device analysis), "
        "so these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout10":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (timed loops, "
        "bincount, one-key map entries, step loops through functions of "
        "other files), so these are no longer held-out figures; the first "
        "run's are in bench/eval/README.md.",
    "training-heldout11":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (template code that "
        "nothing instantiates), so these are no longer held-out figures; "
        "the first run's are in bench/eval/README.md.",
    "training-heldout12":
        " Labelled and committed before the checks first ran on it; the "
        "checks were not changed against it (first run in "
        "bench/eval/README.md).",
    "training-heldout13":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (virtual methods "
        "called through a base class in another file; branches that run "
        "only on the CPU), so these are no longer held-out figures; the "
        "first run's are in bench/eval/README.md.",
    "training-heldout14":
        " Labelled and committed before the checks first ran on it; the "
        "checks were not changed against it (first run in "
        "bench/eval/README.md).",
    "training-heldout16":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a to() toward a CPU device kept in a variable), so these are "
        "no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout17":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a factory moved with .to(other_tensor)), so these are "
        "no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout18":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a CPU copy joined "
        "with a function's CPU result), so these are no longer held-out "
        "figures; the first run's are in bench/eval/README.md.",
    "training-heldout19":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a stream wait "
        "before the end clock; a model method with its own step loop; "
        "std::get of a LibTorch op's tuple; set_requires_grad before a "
        "move; members extended into a registered container), so these are "
        "no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout20":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a multinomial "
        "draw from a CPU factory, moved to the device), so these are no "
        "longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout21":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a copy toward the "
        "device the function places its model on, the CPU on every path), "
        "so these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout22":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (straight-line code "
        "between a timed loop and its clocks; a buffer refilled through "
        "data_ptr; a function called on each run of a per-step function), "
        "so these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout23":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a module handed to "
        "a function that only calls its members stays where it was), so "
        "these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout24":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (waits under a "
        "periodic guard or of CPU tensors inside a helper; a product of "
        "boolean masks; a .tpp file in the database), so these are no "
        "longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout25":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a branch on the "
        "loop's own counter equal to a constant; a module's output pair), "
        "so these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout26":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a ModuleList "
        "built in the mem-initializer; TensorOptions from a device name; "
        "the rank of a view; a move to a device named by a string), so "
        "these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout27":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a read of the "
        "timed work's result before the end clock is the timing's wait), "
        "so these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout29":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (what a lambda "
        "captures; tensors assigned through std::tie), so these are no "
        "longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout30":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a container "
        "emptied on every iteration), so these are no longer held-out "
        "figures; the first run's are in bench/eval/README.md.",
    "training-heldout32":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a value restored "
        "with torch::load), so these are no longer held-out figures; the "
        "first run's are in bench/eval/README.md.",
    "training-heldout33":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (an update loop "
        "around a function that trains in its own loop; a module used as "
        "a plain container of tensors), so these are no longer held-out "
        "figures; the first run's are in bench/eval/README.md.",
    "training-heldout34":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a TorchScript "
        "input held by an IValue local), so these are no longer held-out "
        "figures; the first run's are in bench/eval/README.md.",
    "training-heldout35":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (timing in function "
        "templates; several tensors moved in one branch; a step two files "
        "below the loop), so these are no longer held-out figures; the "
        "first run's are in bench/eval/README.md.",
    "training-heldout36":
        " Labelled and committed before the checks first ran on it; the "
        "checks were not changed against it.",
    "training-heldout15":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (waits read by a "
        "CUDA-event timer; datasets that move their tensors to a device), "
        "so these are no longer held-out figures; the first run's are in "
        "bench/eval/README.md.",
    "training-heldout5":
        " Labelled and committed before the checks first ran on it. The "
        "checks were then changed against its first run (a program's code "
        "in namespace torch; fills in place between a factory and its move; "
        "indexing with a tensor), so these are no longer held-out figures; "
        "the first run's are in bench/eval/README.md.",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=tuple(SETS),
                        default="training",
                        help="which evaluation set: LibTorch programs, or "
                        "C++/CUDA extensions")
    parser.add_argument("--torch-tidy",
                        default=os.path.join(ROOT, "build/bin/torch-tidy"))
    parser.add_argument("--mirror", default="/work/.mirror",
                        help="bare repositories named owner+name (or owner+name/repo)")
    parser.add_argument("--work")
    parser.add_argument("--out")
    parser.add_argument("-j", type=int, default=2)
    parser.add_argument("--database-only", action="store_true",
                        help="check the projects out and write their "
                        "compile database, nothing else")
    parser.add_argument("--rescore", action="store_true",
                        help="score the last run's report again (after "
                        "labelling) instead of running torch-tidy")
    args = parser.parse_args()
    cuda = args.set.startswith("cuda")
    labels_dir, work, page = SETS[args.set]
    eval_dir = os.path.join(ROOT, "bench/eval", labels_dir)
    args.work = args.work or os.path.join(ROOT, "build", work)
    if page is None and not args.database_only:
        fail("--set %s is not labelled: use it with --database-only"
             % args.set)
    repos = read_tsv(os.path.join(eval_dir, "repos.tsv"))
    labels = read_tsv(os.path.join(eval_dir, "labels.tsv"))
    if not os.access(args.torch_tidy, os.X_OK):
        fail("no torch-tidy at " + args.torch_tidy)
    if not shutil.which("git") or not shutil.which("tar"):
        fail("needs git and tar")
    trees = {r["repo"]: checkout(r["repo"], r["commit"], args.mirror,
                                 args.work) for r in repos}
    if args.database_only:
        n = compile_database(repos, trees, args.work, cuda)
        print("wrote %s/compile_commands.json (%d units)" % (args.work, n))
        return
    args.out = args.out or os.path.join(ROOT, "docs", page)
    if args.rescore:
        with open(os.path.join(args.work, "report.json")) as f:
            report = json.load(f)
    else:
        compile_database(repos, trees, args.work, cuda)
        report = run_torch_tidy(args.torch_tidy, args.work, args.j, cuda)
    results = score(report, labels, trees)
    write_markdown(args.out, repos, report, results, eval_dir, args.set,
                   trees)
    for check in sorted(results):
        r = results[check]
        print("%-36s tp %3d fp %3d unlabelled %3d fn %3d" % (
            check, len(r["tp"]), len(r["fp"]), len(r["unlabelled"]),
            len(r["fn"])))
    print("wrote " + os.path.relpath(args.out, ROOT))


if __name__ == "__main__":
    main()
