//! Shared by the targets: decode → parse → format → parse, and the invariants between them.

use taskc_compiler::fmt::format;
use taskc_compiler::syntax::{decode, parse, strip_spans};
use taskc_compiler::SourceId;

pub fn parse_format_parse(data: &[u8]) {
    let Ok(text) = decode(SourceId(0), data) else {
        return;
    };
    let parsed = parse(SourceId(0), text);
    for d in &parsed.diagnostics {
        assert!(d.primary.span.start <= d.primary.span.end);
        assert!(d.primary.span.end as usize <= text.len(), "label past the end: {d:?}");
        assert!(text.is_char_boundary(d.primary.span.start as usize));
        assert!(text.is_char_boundary(d.primary.span.end as usize));
    }
    // Whatever parsed (bad statements are left out) must format to clean, stable text.
    let out = format(&parsed.document);
    let again = parse(SourceId(0), &out);
    assert!(
        again.diagnostics.is_empty(),
        "formatted output does not parse: {:#?}\n--- input\n{text}\n--- output\n{out}",
        again.diagnostics
    );
    assert_eq!(
        strip_spans(&again.document),
        strip_spans(&parsed.document),
        "re-parse differs\n--- input\n{text}\n--- output\n{out}"
    );
    assert_eq!(format(&again.document), out, "format is not idempotent");
}
