//! No parser panics, whatever the bytes: every fixture is cut at many points
//! and has random bytes flipped, and each version goes through every parser.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse, LogParser};

/// xorshift64: deterministic, so a failure reproduces.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn fixtures() -> Vec<Vec<u8>> {
    let root = format!("{}/tests/fixtures/logs", env!("CARGO_MANIFEST_DIR"));
    let mut logs = Vec::new();
    for dir in std::fs::read_dir(&root).expect("fixtures exist") {
        let dir = dir.expect("readable dir").path();
        for file in std::fs::read_dir(&dir).expect("readable dir") {
            logs.push(std::fs::read(file.expect("entry").path()).expect("readable fixture"));
        }
    }
    logs.sort();
    logs
}

#[test]
fn cut_and_flipped_logs_never_panic() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let logs = fixtures();
    assert!(
        logs.len() >= 20,
        "expected the fixture corpus, found {}",
        logs.len()
    );
    for log in &logs {
        for _ in 0..12 {
            let mut mutated = log.clone();
            let cut = (next(&mut state) as usize) % (log.len() + 1);
            mutated.truncate(cut);
            for _ in 0..8 {
                if mutated.is_empty() {
                    break;
                }
                let at = (next(&mut state) as usize) % mutated.len();
                mutated[at] = next(&mut state) as u8;
            }
            for &parser in LogParser::ALL {
                // Errors are fine; panics are not.
                let _ = parse(parser, &mutated);
            }
        }
    }
}

#[test]
fn every_parser_reports_an_empty_log_as_incomplete() {
    for &parser in LogParser::ALL {
        let parsed = parse(parser, b"").expect("known parser");
        assert!(parsed.tests.is_empty(), "{parser} found tests in nothing");
        assert!(!parsed.complete, "{parser} calls an empty log complete");
        assert!(!parsed.warnings.is_empty(), "{parser} does not say why");
    }
}
