"""taskc test selection for pytest (docs/language.md, "Test selection").

taskc activates this plugin through the environment of a narrowed run -- PYTEST_PLUGINS
names it, PYTHONPATH finds it, TASKC_SELECT names a JSON file {"ids": [...], "fail_fast":
bool} -- so the curator's command stays as written. It keeps exactly the collected items
whose node id is listed (as pytest prints it in its summary, relative to the invocation
folder), deselects the rest, and with fail_fast stops the session after the first failing
test. It prints one `taskc-select:` line so taskc can tell it took effect, and a second one,
`taskc-select: not collected: N ["id", ...]` (the ids as one JSON list), when listed ids match
no collected test although their files collected without error: the configuration does not
have those tests (gold adds parametrize values, say), and the full suite of this
configuration would not report them either -- collection is the same with and without this
plugin, which only deselects afterwards. taskc counts them as not passing and says so.
"""

import json
import os

_state = {"selection": None, "session": None, "broken": set()}


def _selection():
    if _state["selection"] is None:
        with open(os.environ["TASKC_SELECT"], encoding="utf-8") as f:
            _state["selection"] = json.load(f)
    return _state["selection"]


def _names(config, item):
    """The ids pytest may print for `item`: its node id, and the same relative to the
    folder pytest was invoked from when that is not the rootdir."""
    names = {item.nodeid}
    try:
        from _pytest.pathlib import bestrelpath

        invoked = config.invocation_params.dir
        root = config.rootpath
        if invoked != root:
            path, sep, rest = item.nodeid.partition("::")
            names.add(bestrelpath(invoked, root / path) + sep + rest)
    except Exception:  # older pytest: the node id is what it prints
        pass
    return names


def _say(config, text):
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(text)
    else:
        import sys

        sys.__stdout__.write(text + "\n")
        sys.__stdout__.flush()


def pytest_sessionstart(session):
    _state["session"] = session


def pytest_collectreport(report):
    """Files (and classes) that failed to collect: their tests are missing from the full
    suite too, so a selected id inside one is missing for the same reason."""
    if report.failed:
        _state["broken"].add(report.nodeid)


def _unexplained(wanted, names):
    """The listed ids no collected test matches, outside collectors that failed."""
    broken = _state["broken"]

    def in_broken(i):
        return any(b == "" or i == b or i.startswith(b + "::") or i.startswith(b + "/") for b in broken)

    return [i for i in wanted if i not in names and not in_broken(i)]


def _is_canary(item):
    """taskc's canary tests (kept whatever the selection; named in "keep")."""
    names = _selection().get("keep") or []
    return any(item.nodeid == n or item.nodeid.endswith("::" + n) or item.name == n for n in names)


def pytest_collection_modifyitems(session, config, items):
    wanted = set(_selection()["ids"])
    canaries, keep, drop = [], [], []
    seen = set()
    for item in items:
        names = _names(config, item)
        if _is_canary(item):
            canaries.append(item)
        elif names & wanted:
            keep.append(item)
            seen |= names & wanted
        else:
            drop.append(item)
    # Canaries first, so that stopping at the first failing selected test never leaves
    # them unrun.
    keep = canaries + keep
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
    _say(config, "taskc-select: kept %d of %d collected tests" % (len(keep), len(keep) + len(drop)))
    missing = _unexplained(wanted, seen)
    if missing:
        _say(config, "taskc-select: not collected: %d %s" % (len(missing), json.dumps(sorted(missing))))


def pytest_runtest_logreport(report):
    names = _selection().get("keep") or []
    canary = any(report.nodeid.endswith("::" + n) or report.nodeid == n for n in names)
    if report.failed and not canary and _selection().get("fail_fast") and _state["session"] is not None:
        _state["session"].shouldstop = "taskc-select: a selected test failed (fail fast)"
