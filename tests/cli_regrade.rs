//! `taskc score --regrade` and the reports' log links through the real binary (issue 23,
//! items 1, 4 and 5).
//!
//! - Docker: two predictions of a copy of `cookie-split` are scored; a relaxation then drops
//!   one of proxy's F2P tests and `taskc verify` writes the new lock (the dropped test
//!   changes every run id); `score --regrade` creates no container on the engine (its
//!   session's `create` events are counted), reuses every run by its executed inputs, keeps
//!   the earlier report and every stored result, and gives the same grades as a fresh
//!   `score` after the change — which does create containers (the count can fail). An
//!   `edit` of the hidden tests then makes the regrade say which runs it cannot reuse and why.
//! - Local: every run's log linked in `report.json`, `report.md` and `report.html` resolves to
//!   an existing file from the report's folder; on a pipe, a line per finished run with the
//!   done/total count and an ETA.
//!
//! Docker part skipped with `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{copy_dir, docker_or_skip, root, DockerGuard};

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");
const DROPPED: &str = "tests/test_cookies.py::test_build_split_packs_headers_greedily";

/// Two predictions of cookie-split: the gold patches, and proxy's alone.
fn predictions(dir: &Path) -> PathBuf {
    let ex = root().join("examples/cookie-split");
    let proxy = std::fs::read_to_string(ex.join("gold/proxy.patch")).unwrap();
    let gateway = std::fs::read_to_string(ex.join("gold/gateway.patch")).unwrap();
    let lines = [
        serde_json::json!({"task": "cookie-split", "model": "golden",
            "patches": {"proxy": proxy, "gateway": gateway}}),
        serde_json::json!({"task": "cookie-split", "model": "halfway",
            "patches": {"proxy": proxy}}),
    ];
    let path = dir.join("preds.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn report(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// Per (model, mode): status and per target (outcome, F2P passed/total, P2P passed/total).
fn grades(report: &serde_json::Value) -> BTreeMap<String, String> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let targets: Vec<String> = r["targets"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(name, t)| {
                    format!(
                        "{name}: {} F2P {}/{} P2P {}/{}",
                        t["outcome"],
                        t["f2p"]["passed"],
                        t["f2p"]["total"],
                        t["p2p"]["passed"],
                        t["p2p"]["total"]
                    )
                })
                .collect();
            (
                format!("{} {}", r["model"], r["mode"]),
                format!("{} [{}]", r["status"], targets.join("; ")),
            )
        })
        .collect()
}

fn sessions(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("sessions")).map_or_else(
        |_| Vec::new(),
        |d| {
            d.filter_map(|e| {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                name.strip_suffix(".lock").map(str::to_string)
            })
            .collect()
        },
    )
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Containers the engine created between `since` and `until` (unix seconds) for `session`.
fn containers_created(session: &str, since: u64, until: u64) -> usize {
    let out = Command::new("docker")
        .args(["events", "--since", &since.to_string(), "--until"])
        .arg(until.to_string())
        .args(["--filter", "type=container", "--filter", "event=create"])
        .arg("--filter")
        .arg(format!("label=taskc.session={session}"))
        .args(["--format", "{{.ID}}"])
        .output()
        .unwrap();
    assert!(out.status.success(), "docker events: {out:?}");
    String::from_utf8_lossy(&out.stdout).lines().count()
}

/// Runs `taskc args…` in `cache`; with the sessions it opened and the containers they
/// created on the engine.
fn taskc(guard: &DockerGuard, cache: &Path, args: &[&str]) -> (Output, usize) {
    let before = sessions(cache);
    let since = now();
    let clock = std::time::Instant::now();
    let out = guard.output(
        Command::new(TASKC)
            .args(args)
            .args(["--backend", "docker", "--jobs", "2", "--color", "never"])
            .arg("--cache")
            .arg(cache)
            // Every path is absolute; a default report folder lands in the test's folder.
            .current_dir(cache.parent().unwrap()),
    );
    // The wall time of each step, for docs/performance.md (`--nocapture`).
    let shown: Vec<&str> = args.iter().copied().filter(|a| !a.contains('/')).collect();
    eprintln!(
        "taskc {}: {:.1} s",
        shown.join(" "),
        clock.elapsed().as_secs_f64()
    );
    // Events are stamped in whole seconds: wait for the second to end.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let until = now();
    let created = sessions(cache)
        .iter()
        .filter(|s| !before.contains(s))
        .map(|s| containers_created(s, since, until))
        .sum();
    (out, created)
}

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}

fn relax(spec: &Path, block: &str) {
    let text = std::fs::read_to_string(spec).unwrap();
    let at = text.rfind('}').unwrap();
    std::fs::write(spec, format!("{}{block}\n}}\n", &text[..at])).unwrap();
}

#[test]
fn a_regrade_after_a_drop_runs_no_container_and_grades_as_a_fresh_score() {
    if !docker_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    copy_dir(&root().join("examples/cookie-split"), &dir.join("task"));
    let spec = dir.join("task/cookie-split.task");
    let spec_arg = spec.to_str().unwrap();
    let preds = predictions(dir);
    let preds_arg = preds.to_str().unwrap();
    let cache = dir.join("cache");
    let guard = DockerGuard::new();
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let score = |extra: &[&str]| {
        let mut args = vec!["score", spec_arg, "--predictions", preds_arg];
        args.extend_from_slice(extra);
        taskc(&guard, &cache, &args)
    };

    // 1. The first scoring runs every run (2 predictions × 2 targets).
    let (first, created) = score(&["--out", &out("first"), "--run-id", "first"]);
    ok(&first);
    assert_eq!(created, 4, "the first score runs 4 containers");
    let before = report(&dir.join("first"));

    // 2. A relaxation drops one of proxy's F2P tests; verify writes the new lock.
    relax(
        &spec,
        &format!(
            "  relax proxy {{\n    drop \"{DROPPED}\" {{\n      rule implementation-specific\n      \
             because \"packing is an implementation choice\"\n    }}\n  }}"
        ),
    );
    let (verified, _) = taskc(&guard, &cache, &["verify", spec_arg]);
    ok(&verified);
    let lock = std::fs::read_to_string(dir.join("task/cookie-split.lock")).unwrap();
    assert!(
        lock.contains(DROPPED),
        "the new lock drops the test:\n{lock}"
    );

    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(cache.join("results/docker"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let stored = listing();
    // 3. The regrade: no container; proxy's runs (new ids: the drop is in their test step)
    // reused by their executed inputs, gateway's (unchanged ids) as they are.
    let (regraded, created) = score(&["--regrade", "--run-id", "regrade-1"]);
    let stderr = ok(&regraded);
    assert_eq!(created, 0, "a regrade creates no container:\n{stderr}");
    assert!(
        stderr.contains("regrade: 4 of 4 runs graded from stored results, 0 not reusable"),
        "{stderr}"
    );
    for model in ["golden", "halfway"] {
        for (target, how) in [
            ("proxy", "(the same executed inputs;"),
            ("gateway", "(the same run)"),
        ] {
            let line = stderr
                .lines()
                .find(|l| l.contains(&format!(" {model} (")) && l.contains(&format!("`{target}`:")))
                .unwrap_or_else(|| panic!("no line for {model} {target}:\n{stderr}"));
            assert!(line.contains(how), "{line}");
        }
    }
    // Its own report under its own run id (`taskc-report/<run id>` without `--out`); the
    // first report and every stored result are kept.
    let after = report(&dir.join("taskc-report/regrade-1"));
    assert_eq!(after["run"]["run_id"], "regrade-1");
    assert_eq!(after["run"]["regrade"], true);
    assert_eq!(report(&dir.join("first")), before);
    assert_eq!(listing(), stored, "a regrade writes or removes no result");
    let reuse = after["regrade"].as_array().unwrap();
    assert_eq!(reuse.len(), 4);
    for r in reuse {
        let want = if r["target"] == "proxy" {
            "same-execution"
        } else {
            "same-run"
        };
        assert_eq!(r["reuse"], want, "{r}");
    }
    // The new oracle graded it: proxy has one F2P test fewer.
    let proxy_f2p =
        |r: &serde_json::Value| r["rows"][0]["targets"]["proxy"]["f2p"]["total"].clone();
    assert_eq!(proxy_f2p(&before), 3);
    assert_eq!(proxy_f2p(&after), 2);

    // 4. A fresh score after the change runs containers and grades the same.
    let (fresh, created) = score(&["--out", &out("fresh")]);
    ok(&fresh);
    assert_eq!(created, 2, "a plain score runs the changed runs (proxy's)");
    let fresh = report(&dir.join("fresh"));
    assert_eq!(grades(&after), grades(&fresh));
    assert_ne!(grades(&after), grades(&before));

    // 5. An edit of proxy's hidden tests changes what its runs execute: not reusable, with
    // the reason; gateway's runs are reused; still no container.
    let tests = std::fs::read_to_string(dir.join("task/tests/proxy.patch")).unwrap();
    let added: Vec<&str> = tests
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .map(|l| l[1..].trim())
        .collect();
    let line = added
        .iter()
        .find(|l| {
            l.starts_with("assert ")
                && !l.contains(['#', '\\', '\''])
                && tests.matches(*l).count() == 1
        })
        .unwrap()
        .to_string();
    let relaxed = format!("{line}  # relaxed");
    relax(
        &spec,
        &format!(
            "  relax proxy {{\n    edit \"tests/test_cookies.py\" {{\n      rule implementation-specific\n      \
             because \"a spacing change\"\n      replace {line:?} with {relaxed:?}\n    }}\n  }}"
        ),
    );
    let (verified, _) = taskc(&guard, &cache, &["verify", spec_arg]);
    ok(&verified);
    let (partial, created) = score(&["--regrade", "--out", &out("partial")]);
    let stderr = ok(&partial);
    assert_eq!(created, 0, "{stderr}");
    assert!(
        stderr.contains("regrade: 2 of 4 runs graded from stored results, 2 not reusable"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "`proxy`: not reusable: the run's executed inputs changed since the stored run"
        ) && stderr.contains("the hidden tests changed"),
        "{stderr}"
    );
    let partial = report(&dir.join("partial"));
    for row in partial["rows"].as_array().unwrap() {
        assert_eq!(row["status"], "invalid", "{row}");
        assert_eq!(row["targets"]["proxy"]["outcome"], "invalid", "{row}");
        assert_ne!(row["targets"]["gateway"]["outcome"], "invalid", "{row}");
    }
}

/// Every `run_logs` path of `report.json`, and every link of the Markdown and HTML reports'
/// "Run logs" tables, resolves from the report's folder to an existing file.
fn assert_links_resolve(out: &Path) -> usize {
    let report = report(out);
    let mut json = Vec::new();
    for row in report["rows"].as_array().unwrap() {
        let logs = row["run_logs"].as_object().unwrap();
        let targets = row["targets"].as_object().unwrap();
        assert_eq!(
            logs.keys().collect::<Vec<_>>(),
            targets.keys().collect::<Vec<_>>(),
            "every target's run has its log: {row}"
        );
        for path in logs.values() {
            let path = path.as_str().unwrap();
            assert!(Path::new(path).is_relative(), "{path}");
            assert!(out.join(path).is_file(), "{path} from {}", out.display());
            json.push(path.to_string());
        }
    }
    let decode = |s: &str| {
        let mut bytes = Vec::new();
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                bytes.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                i += 3;
            } else {
                bytes.push(b[i]);
                i += 1;
            }
        }
        String::from_utf8(bytes).unwrap()
    };
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let md_links: Vec<String> = md
        .split("## Run logs")
        .nth(1)
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.rsplit_once("](")
                .map(|(_, rest)| decode(rest.trim_end_matches(") |")))
        })
        .collect();
    let html = std::fs::read_to_string(out.join("report.html"))
        .unwrap()
        .replace("&#x2F;", "/");
    let html_links: Vec<String> = html
        .split("<a data-run-log href=\"")
        .skip(1)
        .map(|s| decode(s.split('"').next().unwrap()))
        .collect();
    for links in [&md_links, &html_links] {
        assert_eq!(links, &json, "the reports link the JSON's logs");
        for l in links {
            assert!(out.join(l).is_file(), "{l}");
        }
    }
    json.len()
}

#[test]
fn reports_link_every_runs_log_and_progress_on_a_pipe_counts_runs_with_an_eta() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let preds = predictions(dir);
    // The report folder and the cache's parent are siblings: links go up and down again,
    // through a folder name with a space (percent-encoded in the links).
    let out = dir.join("reports/out");
    let run = Command::new(TASKC)
        .args([
            "score",
            "examples/cookie-split/cookie-split.task",
            "--predictions",
        ])
        .arg(&preds)
        .args(["--backend", "local", "--jobs", "1", "--color", "never"])
        .arg("--cache")
        .arg(dir.join("store/my cache"))
        .arg("--out")
        .arg(&out)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    // 2 predictions × 2 targets, one at a time: a line each, an ETA while runs are left.
    let done: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("run ") && l.contains("/4 runs"))
        .collect();
    assert_eq!(done.len(), 4, "{stderr}");
    for (i, line) in done.iter().enumerate() {
        let count = format!("({}/4 runs", i + 1);
        assert!(line.contains(&count), "{line}");
        assert_eq!(line.contains(", ETA "), i < 3, "{line}");
    }
    assert_eq!(assert_links_resolve(&out), 4);
    // The same from the cache: still linked (the stored results carry their logs).
    let again = Command::new(TASKC)
        .args([
            "score",
            "examples/cookie-split/cookie-split.task",
            "--predictions",
        ])
        .arg(&preds)
        .args(["--backend", "local", "-q", "--color", "never"])
        .arg("--cache")
        .arg(dir.join("store/my cache"))
        .arg("--out")
        .arg(dir.join("second"))
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert_eq!(assert_links_resolve(&dir.join("second")), 4);
}

/// `docs/cli.md`'s table mapping SWE-bench's and Harbor's flags to taskc's (issue 23, item 7)
/// names only options the binary has: every `--flag` and `-x` of its taskc column is in the
/// `--help` of `score`, `verify`, `gc` or `image bootstrap`.
#[test]
fn the_swebench_and_harbor_flag_table_names_only_flags_taskc_has() {
    let doc = std::fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let table = doc
        .split("### Coming from SWE-bench's harness or Harbor")
        .nth(1)
        .unwrap();
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .collect();
    assert!(rows.len() >= 12, "{rows:?}");
    let mut help = String::new();
    for cmd in [
        &["score", "--help"][..],
        &["verify", "--help"],
        &["gc", "--help"],
        &["image", "bootstrap", "--help"],
    ] {
        let o = Command::new(TASKC).args(cmd).output().unwrap();
        assert!(o.status.success(), "{cmd:?}: {o:?}");
        help.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    let mut flags = Vec::new();
    for row in &rows {
        // `|` inside a cell is escaped as `\|`.
        let cells: Vec<&str> = row.split(" | ").collect();
        assert_eq!(cells.len(), 3, "{row}");
        for word in cells[2].split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            let long = word.starts_with("--") && word.len() > 2;
            let short = word.len() == 2 && word.starts_with('-');
            if long || short {
                flags.push(word.to_string());
            }
        }
    }
    assert!(flags.len() >= 12, "{flags:?}");
    let missing: Vec<&String> = flags
        .iter()
        .filter(|f| {
            // The flag as a whole word of the help (`--cache <DIR>`, `-j,`, `[aliases: --x]`).
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-');
            !help.match_indices(f.as_str()).any(|(i, _)| {
                !word(help[..i].chars().next_back()) && !word(help[i + f.len()..].chars().next())
            })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "the table names flags taskc lacks: {missing:?}"
    );
    assert!(flags.contains(&"--regrade".to_string()), "{flags:?}");
}
