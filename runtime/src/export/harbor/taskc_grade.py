#!/usr/bin/env python3
"""taskc's grader for an exported Harbor task (written by `taskc export harbor`).

Harbor's separate verifier runs it as root in a fresh container of the task's image:
  1. takes the change of every repository that the collect hook recorded in the agent's
     container (`/logs/artifacts/taskc/diffs/<repo>.patch`, see taskc_record.py) — or,
     when there is none (a task run in Harbor's shared mode), records it here — and keeps
     a copy in the verifier log folder (`diffs/<repo>.patch`);
  2. for every scoring run of the task (one per target, as `taskc score` plans them):
     puts every repository back to base, applies the recorded change (and, in
     independent mode, the other targets' gold patches), restores the test surface and
     the files the hidden tests touch, applies the relaxed hidden tests, runs the test
     command as the unprivileged user `taskc-test` with its time limit, parses the log
     and compares it with the lock's oracle;
  3. writes `reward.json`: `reward` 1 when every target passes, else 0, and one 0/1 entry
     per target, plus `grade.json` with the detail.

What it cannot guarantee compared with `taskc score` is listed in taskc's docs/export.md.
Standard library only; Python >= 3.7.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TEST_UID = 10001
TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
LOG_DIR = os.environ.get("TASKC_VERIFIER_DIR", "/logs/verifier")
# What the collect hook recorded in the agent's container (separate verifier mode).
ARTIFACT_DIR = os.environ.get("TASKC_ARTIFACT_DIR", "/logs/artifacts/taskc")

sys.path.insert(0, TESTS_DIR)
from taskc_record import HARNESS_PATH, Git, StepFailed, record  # noqa: E402


# ---------------------------------------------------------------------------------------
# Globs of the test surface (the semantics of taskc's compiler/src/glob.rs).

def glob_segments(glob):
    parts = [p for p in glob.split("/") if p]
    return parts if "/" in glob else ["**"] + parts


def match_segment(pat, s):
    if not pat:
        return not s
    if pat[0] == "*":
        return any(match_segment(pat[1:], s[i:]) for i in range(len(s) + 1))
    if not s:
        return False
    if pat[0] == "?" or pat[0] == s[0]:
        return match_segment(pat[1:], s[1:])
    return False


def match_segments(segs, parts):
    if not segs:
        return not parts
    if segs[0] == "**":
        return any(match_segments(segs[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and match_segment(segs[0], parts[0]) and match_segments(segs[1:], parts[1:])


def glob_matches(glob, path):
    return match_segments(glob_segments(glob), [p for p in path.split("/") if p])


def patch_paths(patch):
    """Every path a unified diff names, before and after a rename."""
    paths = []
    for line in patch.split("\n"):
        for prefix, strip in (("--- a/", 6), ("+++ b/", 6), ("rename from ", 12),
                              ("rename to ", 10)):
            if line.startswith(prefix):
                p = line[strip:].rstrip("\r")
                if p.startswith('"') and p.endswith('"'):
                    p = p[1:-1].encode("latin-1", "replace").decode("unicode_escape")
                    p = p.encode("latin-1", "replace").decode("utf-8", "replace")
                if p not in paths:
                    paths.append(p)
        m = re.match(r"^diff --git a/(.*) b/(.*)$", line)
        if m:
            for p in m.groups():
                if p not in paths:
                    paths.append(p)
    return paths


# ---------------------------------------------------------------------------------------
# Log parsers: the same ids and outcomes as taskc's runtime/src/parsers.

PASSED, SKIPPED, FAILED, ERROR = "passed", "skipped", "failed", "error"
RANK = {PASSED: 0, SKIPPED: 1, FAILED: 2, ERROR: 3}
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


class Parsed:
    def __init__(self):
        self.tests = {}
        self.complete = True
        self.tampering = []

    def record(self, test_id, outcome):
        old = self.tests.get(test_id)
        if old is None or RANK[outcome] > RANK[old]:
            self.tests[test_id] = outcome


PYTEST_WORDS = {"PASSED": PASSED, "XPASS": PASSED, "FAILED": FAILED, "XFAIL": FAILED,
                "ERROR": ERROR, "SKIPPED": SKIPPED}
FINAL = re.compile(r"^=+ .*\bin [0-9.]+s( \([0-9:]+\))? =+$")
BANNER = re.compile(r"^=+ (.*) =+$")


def pytest_node_id(rest):
    dash = rest.find(" - ")
    bracket = rest.find("[")
    if bracket != -1 and (dash == -1 or bracket < dash):
        depth = 0
        for i in range(bracket, len(rest)):
            if rest[i] == "[":
                depth += 1
            elif rest[i] == "]":
                depth -= 1
                if depth == 0:
                    return rest[:i + 1]
        return rest.strip()
    return (rest[:dash] if dash != -1 else rest).strip()


# The final line's words per summary word (taskc's `final_counts`): `2 passed, 1 xfailed`.
FINAL_COUNT_WORDS = {"passed": "PASSED", "failed": "FAILED", "error": "ERROR",
                     "errors": "ERROR", "skipped": "SKIPPED", "xfailed": "XFAIL",
                     "xpassed": "XPASS"}
COUNT_NAMES = {"PASSED": "passed", "FAILED": "failed", "ERROR": "errors",
               "SKIPPED": "skipped", "XFAIL": "xfailed", "XPASS": "xpassed"}


def final_counts(line):
    text = line.strip("= ")
    at = text.rfind(" in ")
    counts = {}
    if at == -1:
        return counts
    for part in text[:at].split(","):
        m = re.match(r"([0-9]+)(.*)$", part.strip(" "))
        word = m and FINAL_COUNT_WORDS.get(m.group(2).strip(" "))
        if word:
            counts[word] = counts.get(word, 0) + int(m.group(1))
    return counts


def check_counts(parsed, summary, final):
    """A final line whose counts disagree with the results its summary lists: forged."""
    listed = {}
    for line in summary:
        word, _, rest = line.partition(" ")
        if word not in PYTEST_WORDS or not rest:
            continue
        grouped = re.match(r"\[([0-9]+)\]", rest) if word == "SKIPPED" else None
        if grouped:
            listed[word] = listed.get(word, 0) + int(grouped.group(1))
        elif not rest.startswith("[") and pytest_node_id(rest):
            listed[word] = listed.get(word, 0) + 1
    said = final_counts(final)
    for word, n in sorted(listed.items()):
        if n and n != said.get(word, 0):
            parsed.tampering.append(
                "pytest's final line counts %d %s but its summary lists %d `%s` results"
                % (said.get(word, 0), COUNT_NAMES[word], n, word))


def parse_pytest(text):
    parsed = Parsed()
    lines = [ANSI.sub("", l).rstrip("\r") for l in text.split("\n")]
    sessions, current = [], None
    for line in lines:
        m = BANNER.match(line.strip())
        if m and m.group(1) == "test session starts":
            if current is not None and current["final"] is None:
                current["nested"] += 1  # a session printed by a test: ignored
                continue
            current = {"summary": None, "final": None, "lines": [], "nested": 0}
            sessions.append(current)
            continue
        if current is None:
            continue
        if current["final"] is not None:
            if line.strip():
                if PYTEST_WORDS.get(line.split(" ", 1)[0]) or FINAL.match(line.strip()) \
                        or (m and "short test summary info" in m.group(1)):
                    parsed.tampering.append("a result line after pytest's final line: %s" % line[:200])
            continue
        if m and "short test summary info" in m.group(1):
            current["summary"] = []
            continue
        if FINAL.match(line.strip()):
            current["final"] = line
            continue
        if current["summary"] is not None:
            current["summary"].append(line)
    if not sessions:
        parsed.complete = False
        return parsed
    for s in sessions:
        if s["final"] is None:
            parsed.complete = False
        elif s["summary"] is not None:
            check_counts(parsed, s["summary"], s["final"])
        for line in s["summary"] or []:
            word, _, rest = line.partition(" ")
            outcome = PYTEST_WORDS.get(word)
            if outcome is None or not rest or rest.startswith("["):
                continue
            test_id = pytest_node_id(rest)
            if test_id:
                parsed.record(test_id, outcome)
    return parsed


def tap_unescape(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in "#\\":
            out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tap_point(text):
    if text.startswith("not ok"):
        passed, rest = False, text[6:]
    elif text.startswith("ok"):
        passed, rest = True, text[2:]
    else:
        return None
    if rest and not rest.startswith(" "):
        return None
    rest = rest.lstrip()
    n = 0
    while n < len(rest) and rest[n].isdigit():
        n += 1
    number, rest = rest[:n], rest[n:].lstrip()
    if rest.startswith("- "):
        rest = rest[2:]
    elif rest.startswith("-"):
        rest = rest[1:]
    directive, i = None, 0
    while i < len(rest):
        if rest[i] == "\\":
            i += 2
            continue
        if rest[i] == "#":
            word = rest[i + 1:].lstrip()[:4].lower()
            if word in ("skip", "todo"):
                directive, rest = word, rest[:i]
                break
        i += 1
    name = tap_unescape(rest.strip()) or (number or "(unnamed)")
    if directive:
        return SKIPPED, name
    return (PASSED if passed else FAILED), name


def parse_tap(text):
    parsed = Parsed()
    stream = None

    def new_stream():
        return {"version": False, "plan": None, "top": 0, "bailed": False,
                "waiting": [], "names": []}

    def started(s):
        return s["version"] or s["plan"] is not None or s["top"] > 0 or any(s["waiting"])

    def point(s, level, name, outcome):
        while len(s["waiting"]) < level + 2:
            s["waiting"].append([])
        children = []
        for deeper in s["waiting"][level + 1:]:
            children += deeper
            del deeper[:]
        entries = [(name, outcome)] + [("%s::%s" % (name, i), o) for i, o in children]
        if level == 0:
            s["top"] += 1
            for i, o in entries:
                parsed.record(i, o)
        else:
            s["waiting"][level] += entries

    def finish(s):
        orphans = []
        for level, waiting in enumerate(s["waiting"]):
            names = s["names"][:level]
            parents = names if len(names) == level and all(n is not None for n in names) else None
            for i, o in waiting:
                orphans.append(("%s::%s" % ("::".join(parents), i), o) if parents and level > 0 else (i, o))
        if orphans:
            parsed.complete = False
            for i, o in orphans:
                parsed.record(i, o)
        if not started(s):
            if not parsed.tests and parsed.complete:
                parsed.complete = False
            return
        if s["bailed"] or s["plan"] is None or s["plan"] != s["top"]:
            parsed.complete = False

    stream = new_stream()
    yaml_indent, last_point = None, None
    for raw in text.split("\n"):
        line = ANSI.sub("", raw)
        width, k = 0, 0
        while k < len(line) and line[k] in " \t":
            width += 4 if line[k] == "\t" else 1
            k += 1
        body = line[k:].rstrip()
        if yaml_indent is not None:
            if body == "..." and width == yaml_indent:
                yaml_indent = None
            continue
        if body == "---" and last_point is not None and width > last_point:
            yaml_indent = width
            continue
        last_point = None
        level = width // 4
        if level == 0 and body.startswith("TAP version "):
            if started(stream):
                finish(stream)
            stream = new_stream()
            stream["version"] = True
            continue
        if body.startswith("Bail out!"):
            stream["bailed"] = True
            continue
        if body.startswith("# Subtest: "):
            del stream["names"][level:]
            while len(stream["names"]) < level:
                stream["names"].append(None)
            stream["names"].append(tap_unescape(body[len("# Subtest: "):].strip()))
            continue
        m = re.match(r"^1\.\.([0-9]+)\s*(#.*)?$", body)
        if m:
            if level == 0:
                stream["plan"] = int(m.group(1))
            continue
        pt = tap_point(body)
        if pt:
            last_point = width
            point(stream, level, pt[1], pt[0])
    finish(stream)
    return parsed


def parse_go_test_json(text):
    parsed = Parsed()
    packages = {}
    plain_failures = 0

    def pkg(name):
        return packages.setdefault(name, {"running": set(), "any_failure": False,
                                          "build_failed": False, "ended": False})

    for raw in text.split("\n"):
        line = raw.strip()
        if not line.startswith("{"):
            if line.startswith("FAIL") and ("[build failed]" in line or "[setup failed]" in line):
                words = line[4:].split()
                if words and not words[0].startswith("["):
                    parsed.record(words[0], ERROR)
                    plain_failures += 1
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if not isinstance(ev, dict):
            continue
        action = ev.get("Action") or ""
        if action == "build-fail":
            if ev.get("ImportPath"):
                pkg(ev["ImportPath"].split(" ")[0])["build_failed"] = True
            continue
        name = ev.get("Package") or ""
        if not name:
            continue
        p = pkg(name)
        if ev.get("FailedBuild"):
            p["build_failed"] = True
        test = ev.get("Test")
        if test:
            test_id = "%s/%s" % (name, test)
            if action == "run":
                p["running"].add(test_id)
                continue
            outcome = {"pass": PASSED, "fail": FAILED, "skip": SKIPPED}.get(action)
            if outcome is None:
                continue
            p["running"].discard(test_id)
            p["any_failure"] |= outcome == FAILED
            parsed.record(test_id, outcome)
        elif action == "output":
            out = ev.get("Output") or ""
            if "[build failed]" in out or "[setup failed]" in out:
                p["build_failed"] = True
        elif action in ("pass", "skip"):
            p["ended"] = True
        elif action == "fail":
            p["ended"] = True
            for test_id in sorted(p["running"]):
                parsed.record(test_id, ERROR)
                p["any_failure"] = True
            p["running"] = set()
            if not p["any_failure"] or p["build_failed"]:
                parsed.record(name, ERROR)
    for name, p in packages.items():
        if p["ended"]:
            continue
        if p["build_failed"]:
            parsed.record(name, ERROR)
            continue
        parsed.complete = False
        for test_id in p["running"]:
            parsed.record(test_id, ERROR)
    if not packages and plain_failures == 0:
        parsed.complete = False
    return parsed


PARSERS = {"pytest": parse_pytest, "tap": parse_tap, "go-test-json": parse_go_test_json}


# ---------------------------------------------------------------------------------------
# One scoring run.

def write_patch(text):
    fd, path = tempfile.mkstemp(prefix="taskc-", suffix=".patch")
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    return path


def image_env():
    """The image's environment (its ENV lines reach test.sh), the harness's own PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TASKC_")}
    env["PATH"] = HARNESS_PATH
    return env


def run_one(manifest, run, gits, predictions):
    for g in gits.values():
        g.reset()
    after_prediction = any(s["op"] == "apply-prediction" and predictions.get(s["repo"])
                           for s in run["steps"])
    tests_who = "after-prediction" if after_prediction else "spec"
    steps = run["steps"]
    for s in steps:
        g = gits[s["repo"]]
        if s["op"] == "apply-prediction" and predictions.get(s["repo"]):
            g.apply(write_patch(predictions[s["repo"]]), "prediction",
                    "the prediction's patch for `%s` does not apply" % s["repo"])
        elif s["op"] == "apply-gold":
            g.apply(os.path.join(TESTS_DIR, s["file"]), "spec",
                    "the gold patch of `%s` does not apply" % s["repo"])
    for s in steps:
        if s["op"] == "restore-surface" and predictions.get(s["repo"]):
            for path in patch_paths(predictions[s["repo"]]):
                if any(glob_matches(gl, path) for gl in s["globs"]):
                    gits[s["repo"]].restore(path, "after-prediction")
    for s in steps:
        if s["op"] == "restore-files":
            for path in s["paths"]:
                gits[s["repo"]].restore(path, tests_who)
    for s in steps:
        if s["op"] == "apply-tests":
            gits[s["repo"]].apply(os.path.join(TESTS_DIR, s["file"]), tests_who,
                                  "the hidden test patch of `%s` does not apply" % s["repo"])
    t = run["test"]
    home = "/tmp/taskc-test-home"
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    repo_dir = gits[t["repo"]].work
    subprocess.run(["chown", "-R", "%d:%d" % (TEST_UID, TEST_UID), repo_dir, home], check=True)
    log_path = os.path.join(LOG_DIR, "%s.log" % t["repo"])
    test_path = os.environ.get("TASKC_TEST_PATH", os.environ.get("PATH", HARNESS_PATH))
    cmd = ["timeout", "-s", "KILL", str(t["timeout_secs"]),
           "setpriv", "--reuid=%d" % TEST_UID, "--regid=%d" % TEST_UID, "--clear-groups",
           "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--", "env", "HOME=" + home, "USER=taskc-test",
           "LOGNAME=taskc-test", "PATH=" + test_path, "bash", "-c", t["command"]]
    import time
    start = time.monotonic()
    with open(log_path, "wb") as log:
        code = subprocess.run(cmd, cwd=t["workdir"], stdout=log, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, env=image_env()).returncode
    secs = time.monotonic() - start
    subprocess.run(["setpriv", "--reuid=%d" % TEST_UID, "--regid=%d" % TEST_UID,
                    "--clear-groups", "--", "kill", "-9", "-1"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if secs >= t["timeout_secs"]:
        return {"failure": "timeout"}, {}
    with open(log_path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    parsed = PARSERS[t["parser"]](text)
    if code in (126, 127) and not parsed.tests:
        return {"failure": "runner-crashed: the test command could not start (exit %d)" % code}, {}
    if parsed.tampering:
        return {"failure": "tampered: " + parsed.tampering[0]}, parsed.tests
    if not parsed.complete:
        return {"failure": "runner-crashed: the test log ends mid-run (exit %d)" % code}, parsed.tests
    return {"failure": None, "exit_code": code}, parsed.tests


def grade_target(oracle, outcome, tests):
    f2p, p2p = oracle["f2p"], oracle["p2p"]
    missing = [i for i in f2p + p2p if i not in tests]
    failed = [i for i in f2p + p2p if i in tests and tests[i] != PASSED]
    resolved = outcome["failure"] is None and not missing and not failed
    return {"resolved": resolved, "failure": outcome["failure"],
            "f2p": {"passed": 0 if outcome["failure"] else sum(tests.get(i) == PASSED for i in f2p),
                    "total": len(f2p)},
            "p2p": {"passed": 0 if outcome["failure"] else sum(tests.get(i) == PASSED for i in p2p),
                    "total": len(p2p)},
            "missing": missing, "failed": failed}


def main():
    with open(os.path.join(TESTS_DIR, "grading.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    gits = {r["name"]: Git(r["path"], r["commit"]) for r in manifest["repos"]}
    with open(os.path.join(LOG_DIR, "taskc.json"), "w", encoding="utf-8") as f:
        json.dump({"schema": "taskc.harbor-trial/1", "task": manifest["task"],
                   "mode": manifest["mode"], "lock_digest": manifest["lock_digest"],
                   "targets": sorted(t["test"]["repo"] for t in manifest["runs"]),
                   "prediction_repos": manifest["prediction_repos"]}, f, indent=2, sort_keys=True)
    # 1. The agent's change of every repository: recorded in its container by the collect
    #    hook (separate verifier), else recorded here before anything is touched.
    recorded = os.path.join(ARTIFACT_DIR, "diffs")
    if os.path.isdir(recorded):
        diffs = {}
        os.makedirs(os.path.join(LOG_DIR, "diffs"), exist_ok=True)
        for r in manifest["repos"]:
            path = os.path.join(recorded, r["name"] + ".patch")
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, encoding="utf-8", errors="surrogateescape") as f:
                    diffs[r["name"]] = f.read()
            else:
                diffs[r["name"]] = ""
            with open(os.path.join(LOG_DIR, "diffs", r["name"] + ".patch"), "w",
                      encoding="utf-8", errors="surrogateescape") as f:
                f.write(diffs[r["name"]])
    else:
        diffs = record(manifest["repos"], LOG_DIR)
    predictions = {r: d for r, d in diffs.items()
                   if r in manifest["prediction_repos"] and d.strip()}
    # 2. One run per target.
    targets = {}
    for run in manifest["runs"]:
        target = run["test"]["repo"]
        try:
            outcome, tests = run_one(manifest, run, gits, predictions)
        except StepFailed as e:
            outcome, tests = {"failure": "%s: %s" % (e.who, e.message)}, {}
        targets[target] = grade_target(manifest["oracle"][target], outcome, tests)
    solved = bool(targets) and all(t["resolved"] for t in targets.values())
    reward = {"reward": 1 if solved else 0}
    for name, t in sorted(targets.items()):
        reward[name] = 1 if t["resolved"] else 0
    grade = {"task": manifest["task"], "mode": manifest["mode"], "solved": solved,
             "targets": targets}
    with open(os.path.join(LOG_DIR, "grade.json"), "w", encoding="utf-8") as f:
        json.dump(grade, f, indent=2, sort_keys=True)
    with open(os.path.join(LOG_DIR, "reward.json"), "w", encoding="utf-8") as f:
        json.dump(reward, f, sort_keys=True)
    for name, t in sorted(targets.items()):
        print("taskc: %s: %s%s" % (name, "pass" if t["resolved"] else "fail",
                                   " (%s)" % t["failure"] if t["failure"] else ""))
    print("taskc: reward %d" % reward["reward"])


if __name__ == "__main__":
    main()
