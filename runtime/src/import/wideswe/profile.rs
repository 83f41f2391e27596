//! A WideSWE test profile's in-container command as a taskc `test { run … parser … }`.
//!
//! The importer reads the profile's `command` (not the `docker run` wrapper of
//! `run_profile.sh`). It knows three runners: pytest (made to print `-rA` results, read by
//! the `pytest` parser; `--junitxml` dropped, as taskc reads the log), `go test` (with
//! `-json`, `go-test-json`) and `cargo test` (`cargo`). A command written as prose
//! (`install local packaging, then python -m pytest …`) keeps the command after `then` and
//! reports the prose as a note. Anything else is `E1104`: never a guessed command.

/// The test step a profile becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCommand {
    pub run: String,
    pub parser: &'static str,
    /// Prose the importer set aside (a note for the curator).
    pub prose: Option<String>,
}

/// Why a profile's command cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

/// Read `command`; `paths` maps WideSWE workspace paths (`/workspace/repos/x`) to taskc's
/// (`/work/x`).
pub fn read(command: &str, paths: &[(String, String)]) -> Result<TestCommand, Unreadable> {
    let mut text = command.trim().to_string();
    let mut prose = None;
    if let Some(i) = text.find(", then ") {
        prose = Some(text[..i].trim().to_string());
        text = text[i + ", then ".len()..].trim().to_string();
    }
    if text.contains('\n') {
        return Err(Unreadable(
            "the command spans several lines; the importer reads one test command".into(),
        ));
    }
    for (from, to) in paths {
        text = text.replace(from.as_str(), to);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let has = |seq: &[&str]| words.windows(seq.len()).any(|w| w == seq);
    if words.iter().any(|w| w.ends_with("pytest")) || has(&["-m", "pytest"]) {
        let mut out: Vec<String> = Vec::new();
        let mut skip = false;
        let mut added = words.contains(&"-rA");
        for w in &words {
            if skip {
                skip = false;
                continue;
            }
            if *w == "--junitxml" || *w == "--junit-xml" {
                skip = true;
                continue;
            }
            if w.starts_with("--junitxml=") || w.starts_with("--junit-xml=") {
                continue;
            }
            out.push((*w).to_string());
            if !added && (*w == "pytest" || w.ends_with("/pytest")) {
                out.push("-rA".into());
                added = true;
            }
        }
        return Ok(TestCommand {
            run: out.join(" "),
            parser: "pytest",
            prose,
        });
    }
    if has(&["go", "test"]) {
        let run = if words.contains(&"-json") {
            text.clone()
        } else {
            text.replacen("go test", "go test -json", 1)
        };
        return Ok(TestCommand {
            run,
            parser: "go-test-json",
            prose,
        });
    }
    if has(&["cargo", "test"]) {
        return Ok(TestCommand {
            run: text,
            parser: "cargo",
            prose,
        });
    }
    Err(Unreadable(format!(
        "`{}` runs no test runner the importer reads (pytest, go test, cargo test)",
        words.first().copied().unwrap_or("")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_profiles_print_results_and_drop_junit() {
        let paths = vec![(
            "/workspace/repos/pypa/packaging".to_string(),
            "/work/packaging".to_string(),
        )];
        let c = read(
            "python -m pytest tests/test_metadata.py --junitxml /workspace/.ecosyncbench/test-reports/p.xml",
            &paths,
        )
        .unwrap();
        assert_eq!(c.run, "python -m pytest -rA tests/test_metadata.py");
        assert_eq!(c.parser, "pytest");
        let c = read(
            "install local packaging, then python -m pytest -q tests/t.py --junitxml=/x.xml",
            &paths,
        )
        .unwrap();
        assert_eq!(c.run, "python -m pytest -rA -q tests/t.py");
        assert_eq!(c.prose.as_deref(), Some("install local packaging"));
    }

    #[test]
    fn other_runners_and_prose() {
        assert_eq!(
            read("go test ./pkg/...", &[]).unwrap().run,
            "go test -json ./pkg/..."
        );
        assert_eq!(read("cargo test -p x", &[]).unwrap().parser, "cargo");
        assert!(read("npm test", &[]).is_err());
        assert!(read("make check", &[]).is_err());
    }
}
