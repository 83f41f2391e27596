//! A signal that arrives while no runs are under way ends `taskc` at once with 128 + its
//! number, as the signal's default action would. Before, the first scheduler's Ctrl-C
//! listener replaced that default for the rest of the process: a Ctrl-C during the next
//! spec's image build was swallowed, and `verify` went on to run that spec. Real binary,
//! local backend: two copies of an example, the second with a slow `setup`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

#[test]
fn a_ctrl_c_during_the_next_specs_image_build_ends_verify_with_130() {
    let tmp = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split");
    let (first, second) = (tmp.path().join("a"), tmp.path().join("b"));
    common::copy_dir(&example, &first);
    common::copy_dir(&example, &second);
    let spec_b = second.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec_b).unwrap().replacen(
        "  repo proxy {\n",
        "  repo proxy {\n    setup \"sleep 20\"\n",
        1,
    );
    assert!(text.contains("sleep 20"), "{text}");
    std::fs::write(&spec_b, text).unwrap();
    let log = tmp.path().join("stderr.log");
    let cache = tmp.path().join("cache");
    let mut child = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "verify",
            "--no-lock",
            "--color",
            "never",
            "--backend",
            "local",
        ])
        .arg("--cache")
        .arg(&cache)
        .arg(first.join("cookie-split.task"))
        .arg(&spec_b)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // The first spec's runs are over and the second's images started: its environment is
    // the first's (a second `image taskc/env:` line), its task image runs the slow setup.
    let start = Instant::now();
    while std::fs::read_to_string(&log)
        .unwrap_or_default()
        .matches("image taskc/env:")
        .count()
        < 2
    {
        assert!(
            child.try_wait().unwrap().is_none(),
            "taskc ended before the second spec's image build:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no second image build"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(1));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if signalled.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(status.code(), Some(130), "{status}\n{stderr}");
    assert!(
        signalled.elapsed() < Duration::from_secs(10),
        "ended {:?} after the signal (the setup sleeps 20 s)\n{stderr}",
        signalled.elapsed()
    );
}
