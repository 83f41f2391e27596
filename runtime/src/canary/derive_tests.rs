use super::*;

fn shown(text: &str) -> Shown {
    Shown {
        chunks: vec![text.lines().map(String::from).collect()],
        from_top: true,
    }
}

#[test]
fn pytest_copies_whole_undecorated_tests_only() {
    let s = shown(
        "import pytest\n\n\ndef test_seconds():\n    assert delay(\"7\") == 7.0\n\n\n@pytest.mark.parametrize(\"x\", [1])\ndef test_param(x):\n    assert x\n\n\ndef test_skips():\n    pytest.skip(\"no\")\n\n\ndef test_last(tmp_path):\n    assert tmp_path\n",
    );
    let o = originals(Framework::Pytest, &s);
    // test_last runs to the end of what is shown: its body may go on.
    let names: Vec<&str> = o.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["test_seconds"]);
    let fail = copy(
        Framework::Pytest,
        &o[0],
        "test_delay_zero",
        Some("test_delay_edge"),
    );
    assert_eq!(
        fail,
        "def test_delay_zero():\n    assert delay(\"7\") == 7.0\n    assert test_delay_zero.__name__ == \"test_delay_edge\"\n\n"
    );
    assert_eq!(
        copy(Framework::Pytest, &o[0], "test_delay_zero", None),
        "def test_delay_zero():\n    assert delay(\"7\") == 7.0\n\n"
    );
}

#[test]
fn go_copies_keep_the_parameter_and_skip_subtests() {
    let s = shown(
        "package acme\n\nimport \"testing\"\n\nfunc TestSeconds(tt *testing.T) {\n\tif got := Delay(\"7\"); got != 7 {\n\t\ttt.Errorf(\"got %v\", got)\n\t}\n}\n\nfunc TestTable(t *testing.T) {\n\tt.Run(\"a\", func(t *testing.T) {})\n}\n\nfunc TestEarly(t *testing.T) {\n\treturn\n}\n",
    );
    let o = originals(Framework::GoTest, &s);
    assert_eq!(o.len(), 1, "{o:?}");
    assert_eq!(o[0].anchor, "func TestSeconds(tt *testing.T) {");
    let fail = copy(
        Framework::GoTest,
        &o[0],
        "TestDelayZero",
        Some("TestDelayEdge"),
    );
    assert!(fail.starts_with("func TestDelayZero(tt *testing.T) {\n\tif got := Delay(\"7\")"));
    assert!(
        fail.ends_with("\tif got := tt.Name(); got != \"TestDelayEdge\" {\n\t\ttt.Errorf(\"Name() = %q, want %q\", got, \"TestDelayEdge\")\n\t}\n}\n\n"),
        "{fail}"
    );
}

#[test]
fn node_copies_top_level_tests_that_assert() {
    let s = shown(
        "const assert = require('node:assert');\n\ntest('Retry-After in seconds', () => {\n  assert.strictEqual(delay('7'), 7);\n});\n\ntest(\"no assertion\", async () => {\n  await delay('1');\n});\n\ndescribe('group', () => {\n  it('inner', () => {\n    assert.ok(1);\n  });\n});\n",
    );
    let o = originals(Framework::NodeTest, &s);
    assert_eq!(o.len(), 1, "{o:?}");
    let fail = copy(
        Framework::NodeTest,
        &o[0],
        "Retry-After zero",
        Some("Retry-After edge"),
    );
    assert_eq!(
        fail,
        "test('Retry-After zero', () => {\n  assert.strictEqual(delay('7'), 7);\n  assert.strictEqual([delay('7')], 'Retry-After edge');\n});\n\n"
    );
    assert_eq!(
        last_assert_arg(&["  assert.ok(policy.delay(0, { a: '1,2' }) > (1, 2));".into()])
            .as_deref(),
        Some("policy.delay(0, { a: '1,2' }) > (1, 2)")
    );
    assert_eq!(
        last_assert_arg(&["  assert.strictEqual(f(a, b);".into()]),
        None
    );
    assert_eq!(last_assert_arg(&["  check(x);".into()]), None);
}

#[test]
fn cargo_copies_plain_tests_in_modules() {
    let s = shown(
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n\n    #[test]\n    #[should_panic]\n    fn panics() {\n        add(u32::MAX, 1);\n    }\n\n    #[test]\n    fn tail_expression() {\n        assert_eq!(add(1, 1), 2)\n    }\n}\n",
    );
    let o = originals(Framework::Cargo, &s);
    assert_eq!(o.len(), 1, "{o:?}");
    assert_eq!(o[0].anchor, "    fn adds() {");
    assert_eq!(
        copy(Framework::Cargo, &o[0], "adds_twice", Some("adds_edge")),
        "    #[test]\n    fn adds_twice() {\n        assert_eq!(add(1, 2), 3);\n        assert_eq!(\"adds_twice\", \"adds_edge\");\n    }\n\n"
    );
}

#[test]
fn cfg_gated_rust_files_are_recognised() {
    assert_eq!(
        cfg_gate(&shown(
            "// Loom model tests.\n#![cfg(loom)]\n\nuse loom::thread;\n"
        )),
        Some("#![cfg(loom)]".into())
    );
    assert_eq!(
        cfg_gate(&shown("#![cfg(feature = \"std\")]\n#[test]\nfn x() {}\n")),
        Some("#![cfg(feature = \"std\")]".into())
    );
    assert_eq!(
        cfg_gate(&shown("#![cfg(test)]\n#[test]\nfn x() {}\n")),
        None
    );
    assert_eq!(cfg_gate(&shown("use x;\n#![cfg(loom)]\n")), None);
    let mut not_top = shown("#![cfg(loom)]\n");
    not_top.from_top = false;
    assert_eq!(cfg_gate(&not_top), None);
}
