//! unittest canaries (`python -m unittest -v`, parser `unittest`): a `unittest.TestCase`
//! subclass of two test methods appended at the top level of a hidden `test*.py` module
//! (the pattern of unittest's discovery). unittest loads every `TestCase` subclass a
//! module defines when it imports it, so the class runs like the module's own. The base
//! class is named through `__import__('unittest')`, so the module's own `unittest` name
//! (twisted's, or none) is left alone. Ids are `<module>.<Class>.<test_method>`.

use super::args::Words;

/// Whether `path` is a module unittest's default discovery loads (`test*.py`).
pub fn carries(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.starts_with("test") && name.ends_with(".py") && !format!("/{path}").contains("/fixtures/")
}

/// Why `command` would not run every canary: it selects tests (`-k`, a dotted name of a
/// class or method), discovers files by a pattern other than `test*.py` (`-p`), or stops
/// at its first failure (`-f`/`--failfast`).
pub fn selection(command: &str) -> Option<String> {
    let w = Words::of(command);
    let after = w.after("unittest");
    if Words::among(after, &["-k"])
        || after
            .iter()
            .any(|t| t.starts_with("-k") && !t.starts_with("--"))
    {
        return Some(Words::selects("`-k`"));
    }
    let names_class = after.iter().any(|t| {
        !t.starts_with('-')
            && !t.contains('/')
            && t.contains('.')
            && !t.ends_with(".py")
            && t.split('.')
                .any(|part| part.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
    });
    if names_class {
        return Some(Words::selects("a dotted test class or method name"));
    }
    if let Some(i) = after.iter().position(|t| t == "-p" || t == "--pattern") {
        if after.get(i + 1).map(String::as_str) != Some("test*.py") {
            return Some(
                "the test command discovers test modules by a pattern of its own (`-p`): canaries are written only into `test*.py` modules, which it may not load"
                    .into(),
            );
        }
    }
    if Words::among(after, &["-f", "--failfast"]) {
        return Some(Words::stops("`--failfast`"));
    }
    None
}

/// A name a line of a Python module defines (`def x`, `async def x`, `class X`).
pub fn defined(line: &str) -> Option<String> {
    let l = line.trim_start();
    l.strip_prefix("def ")
        .or_else(|| l.strip_prefix("async def "))
        .or_else(|| l.strip_prefix("class "))
        .map(super::names::ident)
}

/// One pair: class `class` with a test method per member (`assertEqual(a, x)`; `x == a`:
/// it must pass).
pub fn pair(class: &str, a: u32, members: [(&str, u32); 2]) -> String {
    let [(n1, x1), (n2, x2)] = members;
    format!(
        "\n\nclass {class}(__import__('unittest').TestCase):\n    def {n1}(self):\n        self.assertEqual({a}, {x1})\n\n    def {n2}(self):\n        self.assertEqual({a}, {x2})\n"
    )
}
