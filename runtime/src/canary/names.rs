//! Canary names that look like the file's own tests: words taken from the names of the
//! tests the hidden patch shows for that file (added and context lines), mixed with common
//! test-name words, in the framework's naming style — so code in the test process cannot
//! pick the canaries out by their name (a random hex name was a give-away).

use std::collections::BTreeSet;

use super::framework::Framework;
use super::seed::Seed;

/// Words real test names are made of, mixed into every canary name.
const COMMON: &[&str] = &[
    "accepts",
    "again",
    "basic",
    "boundary",
    "cached",
    "case",
    "default",
    "defaults",
    "edge",
    "empty",
    "handles",
    "ignores",
    "invalid",
    "keeps",
    "large",
    "missing",
    "mixed",
    "multiple",
    "negative",
    "nested",
    "none",
    "order",
    "repeated",
    "rejects",
    "reset",
    "returns",
    "roundtrip",
    "simple",
    "single",
    "twice",
    "unicode",
    "value",
    "values",
    "zero",
];

/// The test names `text` (lines of a test file) defines, as written.
pub fn defined(fw: Framework, text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let l = line.trim_start();
        let name = match fw {
            Framework::Pytest => l
                .strip_prefix("def ")
                .or_else(|| l.strip_prefix("async def "))
                .map(ident),
            Framework::GoTest => l.strip_prefix("func ").map(ident),
            Framework::Cargo => l.strip_prefix("fn ").map(ident),
            Framework::NodeTest | Framework::Jest => title(l),
            Framework::Phpunit => super::php::method(l),
            // A `.phpt` test is its file: the pipeline adds the file names.
            Framework::Phpt => None,
            Framework::Tcltest => super::tcl::defined(l),
            Framework::Mocha => super::mocha::defined(l),
            Framework::Minitest | Framework::Rspec => super::ruby::defined(l),
            Framework::Unittest => super::unittest::defined(l),
            Framework::Junit4 => super::junit::method(l),
        };
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            out.insert(n);
        }
    }
    out
}

/// The leading identifier of `s`.
pub(super) fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The title of a `test('…'` / `it("…"` line.
pub(super) fn title(l: &str) -> Option<String> {
    let rest = ["test(", "it(", "test.only(", "it.only("]
        .iter()
        .find_map(|p| l.strip_prefix(p))?;
    let q = rest
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let body = &rest[1..];
    body.find(q).map(|end| body[..end].to_string())
}

/// The lowercase words of the test names in `names` (without `test`).
pub fn vocabulary(names: &BTreeSet<String>) -> Vec<String> {
    let mut words = BTreeSet::new();
    for n in names {
        let mut cur = String::new();
        let mut push = |w: &mut String| {
            let lw = w.to_ascii_lowercase();
            if lw.len() >= 3 && lw != "test" && lw.chars().all(|c| c.is_ascii_lowercase()) {
                words.insert(lw);
            }
            w.clear();
        };
        for c in n.chars() {
            if c.is_ascii_uppercase() && !cur.is_empty() {
                push(&mut cur);
            }
            if c.is_ascii_alphanumeric() {
                cur.push(c);
            } else {
                push(&mut cur);
            }
        }
        push(&mut cur);
    }
    words.into_iter().collect()
}

/// A canary name for slot `(k, slot)`: two words of the file's `vocab` (common words when
/// it has fewer) and one common word, in `fw`'s style; never one of `taken`, and added to
/// it.
pub fn make(
    fw: Framework,
    vocab: &[String],
    seed: &Seed,
    k: u32,
    slot: u8,
    taken: &mut BTreeSet<String>,
) -> String {
    let pick = |list: &[String], i: u8| -> String {
        let n = seed.index(k, slot.wrapping_mul(8).wrapping_add(i), list.len().max(1));
        list.get(n).cloned().unwrap_or_default()
    };
    if fw == Framework::Tcltest {
        return super::tcl::name(vocab, seed, k, slot, taken);
    }
    let common: Vec<String> = COMMON.iter().map(|s| s.to_string()).collect();
    let own: &[String] = if vocab.len() >= 2 { vocab } else { &common };
    for attempt in 0..16u8 {
        let mut words = vec![pick(own, attempt * 3), pick(own, attempt * 3 + 1)];
        words.dedup();
        words.push(pick(&common, attempt * 3 + 2));
        if attempt >= 4 {
            // Still taken: a further common word.
            words.push(pick(&common, attempt * 3 + 100));
        }
        let name = style(fw, &words);
        if !taken
            .iter()
            .any(|t| t == &name || t.ends_with(&name) || name.ends_with(t.as_str()))
        {
            taken.insert(name.clone());
            return name;
        }
    }
    // Sixteen collisions: fall back on the seed's hex (unique, if recognisable).
    let name = style(fw, &[format!("x{}", seed.hex(k, slot))]);
    taken.insert(name.clone());
    name
}

/// `words` as a test name of `fw`.
fn style(fw: Framework, words: &[String]) -> String {
    match fw {
        Framework::Pytest => format!("test_{}", words.join("_")),
        Framework::GoTest | Framework::Phpunit => {
            let camel: String = words
                .iter()
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                        .unwrap_or_default()
                })
                .collect();
            match fw {
                Framework::Phpunit => format!("test{camel}"),
                _ => format!("Test{camel}"),
            }
        }
        Framework::Cargo | Framework::Tcltest => words.join("_"),
        Framework::Phpt => format!("{}.phpt", words.join("_")),
        Framework::NodeTest | Framework::Jest | Framework::Mocha | Framework::Rspec => {
            words.join(" ")
        }
        // A test method of the canary class (`group.rs` names the class).
        Framework::Minitest | Framework::Unittest => format!("test_{}", words.join("_")),
        Framework::Junit4 => super::junit::style(words),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_files_own_tests() {
        let text =
            "def test_retry_after_seconds():\n    pass\nasync def test_retry_after_http_date():\n";
        let names = defined(Framework::Pytest, text);
        assert_eq!(names.len(), 2);
        let vocab = vocabulary(&names);
        assert_eq!(vocab, ["after", "date", "http", "retry", "seconds"]);
        let mut taken = names.clone();
        let seed = Seed::fixed([3; 32]);
        let a = make(Framework::Pytest, &vocab, &seed, 1, 0, &mut taken);
        let b = make(Framework::Pytest, &vocab, &seed, 1, 1, &mut taken);
        assert_ne!(a, b);
        for n in [&a, &b] {
            assert!(n.starts_with("test_"), "{n}");
            assert!(
                n.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "no hex: {n}"
            );
            assert!(!names.contains(n.as_str()));
        }
    }

    #[test]
    fn go_and_node_names_follow_their_style() {
        let go = defined(
            Framework::GoTest,
            "func TestRetryAfterSeconds(t *testing.T) {\n",
        );
        assert_eq!(vocabulary(&go), ["after", "retry", "seconds"]);
        let mut taken = go.clone();
        let n = make(
            Framework::GoTest,
            &vocabulary(&go),
            &Seed::fixed([1; 32]),
            1,
            0,
            &mut taken,
        );
        assert!(
            n.starts_with("Test") && n.chars().all(|c| c.is_ascii_alphabetic()),
            "{n}"
        );
        let node = defined(
            Framework::NodeTest,
            "  test('honours Retry-After', () => {\n",
        );
        assert_eq!(
            node.iter().next().map(String::as_str),
            Some("honours Retry-After")
        );
    }

    #[test]
    fn a_name_never_repeats_a_taken_one() {
        let seed = Seed::fixed([9; 32]);
        let mut taken = BTreeSet::new();
        let names: BTreeSet<String> = (0..40)
            .map(|k| make(Framework::Pytest, &[], &seed, k, 0, &mut taken))
            .collect();
        assert_eq!(names.len(), 40);
    }
}
