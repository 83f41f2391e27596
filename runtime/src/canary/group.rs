//! Canary pairs of the frameworks whose tests live in a named block — a mocha or rspec
//! `describe`, a minitest or unittest test class: the block's name (drawn per run like the
//! test names, from the words of the file's own tests), the ids the runner reports for its
//! members, and where those ids show that the canaries' file ran.
//!
//! Each pair gets its own block, so the canary's id is the block's name joined to the
//! member's the way the parser joins them: mocha and rspec `<file>::<describe> <it>`,
//! minitest `<Class>#<test_method>`, unittest `<module>.<Class>.<test_method>`. The
//! canary's name is that joined part, so `is_canary_id` matches it as a suffix after `::`,
//! `.`, or as the whole id (minitest).

use std::collections::{BTreeMap, BTreeSet};

use super::derive::Shown;
use super::framework::Framework;
use super::names;
use super::seed::Seed;
use crate::parsers::Outcome;

/// The block of pair `k`'s canaries, for the frameworks that need one (`None`: the others):
/// a `describe` title in the file's words (mocha, rspec), or a class name (minitest,
/// unittest: `RetryAfterEdgeTest`, or `TestRetryAfterEdge` where the file's own classes
/// start with `Test`), never a name in `taken` (the file's own classes and titles), and
/// added to it.
pub fn name(
    fw: Framework,
    own: &BTreeSet<String>,
    vocab: &[String],
    seed: &Seed,
    k: u32,
    taken: &mut BTreeSet<String>,
) -> Option<String> {
    match fw {
        Framework::Mocha | Framework::Rspec => Some(names::make(fw, vocab, seed, k, 2, taken)),
        Framework::Minitest | Framework::Unittest => {
            let prefix = fw == Framework::Unittest
                && own.iter().any(|n| {
                    n.starts_with("Test")
                        && n.chars().nth(4).is_some_and(|c| c.is_ascii_uppercase())
                });
            for slot in 2..10u8 {
                // Go's style is `Test` + CamelCase words.
                let mut scratch = BTreeSet::new();
                let go = names::make(Framework::GoTest, vocab, seed, k, slot, &mut scratch);
                let camel = go.strip_prefix("Test").unwrap_or(&go);
                let class = if prefix {
                    format!("Test{camel}")
                } else {
                    format!("{camel}Test")
                };
                if !taken.contains(&class) {
                    taken.insert(class.clone());
                    return Some(class);
                }
            }
            let class = format!("X{}Test", seed.hex(k, 2));
            taken.insert(class.clone());
            Some(class)
        }
        Framework::Pytest
        | Framework::GoTest
        | Framework::NodeTest
        | Framework::Jest
        | Framework::Cargo
        | Framework::Phpunit
        | Framework::Phpt
        | Framework::Tcltest
        | Framework::Junit4 => None,
    }
}

/// The canary's name: the member `member` of block `block` as the runner's id ends.
pub fn full(fw: Framework, block: &str, member: &str) -> String {
    match fw {
        Framework::Minitest => format!("{block}#{member}"),
        Framework::Unittest => format!("{block}.{member}"),
        _ => format!("{block} {member}"),
    }
}

/// The text of one pair: block `block` with `pass` (compares `a` with itself) and `fail`
/// (compares `a` with `b`, `a != b`), in the framework's own assertion; `fail_first`
/// (drawn per pair) writes the failing one first, so its place in the block tells nothing.
pub fn pair(
    fw: Framework,
    block: &str,
    pass: &str,
    fail: &str,
    (a, b): (u32, u32),
    fail_first: bool,
) -> String {
    let members = if fail_first {
        [(fail, b), (pass, a)]
    } else {
        [(pass, a), (fail, b)]
    };
    match fw {
        Framework::Mocha => super::mocha::pair(block, a, members),
        Framework::Minitest => super::ruby::minitest_pair(block, a, members),
        Framework::Rspec => super::ruby::rspec_pair(block, a, members),
        Framework::Unittest => super::unittest::pair(block, a, members),
        Framework::Pytest
        | Framework::GoTest
        | Framework::NodeTest
        | Framework::Jest
        | Framework::Cargo
        | Framework::Phpunit
        | Framework::Phpt
        | Framework::Tcltest
        | Framework::Junit4 => String::new(),
    }
}

/// Whether the results show that `file` ran (so its canaries must be among them): mocha and
/// rspec, a test of that file (the id's part before `::`, relative to the repository or to
/// the folder the runner ran in); unittest, a test of its module (the file's stem is a
/// component of the dotted id); minitest ids name no file: any test that is no error.
pub fn file_ran(fw: Framework, file: &str, tests: &BTreeMap<String, Outcome>) -> bool {
    let real = |o: &Outcome| *o != Outcome::Error;
    match fw {
        Framework::Mocha | Framework::Rspec => tests.iter().any(|(id, o)| {
            let Some((f, _)) = id.split_once("::") else {
                return false;
            };
            let f = f.trim_start_matches("./");
            real(o)
                && (f == file
                    || file.ends_with(&format!("/{f}"))
                    || f.ends_with(&format!("/{file}")))
        }),
        Framework::Unittest => {
            let base = file.rsplit('/').next().unwrap_or(file);
            let stem = base.strip_suffix(".py").unwrap_or(base);
            tests
                .iter()
                .any(|(id, o)| real(o) && id.split('.').any(|part| part == stem))
        }
        _ => tests.values().any(real),
    }
}

/// The lines of the hidden file (as its patch shows them) that open a top-level block of
/// `fw` a pair's block can be written right before, still valid and at the top level: a
/// minitest `class` at column 0; a unittest `class` at column 0 whose line above is shown
/// and is no decorator; an rspec `RSpec.describe`/`describe` at column 0; a mocha
/// `describe(` at column 0. A line the patch shows twice is left out (the insertion goes
/// before the first line equal to it).
pub fn anchors(fw: Framework, shown: &Shown) -> Vec<String> {
    let opens = |prev: Option<&String>, l: &str| match fw {
        Framework::Minitest => l.starts_with("class ") && l.contains('<'),
        Framework::Unittest => {
            l.starts_with("class ")
                && l.trim_end().ends_with(':')
                && prev.is_some_and(|p| !p.trim_start().starts_with('@'))
        }
        Framework::Rspec => l.starts_with("RSpec.describe ") || l.starts_with("describe "),
        Framework::Mocha => l.starts_with("describe("),
        Framework::Pytest
        | Framework::GoTest
        | Framework::NodeTest
        | Framework::Jest
        | Framework::Cargo
        | Framework::Phpunit
        | Framework::Phpt
        | Framework::Tcltest
        | Framework::Junit4 => false,
    };
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for chunk in &shown.chunks {
        for l in chunk {
            *seen.entry(l.as_str()).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for chunk in &shown.chunks {
        for (i, l) in chunk.iter().enumerate() {
            let prev = i.checked_sub(1).and_then(|j| chunk.get(j));
            if opens(prev, l) && seen.get(l.as_str()) == Some(&1) {
                out.push(l.clone());
            }
        }
    }
    out
}

/// Where pair `k` goes: before one of `blocks`, or (`None`) appended — drawn per run, the
/// end of the file being one more place.
pub fn place<'a>(blocks: &'a [String], seed: &Seed, k: u32) -> Option<&'a String> {
    blocks.get(seed.index(k, 248, blocks.len() + 1))
}
