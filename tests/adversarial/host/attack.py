"""Attacks on the local backend's host (issue 9, defence 9), run by `tests/local_sandbox.rs`.

The test writes this file as `proxy/_attack.py` of a cookie-split prediction (imported first
by `proxy/__init__.py`, so it runs inside every test process of the run) with `ATTACK` set
to one of the functions below. Each attack, when it succeeds, *wins*: it applies the gold
patches (read from the spec folder, or carried in `GOLD` to stand for an agent that knows the
fix but wants the cache poisoned) before the package's modules load, so the prediction
scores `solved`. In the sandbox every attack must fail: the prediction stays unsolved, and the
host is untouched (the test checks the markers, the cached image and the process table).
"""

import glob
import os
import socket
import subprocess

ATTACK = "@ATTACK@"
MARKER = "@MARKER@"  # a host path: created only if the attack reached the host
GOLD = {@GOLD@}  # repository -> its gold patch (a JSON string literal)


def win(patches):
    """Apply `patches` ({repo: text}) to this run's repositories. The attack runs on the
    first line of `proxy/__init__.py` (and `gateway/__init__.py`), before the package's own
    modules are imported, so the fixed code is what the tests then load."""
    root = os.environ.get("TASKC_ROOT", "")
    for repo, text in patches.items():
        subprocess.run(
            ["git", "-C", f"{root}/work/{repo}", "apply", "-"],
            input=text.encode(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )


def mark(what):
    try:
        with open(MARKER, "a") as f:
            f.write(what + "\n")
    except OSError:
        pass


def proc_spec():
    """Find the `taskc` process in /proc, read its spec folder and the gold patches there."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if not argv or not os.path.basename(argv[0]).startswith(b"taskc"):
            continue
        for arg in argv[1:]:
            spec = os.path.join(cwd, arg.decode(errors="replace"))
            if spec.endswith(".task") and os.path.isfile(spec):
                gold = glob.glob(os.path.join(os.path.dirname(spec), "gold", "*.patch"))
                if gold:
                    mark("read the spec folder " + os.path.dirname(spec))
                    win({os.path.basename(g)[:-6]: open(g).read() for g in gold})


def image_write():
    """Write the fix into the cached image (and other runs), so `empty` later passes."""
    root = os.path.realpath(os.environ.get("TASKC_ROOT", "/"))
    gold_cookies = None
    for up in range(1, 8):
        base = os.path.realpath(os.path.join(root, *[".."] * up))
        for pattern in ("images/*/work/*", "*/work/*", "*/*/root/work/*", "*/*/*/root/work/*"):
            for repo in glob.glob(os.path.join(base, pattern)):
                if os.path.realpath(repo).startswith(root + "/"):
                    continue  # this run's own copy: no gain
                name = os.path.basename(repo)
                if name in GOLD:
                    patch = GOLD[name]
                    r = subprocess.run(["git", "-C", repo, "apply", "-"], input=patch.encode())
                    if r.returncode == 0:
                        mark("rigged " + repo)


def detached():
    """Leave a process behind that rigs the cache after the run (and outlives it)."""
    script = (
        "sleep 3; "
        f"echo outlived >> '{MARKER}'; "
        "exec -a taskc-adversary-daemon sleep 600"
    )
    subprocess.Popen(
        ["setsid", "bash", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # The daemon itself also tries the cache after the run is gone.
    image_write()


def docker_socket():
    """Reach the Docker Engine: from there, anything (here: win)."""
    for path in ("/var/run/docker.sock", "/run/docker.sock"):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(2)
            s.connect(path)
            s.sendall(b"GET /_ping HTTP/1.0\r\n\r\n")
            if b"OK" in s.recv(1024):
                mark("reached " + path)
                win(GOLD)
        except OSError:
            pass
    # The engine over TCP, and the network at large.
    for host, port in (("127.0.0.1", 2375), ("172.17.0.1", 2375), ("1.1.1.1", 80)):
        try:
            socket.create_connection((host, port), timeout=2).close()
            mark(f"reached {host}:{port}")
        except OSError:
            pass


def privileges():
    """What the test user can do (defence 2 on the local backend): read the uploads (hidden
    tests, the other target's gold patch in independent mode) or the harness's records, write
    outside its own repository, keep root or a capability. Reports it on one JSON line at
    exit (pytest captures what a module prints at import); wins with any gold patch it
    reads."""
    import atexit
    import json

    root = os.environ.get("TASKC_ROOT", "")
    cwd = os.getcwd()
    report = {"uid": os.getuid(), "euid": os.geteuid(), "cwd": cwd}
    caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapEff", "CapPrm", "CapBnd"))]
    report["caps"] = caps
    # The run's cgroups (defence 14): `<id>:<controllers>:<path>` per hierarchy.
    report["cgroups"] = {c: l.strip().split(":", 2)[2] for l in open("/proc/self/cgroup")
                         for c in l.split(":")[1].split(",") if c in ("cpu", "memory", "pids")}
    report["harness_exists"] = os.path.isdir(root + "/taskc")
    read, gold = [], {}
    for top in (root + "/taskc", root + "/taskc/blobs", root + "/taskc/harness"):
        try:
            names = os.listdir(top)
        except OSError:
            continue
        read.append(top + "/")
        for name in names:
            path = os.path.join(top, name)
            try:
                text = open(path, errors="replace").read()
            except OSError:
                continue
            read.append(path)
            if name.endswith(".patch") and "+++ b/" in text:
                gold[name] = text
    report["read"] = read
    wrote = []
    own = None
    for repo in glob.glob(root + "/work/*"):
        if cwd == repo or cwd.startswith(repo + "/"):
            own = repo
    targets = [root + "/work", root + "/taskc", root + "/usr/local", "/etc", "/usr"]
    targets += [r for r in glob.glob(root + "/work/*") if r != own]
    targets += [os.path.join(root, "")]
    for t in targets:
        probe = os.path.join(t, ".taskc-probe-write")
        try:
            with open(probe, "w") as f:
                f.write("x")
            os.unlink(probe)
            wrote.append(t)
        except OSError:
            pass
    report["wrote"] = wrote
    try:
        p = os.path.join(own or cwd, ".taskc-probe-own")
        open(p, "w").close()
        os.unlink(p)
        report["wrote_own"] = True
    except OSError:
        report["wrote_own"] = False
    if gold:
        mark("read uploads " + " ".join(sorted(gold)))
        for text in gold.values():
            for repo in glob.glob(root + "/work/*"):
                subprocess.run(["git", "-C", repo, "apply", "-"], input=text.encode(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    atexit.register(lambda: print("taskc-probe " + json.dumps(report, sort_keys=True), flush=True))


if ATTACK in globals():
    globals()[ATTACK]()
