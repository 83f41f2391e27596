//! Invariant: the pipeline speaks only to `dyn Backend`. Outside a backend's own folder,
//! only the factory (`pipeline/backend_choice.rs`) names a concrete backend, and nothing
//! decides by a backend's name. Read from the sources, so a new bypass fails here.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Backend folders (`runtime/src/<name>/`) and the one file allowed to name them.
const BACKENDS: &[&str] = &["docker", "local", "swarm"];
const FACTORY: &str = "pipeline/backend_choice.rs";
/// Backends that live in one file elsewhere: the Harbor verifier's backend
/// (`taskc export harbor-grade` runs each script in the container it is in) is itself a
/// concrete backend and shares the local backend's process and file-tree helpers.
const BACKEND_FILES: &[&str] = &["export/verifier_backend.rs"];
/// `taskc image bootstrap` builds the base image with `docker import`: Docker by nature.
const DOCKER_ONLY: &[&str] = &["bootstrap/"];

#[test]
fn only_the_factory_names_a_concrete_backend() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("../src"), &mut files);
    let mut offences = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(root.join("src"))
            .or_else(|_| f.strip_prefix(root.join("../src")))
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if BACKENDS.iter().any(|b| rel.starts_with(&format!("{b}/")))
            || rel == FACTORY
            || BACKEND_FILES.contains(&rel.as_str())
            || rel == "lib.rs"
        {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        // Unit tests may build a concrete backend to test against.
        let code_part = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, line) in code_part.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let names_backend = code.contains("DockerBackend")
                || code.contains("LocalBackend")
                || code.contains("SwarmBackend")
                || code.contains("crate::swarm")
                || code.contains("taskc_runtime::swarm")
                || code.contains("crate::docker")
                || code.contains("crate::local")
                || code.contains("taskc_runtime::docker")
                || code.contains("taskc_runtime::local");
            let by_name = code.contains(".name() ==") || code.contains(".name() !=");
            let docker_only = DOCKER_ONLY.iter().any(|d| rel.starts_with(d));
            if (names_backend && !docker_only) || by_name {
                offences.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "go through `dyn Backend` (runtime/src/backend/mod.rs) instead:\n{}",
        offences.join("\n")
    );
}
