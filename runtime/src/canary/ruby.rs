//! Ruby canaries. **minitest** (parser `minitest`, `-v` output): a `Minitest::Test`
//! subclass of two test methods appended to a hidden `*_test.rb` / `test_*.rb`; minitest
//! runs every `Minitest::Test` subclass defined when its `at_exit` hook fires, so a class
//! appended after the file's own is run like theirs; ids are `Class#test_method`.
//! **rspec** (parser `rspec-json`): an `RSpec.describe` block of two examples appended to a
//! hidden `*_spec.rb` (`RSpec.describe` works with the monkey-patching `describe` disabled
//! too); ids are `<file>::<describe> <it>` (`full_description`). Both assert with the
//! framework's own matcher (`assert_equal`, `expect(…).to eq(…)`).

use super::args::Words;
use super::framework::Framework;

/// Whether `path` is a test file of `fw` (minitest or rspec) that its runner loads.
pub fn carries(fw: Framework, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let aside = ["/fixtures/", "/support/", "/helpers/"]
        .iter()
        .any(|d| format!("/{path}").contains(d));
    let Some(stem) = name.strip_suffix(".rb") else {
        return false;
    };
    !aside
        && match fw {
            Framework::Minitest => {
                (stem.ends_with("_test") || stem.starts_with("test_")) && stem != "test_helper"
            }
            Framework::Rspec => stem.ends_with("_spec"),
            _ => false,
        }
}

/// Why `command` would not run every canary of `fw`: it selects examples or tests by name
/// or by line, or stops at its first failure.
pub fn selection(fw: Framework, command: &str) -> Option<String> {
    let w = Words::of(command);
    let by_line = w.all().iter().any(|t| {
        t.split_once(".rb:").is_some_and(|(_, n)| {
            n.split(':')
                .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        }) || t.contains(".rb[")
    });
    if by_line {
        return Some(Words::selects("a `file.rb:line` or `file.rb[id]` argument"));
    }
    match fw {
        Framework::Rspec => {
            let after = w.after("rspec");
            if Words::among(
                after,
                &[
                    "-e",
                    "--example",
                    "-E",
                    "--example-matches",
                    "-t",
                    "--tag",
                    "--only-failures",
                    "--next-failure",
                ],
            ) {
                return Some(Words::selects("`-e`/`-E`/`--tag`/`--only-failures`"));
            }
            if Words::among(after, &["--fail-fast"]) {
                return Some(Words::stops("`--fail-fast`"));
            }
            None
        }
        Framework::Minitest => {
            // `ruby -e '…'` loads the tests; minitest's own `-e` (exclude) comes after the
            // test file or `--`.
            let all = w.all();
            let start = all
                .iter()
                .position(|t| t.ends_with(".rb") || t == "--")
                .map_or(all.len(), |i| i + 1);
            if Words::among(all, &["-n", "--name", "--exclude"])
                || Words::among(&all[start..], &["-e"])
            {
                return Some(Words::selects("`-n`/`--name`/`-e`"));
            }
            let rails = all.iter().any(|t| t == "rails" || t.ends_with("/rails"));
            if Words::among(all, &["--fail-fast"]) || (rails && Words::among(all, &["-f"])) {
                return Some(Words::stops("`--fail-fast`"));
            }
            None
        }
        _ => None,
    }
}

/// A name a line of a Ruby test file defines: a `def test_…` method, a `class`, or the
/// title of an `it`/`describe`/`context`/`specify`/`test` block (and the method name
/// `test "a b"` defines in Rails, `test_a_b`).
pub fn defined(line: &str) -> Option<String> {
    let l = line.trim_start();
    if let Some(rest) = l.strip_prefix("def ") {
        return Some(super::names::ident(rest.trim_start_matches("self.")));
    }
    if let Some(rest) = l.strip_prefix("class ") {
        return Some(super::names::ident(rest.trim_start()));
    }
    let l = l.strip_prefix("RSpec.").unwrap_or(l);
    for kw in ["it", "describe", "context", "specify", "example", "test"] {
        let Some(rest) = l.strip_prefix(kw) else {
            continue;
        };
        let rest = rest.strip_prefix('(').unwrap_or(rest).trim_start();
        let Some(q) = rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
            continue;
        };
        let body = &rest[1..];
        let title = body.find(q).map(|end| body[..end].to_string())?;
        return Some(if kw == "test" {
            format!("test_{}", title.replace(' ', "_"))
        } else {
            title
        });
    }
    None
}

/// One minitest pair: class `class` with a test method per member (`assert_equal a, x`;
/// `x == a`: it must pass).
pub fn minitest_pair(class: &str, a: u32, members: [(&str, u32); 2]) -> String {
    let [(n1, x1), (n2, x2)] = members;
    format!(
        "\n\nclass {class} < Minitest::Test\n  def {n1}\n    assert_equal {a}, {x1}\n  end\n\n  def {n2}\n    assert_equal {a}, {x2}\n  end\nend\n"
    )
}

/// One rspec pair: `RSpec.describe '<block>'` with an example per member
/// (`expect(a).to eq(x)`; `x == a`: it must pass).
pub fn rspec_pair(block: &str, a: u32, members: [(&str, u32); 2]) -> String {
    let [(n1, x1), (n2, x2)] = members;
    format!(
        "\n\nRSpec.describe '{block}' do\n  it '{n1}' do\n    expect({a}).to eq({x1})\n  end\n\n  it '{n2}' do\n    expect({a}).to eq({x2})\n  end\nend\n"
    )
}
