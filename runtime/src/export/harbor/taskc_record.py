#!/usr/bin/env python3
"""taskc's change recorder for an exported Harbor task (written by `taskc export harbor`).

`python3 taskc_record.py REPOS_JSON OUT_DIR` writes every repository's change against its
base commit as a unified diff, `OUT_DIR/diffs/<repo>.patch` (work tree, staged, committed
and untracked not-ignored files, as `taskc collect` records them), with a git directory,
index and configuration of its own: the repository's .git config, hooks, index and
attributes are never used; its objects are read as an alternate object store.

Harbor runs it in the agent's container when the agent is done (a `[[verifier.collect]]`
hook; the diffs travel to the separate verifier as artifacts); the grader imports it.
Standard library only; Python >= 3.7.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HARNESS_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class StepFailed(Exception):
    """A preparation step failed; `who` is `prediction`, `after-prediction` or `spec`."""

    def __init__(self, who, message):
        super().__init__(message)
        self.who = who
        self.message = message


# ---------------------------------------------------------------------------------------
# git, hermetic: a git directory of our own, the repository's objects read as alternates.

class Git:
    def __init__(self, work, base):
        self.work = work
        self.base = base
        self.scratch = tempfile.mkdtemp(prefix="taskc-git-")
        self.run(["init", "--quiet", "--template="])

    def env(self):
        return {
            "PATH": HARNESS_PATH,
            "HOME": self.scratch,
            "XDG_CONFIG_HOME": self.scratch,
            "LC_ALL": "C",
            "GIT_DIR": os.path.join(self.scratch, "git"),
            "GIT_WORK_TREE": self.work,
            "GIT_INDEX_FILE": os.path.join(self.scratch, "index"),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.path.join(self.work, ".git", "objects"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_NO_REPLACE_OBJECTS": "1",
        }

    def run(self, args, check=True, stdin=None):
        conf = []
        for kv in ("core.fsmonitor=false", "core.hooksPath=/dev/null",
                   "core.attributesFile=/dev/null", "core.excludesFile=/dev/null",
                   "core.untrackedCache=false", "core.quotepath=true", "core.symlinks=true",
                   "core.fileMode=true", "core.autocrlf=false", "core.bare=false",
                   "safe.directory=*", "diff.noprefix=false", "diff.external=",
                   "diff.renames=true"):
            conf += ["-c", kv]
        p = subprocess.run(["git"] + conf + args, cwd=self.work, env=self.env(),
                           input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and p.returncode != 0:
            raise RuntimeError("git %s failed: %s" % (" ".join(args),
                                                      p.stderr.decode("utf-8", "replace")))
        return p

    def diff(self):
        """The work tree (tracked and untracked, not-ignored files) against the base."""
        self.run(["read-tree", self.base])
        self.run(["add", "--all", "."])
        out = self.run(["diff", "--cached", "--binary", "--full-index", "--no-color",
                        "--no-ext-diff", "--no-textconv", "--find-renames",
                        "--src-prefix=a/", "--dst-prefix=b/", self.base, "--"]).stdout
        return out.decode("utf-8", "surrogateescape")

    def reset(self):
        """Every file back to base: tracked files restored, untracked ones removed
        (ignored files are kept, as setup commands leave them)."""
        self.run(["read-tree", "--reset", "-u", self.base])
        self.run(["clean", "-f", "-f", "-d", "--quiet"])

    def apply(self, patch_file, who, why):
        p = self.run(["apply", "--whitespace=nowarn", patch_file], check=False)
        if p.returncode != 0:
            raise StepFailed(who, "%s: %s" % (why, p.stderr.decode("utf-8", "replace")[:400]))

    def restore(self, path, who):
        """`path` as at base, or deleted when the base has no such path."""
        full = os.path.join(self.work, path)
        at_base = self.run(["cat-file", "-e", "%s:%s" % (self.base, path)], check=False)
        if os.path.lexists(full):
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.remove(full)
        if at_base.returncode == 0:
            p = self.run(["checkout", self.base, "--", path], check=False)
            if p.returncode != 0:
                raise StepFailed(who, "could not restore `%s`" % path)



def record(repos, out_dir):
    """Write `out_dir/diffs/<repo>.patch` for every repository; returns the diffs."""
    os.makedirs(os.path.join(out_dir, "diffs"), exist_ok=True)
    diffs = {}
    for r in sorted(repos, key=lambda r: r["name"]):
        diffs[r["name"]] = Git(r["path"], r["commit"]).diff()
        with open(os.path.join(out_dir, "diffs", r["name"] + ".patch"), "w",
                  encoding="utf-8", errors="surrogateescape") as f:
            f.write(diffs[r["name"]])
    return diffs


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        repos = json.load(f)["repos"]
    record(repos, sys.argv[2])
