//! Unit tests of the mocha, minitest, rspec and unittest canaries (`mocha.rs`, `ruby.rs`,
//! `unittest.rs`, `group.rs`); their real runs are `runtime/tests/canaries_script_runners.rs`.

use std::collections::BTreeMap;

use taskc_compiler::plan::Run;

use super::*;

/// A run of `parser`/`command` whose hidden test patch adds `files` to repository `proxy`.
fn run_with_files(
    parser: &str,
    command: &str,
    files: &[(&str, &str)],
) -> (Run, BTreeMap<String, String>) {
    super::tests::canaries::hidden_run(parser.parse().unwrap(), command, files)
}

const MOCHA: &str = "const assert = require('assert');\ndescribe('retry', function () {\n  it('honours retry after seconds', function () {\n    assert.strictEqual(1, 1);\n  });\n});\n";
const MINITEST: &str = "require 'minitest/autorun'\n\nclass RetryAfterTest < Minitest::Test\n  def test_retry_after_seconds\n    assert_equal 1, 1\n  end\nend\n";
const RSPEC: &str = "RSpec.describe 'retry' do\n  it 'honours retry after seconds' do\n    expect(1).to eq(1)\n  end\nend\n";
const UNITTEST: &str = "import unittest\n\n\nclass TestRetryAfter(unittest.TestCase):\n    def test_retry_after_seconds(self):\n        self.assertEqual(1, 1)\n";

/// Each framework's placement for its file: the names, and the text of the first pair
/// (snapshot).
fn placed(parser: &str, command: &str, file: &str, text: &str) -> Placement {
    let (run, blobs) = run_with_files(parser, command, &[(file, text)]);
    let p = place(&run, &blobs, &Seed::fixed([5; 32]));
    assert!(p.unplaced.is_empty(), "{parser}: {:?}", p.unplaced);
    assert!(
        matches!(p.canaries.len(), 4 | 6),
        "{parser}: two or three pairs"
    );
    assert!(p.canaries.iter().all(|c| c.file == file));
    p
}

fn shown(p: &Placement) -> String {
    let names: Vec<String> = p
        .canaries
        .iter()
        .map(|c| format!("{:?} {}", c.expected, c.name))
        .collect();
    format!(
        "{}\n---\n{}---\n{}",
        names.join("\n"),
        String::from_utf8_lossy(&p.uploads[0].bytes),
        p.script
    )
}

#[test]
fn mocha_canaries_are_a_describe_block_per_pair() {
    let p = placed(
        "mocha-json",
        "npx mocha --reporter json",
        "test/retry.test.js",
        MOCHA,
    );
    for c in &p.canaries {
        // `<describe> <it>`, words of the file's own titles: no hex, no punctuation.
        assert!(
            c.name
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch == ' '),
            "{}",
            c.name
        );
        assert!(is_canary_id(
            &format!("test/retry.test.js::{}", c.name),
            &c.name
        ));
    }
    insta::assert_snapshot!(shown(&p));
}

#[test]
fn minitest_canaries_are_a_test_class_per_pair() {
    let p = placed(
        "minitest",
        "ruby -Itest test/retry_after_test.rb -v",
        "test/retry_after_test.rb",
        MINITEST,
    );
    for c in &p.canaries {
        let (class, method) = c.name.split_once('#').unwrap();
        assert!(
            class.ends_with("Test") && class != "RetryAfterTest",
            "{class}"
        );
        assert!(method.starts_with("test_"), "{method}");
    }
    insta::assert_snapshot!(shown(&p));
}

#[test]
fn rspec_canaries_are_a_describe_block_per_pair() {
    let p = placed(
        "rspec-json",
        "bundle exec rspec --format json",
        "spec/retry_spec.rb",
        RSPEC,
    );
    insta::assert_snapshot!(shown(&p));
}

#[test]
fn unittest_canaries_are_a_test_case_per_pair_in_the_files_style() {
    let p = placed(
        "unittest",
        "python3 -m unittest discover -v",
        "tests/test_retry.py",
        UNITTEST,
    );
    for c in &p.canaries {
        let (class, method) = c.name.split_once('.').unwrap();
        // The file's classes start with `Test`: so do the canaries'.
        assert!(
            class.starts_with("Test") && class != "TestRetryAfter",
            "{class}"
        );
        assert!(method.starts_with("test_"), "{method}");
        assert!(is_canary_id(
            &format!("tests.test_retry.{}", c.name),
            &c.name
        ));
    }
    insta::assert_snapshot!(shown(&p));
}

#[test]
fn frameworks_from_the_descriptors() {
    let step = |parser: &str, command: &str| run_with_files(parser, command, &[]).0.test;
    assert_eq!(
        Framework::of(&step("mocha-json", "mocha --reporter json")),
        Ok(Framework::Mocha)
    );
    assert_eq!(
        Framework::of(&step("minitest", "rake test TESTOPTS=-v")),
        Ok(Framework::Minitest)
    );
    assert_eq!(
        Framework::of(&step("rspec-json", "rspec --format json")),
        Ok(Framework::Rspec)
    );
    assert_eq!(
        Framework::of(&step("unittest", "python -m unittest -v")),
        Ok(Framework::Unittest)
    );
    // Django's runner prints unittest's lines, but loads tests its own way.
    let django = Framework::of(&step("unittest", "python3 tests/runtests.py --verbosity 2"));
    assert!(django.is_err(), "{django:?}");
    let (run, blobs) = run_with_files(
        "unittest",
        "python3 manage.py test -v 2",
        &[("app/tests.py", UNITTEST)],
    );
    let p = place(&run, &blobs, &Seed::fixed([5; 32]));
    assert!(p.canaries.is_empty());
    assert!(
        p.unplaced["proxy"].contains("python -m unittest"),
        "{:?}",
        p.unplaced
    );
}

#[test]
fn test_files_of_the_script_runners() {
    let m = Framework::Mocha;
    assert!(m.carries("test/retry.test.js"));
    assert!(m.carries("test/retry.js"));
    assert!(m.carries("spec/retry.spec.mjs"));
    assert!(m.carries("packages/a/test/retry-test.cjs"));
    assert!(
        !m.carries("test/helpers/server.js"),
        "deeper in test/: may never be loaded"
    );
    assert!(!m.carries("test/setup.js"));
    assert!(!m.carries("test/fixtures/retry.test.js"));
    assert!(!m.carries("lib/retry.js"));
    let t = Framework::Minitest;
    assert!(t.carries("test/retry_test.rb"));
    assert!(t.carries("test/unit/test_retry.rb"));
    assert!(!t.carries("test/test_helper.rb"));
    assert!(!t.carries("test/support/retry_test.rb"));
    assert!(!t.carries("lib/retry.rb"));
    let r = Framework::Rspec;
    assert!(r.carries("spec/models/retry_spec.rb"));
    assert!(!r.carries("spec/spec_helper.rb"));
    assert!(!r.carries("spec/support/shared_spec.rb"));
    let u = Framework::Unittest;
    assert!(u.carries("tests/test_retry.py"));
    assert!(u.carries("app/tests.py"));
    assert!(
        !u.carries("tests/retry_test.py"),
        "not unittest's default pattern"
    );
    assert!(!u.carries("tests/__init__.py"));
}

#[test]
fn commands_that_select_or_stop_early_get_no_canaries() {
    let none = |fw: Framework, cmd: &str| assert_eq!(fw.selection(cmd), None, "{cmd}");
    let some = |fw: Framework, cmd: &str| assert!(fw.selection(cmd).is_some(), "{cmd}");
    let m = Framework::Mocha;
    none(m, "npx mocha --reporter json --recursive test");
    some(m, "mocha --reporter json --grep retry");
    some(m, "mocha --reporter json -g retry");
    some(m, "mocha --reporter json --bail");
    assert!(m
        .selection("mocha -b --reporter json")
        .unwrap()
        .contains("first failing test"));
    let t = Framework::Minitest;
    none(
        t,
        "ruby -Ilib -Itest -e 'Dir.glob(\"test/*_test.rb\").each { |f| require f }' -- -v",
    );
    none(t, "bundle exec rake test TESTOPTS=-v");
    some(t, "ruby -Itest test/retry_test.rb -v -n /seconds/");
    some(t, "ruby -Itest test/retry_test.rb -v -e /slow/");
    some(t, "bundle exec rake test TESTOPTS=\"-v --name=test_x\"");
    some(t, "bin/rails test test/models/retry_test.rb:12 -v");
    some(t, "bin/rails test -f -v");
    let r = Framework::Rspec;
    none(r, "ruby -e 'puts 1' && bundle exec rspec --format json");
    some(r, "rspec --format json -e 'retry after'");
    some(r, "rspec --format json spec/retry_spec.rb:10");
    some(r, "rspec --format json spec/retry_spec.rb[1:2]");
    some(r, "rspec --format json --tag focus");
    some(r, "rspec --format json --fail-fast");
    let u = Framework::Unittest;
    none(u, "python3 -m unittest -v");
    none(u, "python3 -m unittest discover -s tests -t . -v");
    none(
        u,
        "python3 -m unittest -v tests.test_retry tests/test_other.py",
    );
    none(u, "python3 -m unittest discover -p 'test*.py' -v");
    some(u, "python3 -m unittest -v -k seconds");
    some(u, "python3 -m unittest -v -kseconds");
    some(u, "python3 -m unittest -v tests.test_retry.RetryTest");
    some(
        u,
        "python3 -m unittest -v tests.test_retry.RetryTest.test_seconds",
    );
    some(u, "python3 -m unittest discover -p '*_test.py' -v");
    some(u, "python3 -m unittest -f -v");
    some(u, "python3 -m unittest --failfast -v");
}

#[test]
fn names_avoid_the_files_classes_and_titles() {
    // A class of the file that a canary class would reopen (minitest: a superclass
    // mismatch; unittest: a replaced class) is never taken.
    let own = names::defined(Framework::Minitest, MINITEST);
    assert!(own.contains("RetryAfterTest") && own.contains("test_retry_after_seconds"));
    let own = names::defined(Framework::Rspec, RSPEC);
    assert!(own.contains("retry") && own.contains("honours retry after seconds"));
    let own = names::defined(Framework::Mocha, MOCHA);
    assert!(own.contains("retry") && own.contains("honours retry after seconds"));
    let own = names::defined(Framework::Unittest, UNITTEST);
    assert!(own.contains("TestRetryAfter") && own.contains("test_retry_after_seconds"));
    let rails = names::defined(Framework::Minitest, "  test \"retry after\" do\n");
    assert!(rails.contains("test_retry_after"), "{rails:?}");
}

#[test]
fn a_canary_file_that_did_not_run_is_not_run_not_tampered() {
    let p = placed(
        "rspec-json",
        "rspec --format json",
        "spec/retry_spec.rb",
        RSPEC,
    );
    // Another spec file ran; this one failed to load (no example of it reported).
    let mut tests = BTreeMap::from([(
        "spec/other_spec.rb::other works".to_string(),
        Outcome::Passed,
    )]);
    assert!(matches!(
        check(&p, "proxy", &mut tests),
        CanaryCheck::NotRun { .. }
    ));
    // It ran, its canaries vanished: tampered.
    let mut tests = BTreeMap::from([(
        "spec/retry_spec.rb::retry honours retry after seconds".to_string(),
        Outcome::Passed,
    )]);
    assert!(check(&p, "proxy", &mut tests).is_tampered());
    // unittest: by the module.
    let p = placed(
        "unittest",
        "python3 -m unittest -v",
        "tests/test_retry.py",
        UNITTEST,
    );
    let mut tests = BTreeMap::from([(
        "tests.test_other.OtherTest.test_x".to_string(),
        Outcome::Passed,
    )]);
    assert!(matches!(
        check(&p, "proxy", &mut tests),
        CanaryCheck::NotRun { .. }
    ));
    let mut tests = BTreeMap::from([(
        "tests.test_retry.TestRetryAfter.test_retry_after_seconds".to_string(),
        Outcome::Passed,
    )]);
    assert!(check(&p, "proxy", &mut tests).is_tampered());
}

/// A pair's block goes before one of the file's top-level blocks or at its end, drawn per
/// run: over seeds, every place is taken; a decorated unittest class is never split from
/// its decorator, and a block nested in another is never a place.
#[test]
fn blocks_go_before_a_drawn_top_level_block_or_at_the_end() {
    let unittest = "import unittest\n\n\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        pass\n\n\n@unittest.skip('x')\nclass TestB(unittest.TestCase):\n    def test_b(self):\n        pass\n\n\nclass TestC(unittest.TestCase):\n    class TestNested:\n        pass\n";
    let rspec = "require 'x'\n\nRSpec.describe 'a' do\n  describe 'inner' do\n    it 'works' do\n    end\n  end\nend\n\ndescribe 'b' do\nend\n";
    let mocha = "const assert = require('assert')\ndescribe('a', () => {\n  describe('inner', () => {});\n});\ndescribe('b', () => {});\n";
    let minitest = "require 'minitest/autorun'\n\nclass ATest < Minitest::Test\nend\n\nclass BTest < Minitest::Test\n  class Helper < Struct\n  end\nend\n";
    for (parser, command, file, text, expected) in [
        (
            "unittest",
            "python3 -m unittest -v",
            "tests/test_x.py",
            unittest,
            vec![
                "class TestA(unittest.TestCase):",
                "class TestC(unittest.TestCase):",
            ],
        ),
        (
            "rspec-json",
            "rspec --format json",
            "spec/x_spec.rb",
            rspec,
            vec!["RSpec.describe 'a' do", "describe 'b' do"],
        ),
        (
            "mocha-json",
            "mocha --reporter json",
            "test/x.test.js",
            mocha,
            vec!["describe('a', () => {", "describe('b', () => {});"],
        ),
        (
            "minitest",
            "ruby -Itest test/x_test.rb -v",
            "test/x_test.rb",
            minitest,
            vec![
                "class ATest < Minitest::Test",
                "class BTest < Minitest::Test",
            ],
        ),
    ] {
        let (run, blobs) = run_with_files(parser, command, &[(file, text)]);
        let mut places = std::collections::BTreeSet::new();
        for s in 0..24u8 {
            let p = place(&run, &blobs, &Seed::fixed([s; 32]));
            for line in p.script.lines() {
                if line.starts_with("cat ") {
                    places.insert("end".to_string());
                } else if let Some(w) = line.strip_prefix("W=") {
                    let anchor = w.split(" B=").next().unwrap_or_default();
                    // Shell-quoted: `'…'`, a quote as `'\''`.
                    let quoted = anchor.strip_prefix('\'').and_then(|a| a.strip_suffix('\''));
                    places.insert(quoted.unwrap_or(anchor).replace("'\\''", "'"));
                }
            }
        }
        let mut want: std::collections::BTreeSet<String> =
            expected.iter().map(|s| s.to_string()).collect();
        want.insert("end".into());
        assert_eq!(places, want, "{parser}");
    }
}
