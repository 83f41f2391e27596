//! mocha canaries (`mocha --reporter json`, parser `mocha-json`): a `describe` block of two
//! `it`s appended to a hidden spec file. mocha's BDD interface (its default) makes
//! `describe` and `it` globals before it loads a spec file, CommonJS or ES module alike, so
//! one text serves both; the assertion is `node:assert`'s, loaded with `import()` (valid in
//! both module kinds), so a `node:assert` made a no-op fails the failing canary's purpose
//! and is caught. Its id is `<file>::<describe> <it>` (`fullTitle`).

use super::args::Words;

/// Whether `path` is a spec file mocha runs: a `.js`/`.cjs`/`.mjs`/`.ts` file named like a
/// test (`x.test.js`, `x.spec.js`, `x-test.js`, `x_spec.js`, `test-x.js`, `test.js`), or
/// directly in a `test`/`tests`/`spec` folder (mocha's default spec is `./test/*.{js,cjs,mjs}`;
/// files deeper in it, helpers and fixtures, may never be loaded — a canary there would be
/// missing from a run that reports the folder's other tests).
pub fn carries(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let code = [".js", ".cjs", ".mjs", ".ts"]
        .iter()
        .any(|e| name.ends_with(e));
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let named = stem.ends_with(".test")
        || stem.ends_with(".spec")
        || stem.ends_with("-test")
        || stem.ends_with("_test")
        || stem.ends_with("-spec")
        || stem.ends_with("_spec")
        || stem.starts_with("test-")
        || stem.starts_with("test_")
        || stem == "test";
    let parent = path
        .rsplit('/')
        .nth(1)
        .filter(|_| path.contains('/'))
        .unwrap_or("");
    let in_spec_dir = matches!(parent, "test" | "tests" | "spec")
        && !matches!(
            stem,
            "helper" | "helpers" | "setup" | "common" | "utils" | "index" | "fixtures"
        );
    code && !path.contains("/fixtures/") && (named || in_spec_dir)
}

/// Why `command` would not run every canary: it selects tests by title (`--grep`,
/// `--fgrep`), or stops at the first failure (`--bail`: a failing canary would stop it).
pub fn selection(command: &str) -> Option<String> {
    let w = Words::of(command);
    if w.has(&["--grep", "-g", "--fgrep", "-f"]) {
        return Some(Words::selects("`--grep`/`--fgrep`"));
    }
    if w.has(&["--bail", "-b"]) {
        return Some(Words::stops("`--bail`"));
    }
    None
}

/// A test or suite title a line of a spec file defines (`it('…'`, `describe("…"`, …).
pub fn defined(line: &str) -> Option<String> {
    let l = line.trim_start();
    for p in ["describe", "context", "suite", "specify"] {
        for form in [format!("{p}("), format!("{p}.only("), format!("{p}.skip(")] {
            if let Some(rest) = l.strip_prefix(form.as_str()) {
                return super::names::title(&format!("it({rest}"));
            }
        }
    }
    super::names::title(l).or_else(|| {
        l.strip_prefix("it.skip(")
            .or_else(|| l.strip_prefix("test.skip("))
            .and_then(|rest| super::names::title(&format!("it({rest}")))
    })
}

/// One pair: `describe('<block>')` with an `it('<name>')` per member, comparing `a` with
/// the member's number (`a` itself: it must pass). The leading `;` ends a last statement
/// written without one (and without a final newline).
pub fn pair(block: &str, a: u32, members: [(&str, u32); 2]) -> String {
    let [(n1, x1), (n2, x2)] = members;
    let it = |name: &str, x: u32| {
        format!(
            "  it('{name}', async function () {{\n    const assert = (await import('node:assert')).default;\n    assert.strictEqual({a}, {x});\n  }});\n"
        )
    };
    format!(
        "\n;describe('{block}', function () {{\n{}\n{}}});\n",
        it(n1, x1),
        it(n2, x2)
    )
}
