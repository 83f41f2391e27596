//! Arbitrary bytes through the checker, every diagnostic it produces rendered as the CLI
//! renders it (graphical with and without colour, and JSON), then the parse/format round
//! trip. A panic anywhere is a finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskc_compiler::check::check_spec;
use taskc_compiler::loader::MemLoader;

mod roundtrip;

/// The CLI's renderer, compiled into the target as it is (the CLI is a binary crate).
#[allow(dead_code)]
#[path = "../../src/render/mod.rs"]
mod render;

const GOLD: &str = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return split_jar(2)\n";
const TESTS: &str = "diff --git a/tests/test_a.py b/tests/test_a.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_a.py\n@@ -0,0 +1,2 @@\n+def test_f():\n+    assert True\n";

fuzz_target!(|data: &[u8]| {
    let loader = MemLoader::new()
        .with("prompt.md", "Fix the bug in `split_jar`.\n")
        .with("repos/a/README", "a\n")
        .with("repos/a/src/a.py", "def f():\n    return 1\n")
        .with("gold/a.patch", GOLD)
        .with("tests/a.patch", TESTS)
        .with("bad.patch", "@@ -1 +1 @@\n-x\n+y\n");
    let checked = check_spec("fuzz.task", data, &loader);
    let plain = render::human::Human::new(false);
    let colour = render::human::Human::new(true);
    for d in checked.diagnostics.iter() {
        let _ = plain.render(d, &checked.sources);
        let _ = colour.render(d, &checked.sources);
        let line = render::json::render("fuzz.task", d, &checked.sources);
        assert!(!line.contains('\n'), "a JSON diagnostic spans lines");
    }
    roundtrip::parse_format_parse(data);
});
