//! Arbitrary bytes through decode → parse → format → parse.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod roundtrip;

fuzz_target!(|data: &[u8]| {
    roundtrip::parse_format_parse(data);
});
