//! `task.toml` of an exported task, in Harbor's task schema (`schema_version` 1.4): names,
//! timeouts, resources, the separate verifier and its collect hook, and taskc's metadata.

use std::fmt::Write;

/// What `task.toml` says.
pub struct TaskToml<'a> {
    /// `taskc/<folder name>`.
    pub name: &'a str,
    pub description: &'a str,
    pub task: &'a str,
    pub kind: &'a str,
    pub mode: &'a str,
    pub languages: &'a [String],
    pub targets: &'a [String],
    pub lock_digest: &'a str,
    pub version: &'a str,
    pub agent_timeout_secs: u64,
    pub verifier_timeout_secs: u64,
    pub cpus: f64,
    pub memory_mb: u64,
}

/// Where the collect hook writes the recorded diffs (under Harbor's artifact folder).
pub const ARTIFACT_DIR: &str = "/logs/artifacts/taskc";

/// The Harbor task schema version the exporter writes.
pub const SCHEMA_VERSION: &str = "1.4";

fn q(s: &str) -> String {
    // A TOML basic string: serde_json's escaping is a subset TOML accepts.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| q(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// The file's text.
pub fn render(t: &TaskToml<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Written by `taskc export harbor` (taskc {}); do not edit.",
        t.version
    );
    let _ = writeln!(s, "schema_version = {}", q(SCHEMA_VERSION));
    let _ = writeln!(s, "\n[task]\nname = {}", q(t.name));
    let _ = writeln!(s, "description = {}", q(t.description));
    let _ = writeln!(s, "keywords = {}", list(t.languages));
    let _ = writeln!(s, "\n[metadata]");
    let _ = writeln!(s, "taskc_task = {}", q(t.task));
    let _ = writeln!(s, "taskc_kind = {}", q(t.kind));
    let _ = writeln!(s, "taskc_mode = {}", q(t.mode));
    let _ = writeln!(s, "taskc_languages = {}", list(t.languages));
    let _ = writeln!(s, "taskc_targets = {}", list(t.targets));
    let _ = writeln!(s, "taskc_lock_digest = {}", q(t.lock_digest));
    let _ = writeln!(s, "taskc_version = {}", q(t.version));
    let _ = writeln!(s, "\n[agent]\ntimeout_sec = {}.0", t.agent_timeout_secs);
    let _ = writeln!(
        s,
        "\n[verifier]\ntimeout_sec = {}.0\nuser = \"root\"\nenvironment_mode = \"separate\"",
        t.verifier_timeout_secs
    );
    // In the agent's container once it is done: its change, recorded into Harbor's
    // artifact folder, which reaches the separate verifier.
    let _ = writeln!(
        s,
        "\n[[verifier.collect]]\ncommand = {}\ntimeout_sec = 300.0\nuser = \"root\"",
        q(&format!(
            "python3 {d}/taskc_record.py {d}/repos.json {a}",
            d = super::dockerfile::IMAGE_TASKC_DIR,
            a = ARTIFACT_DIR
        ))
    );
    let _ = writeln!(
        s,
        "\n[environment]\nbuild_timeout_sec = 1800.0\ncpus = {}\nmemory_mb = {}",
        t.cpus, t.memory_mb
    );
    s
}
