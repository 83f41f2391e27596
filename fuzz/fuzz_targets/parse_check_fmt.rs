//! Arbitrary bytes through the checker (a panic is a finding), then the parse/format round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use taskc_compiler::check::check_spec;
use taskc_compiler::loader::MemLoader;

mod roundtrip;

fuzz_target!(|data: &[u8]| {
    let loader = MemLoader::new()
        .with("prompt.md", "Fix the bug.\n")
        .with("repos/a/README", "a\n");
    let _ = check_spec("fuzz.task", data, &loader);
    roundtrip::parse_format_parse(data);
});
