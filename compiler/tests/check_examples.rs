//! Every shipped example checks without errors (they are loaded from disk into a MemLoader).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod check_support;

use std::path::Path;

use taskc_compiler::check::check_spec;
use taskc_compiler::loader::MemLoader;

fn load_dir(root: &Path, dir: &Path, loader: &mut MemLoader) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            load_dir(root, &p, loader);
        } else if let Ok(bytes) = std::fs::read(&p) {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            loader.files.insert(rel, bytes);
        }
    }
}

#[test]
fn examples_check_clean() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let Ok(entries) = std::fs::read_dir(&examples) else {
        return;
    };
    let mut dirs: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut report = String::new();
    for dir in dirs {
        let mut loader = MemLoader::new();
        load_dir(&dir, &dir, &mut loader);
        let specs: Vec<String> = loader
            .files
            .keys()
            .filter(|k| k.ends_with(".task") && !k.contains('/'))
            .cloned()
            .collect();
        for spec in specs {
            let bytes = loader.files[&spec].clone();
            let name = format!(
                "examples/{}/{}",
                dir.file_name().unwrap().to_string_lossy(),
                spec
            );
            let checked = check_spec(&name, &bytes, &loader);
            report.push_str(&format!("## {name}\n{}", check_support::render(&checked)));
            assert!(
                checked.task.is_some() || checked.diagnostics.has_errors(),
                "{name}: no task and no error"
            );
        }
    }
    println!("{report}");
    assert!(!report.contains(" error: "), "{report}");
}
