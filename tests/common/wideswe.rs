//! A WideSWE checkout the project writes itself (`tests/fixtures/<name>`, in WideSWE's
//! layout), imported by the real binary into a temporary folder, and what the importer's
//! tests read back from it.

use std::process::Command;

/// One `taskc import wideswe <fixture> --out out …` in a temporary folder.
pub struct Imported {
    /// The temporary folder: `out/<case>/…`, and any `--report` named relative to it.
    pub dir: tempfile::TempDir,
    /// The command's exit code.
    pub code: Option<i32>,
    /// What it printed on stderr (the diagnostics).
    pub stderr: String,
}

/// Import every case of `tests/fixtures/<fixture>` into `out/` of a new temporary folder,
/// with `extra` arguments after `--out out` (e.g. `["--report", "report.md"]`).
pub fn import_fixture(fixture: &str, extra: &[&str]) -> Imported {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = super::root().join("tests/fixtures").join(fixture);
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["import", "--color", "never", "wideswe"])
        .arg(&root)
        .args(["--out", "out"])
        .args(extra)
        .current_dir(dir.path())
        .output()
        .expect("run taskc");
    Imported {
        dir,
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Imported {
    /// The file at `rel` in the temporary folder; a missing one fails the test with the
    /// import's diagnostics.
    pub fn read(&self, rel: &str) -> String {
        let path = self.dir.path().join(rel);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), self.stderr))
    }

    /// The spec written for `case` (`out/<case>/<case>.task`).
    pub fn spec(&self, case: &str) -> String {
        self.read(&format!("out/{case}/{case}.task"))
    }

    /// The diagnostics on stderr as one line: miette's frame characters and line breaks
    /// gone, every run of white space one space (a wrapped message reads whole).
    pub fn flat(&self) -> String {
        self.stderr
            .replace(['│', '·'], " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The messages of the W1108 notes for which `keep` holds, each note's wrapped lines
    /// joined and its source excerpt left out.
    pub fn notes(&self, keep: impl Fn(&str) -> bool) -> Vec<String> {
        self.stderr
            .split("W1108 (import-note)")
            .skip(1)
            .map(|n| {
                n.lines()
                    .take_while(|l| !l.contains('╭'))
                    .map(|l| l.trim().trim_start_matches(['⚠', '│']).trim())
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .filter(|n| keep(n))
            .collect()
    }
}

/// The `run` line of `repo <repo> { … }` in `spec`.
pub fn run_of(spec: &str, repo: &str) -> String {
    spec.split(&format!("repo {repo} {{"))
        .nth(1)
        .and_then(|b| b.lines().map(str::trim).find(|l| l.starts_with("run ")))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no `run` in `repo {repo}` of\n{spec}"))
}
