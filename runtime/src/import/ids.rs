//! Test ids in one comparable form. pytest reports node ids (`tests/test_x.py::Class::name`),
//! JUnit XML reports `classname` and `name` (`tests.test_x.Class` + `name`, which WideSWE
//! joins as `tests.test_x.Class::name`). Both become `tests.test_x.Class::name`: the file
//! path loses `.py` and its `/` become `.`, the classes join it with `.`, the test name is
//! kept after `::` with its parameters (`[…]`) untouched.
//!
//! taskc's `cargo` parser names a test by its test target's source and its path
//! (`tests/testsuite/main.rs::rustup::typical_rustup`); other benchmarks write the path alone
//! (WideSWE: `rustup::typical_rustup`, once its `cargo::` report prefix is removed at
//! import). The comparable form leaves the target's source (a first segment ending in `.rs`)
//! out, so two test targets with a test of the same path compare as one.

/// The comparable form of a test id written as a pytest node id or as a JUnit id.
pub fn normalise(id: &str) -> String {
    // Parameters may hold anything (`::`, `/`, `.`): leave them alone.
    let (head, params) = match id.find('[') {
        Some(i) => id.split_at(i),
        None => (id, ""),
    };
    let parts: Vec<&str> = head.split("::").collect();
    let (path_and_classes, name) = match parts.split_last() {
        Some((name, rest)) if !rest.is_empty() => (rest.to_vec(), *name),
        _ => return id.to_string(),
    };
    // A cargo test target's source: left out (see the module's documentation).
    let path_and_classes: Vec<&str> = match path_and_classes.split_first() {
        Some((first, rest)) if first.ends_with(".rs") => rest.to_vec(),
        _ => path_and_classes,
    };
    if path_and_classes.is_empty() {
        return format!("{name}{params}");
    }
    let mut segments: Vec<String> = Vec::new();
    for (i, p) in path_and_classes.iter().enumerate() {
        if i == 0 && (p.ends_with(".py") || p.contains('/')) {
            let file = p.strip_suffix(".py").unwrap_or(p);
            segments.push(file.replace('/', "."));
        } else {
            segments.push((*p).to_string());
        }
    }
    format!("{}::{name}{params}", segments.join("."))
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn pytest_and_junit_ids_meet() {
        let pairs = [
            (
                "tests/test_metadata.py::TestMetadata::test_caching",
                "tests.test_metadata.TestMetadata::test_caching",
            ),
            ("tests/test_x.py::test_f", "tests.test_x::test_f"),
            (
                "tests/test_x.py::TestA::test_p[a/b::c.py]",
                "tests.test_x.TestA::test_p[a/b::c.py]",
            ),
            ("pkg/sub/test_y.py::C::D::t", "pkg.sub.test_y.C.D::t"),
        ];
        for (pytest, junit) in pairs {
            assert_eq!(normalise(pytest), normalise(junit), "{pytest} vs {junit}");
            assert_eq!(normalise(junit), junit);
        }
        // A cargo test target's source is left out; the test path stays.
        assert_eq!(
            normalise("tests/testsuite/main.rs::rustup::typical_rustup"),
            normalise("rustup::typical_rustup")
        );
        assert_eq!(
            normalise("tests/test_bonanza.rs::suite::cli_rustup::add_component"),
            "suite.cli_rustup::add_component"
        );
        assert_eq!(normalise("src/lib.rs::it_works"), "it_works");
        assert_ne!(normalise("src/lib.rs::a::t"), normalise("src/lib.rs::b::t"));
        // Ids without `::` (Go, cargo) stay as they are.
        assert_eq!(normalise("TestRetry/backoff"), "TestRetry/backoff");
        assert_ne!(normalise("tests/a.py::t"), normalise("tests/b.py::t"));
    }
}
