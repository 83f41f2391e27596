//! `taskc verify --compare-oracle FILE`: the derived oracle against an imported one.

use std::collections::BTreeMap;
use std::path::Path;

use taskc_runtime::import::oracle::{self, Oracle};
use taskc_runtime::pipeline::VerifyOutcome;

use super::verify::VerifyFormat;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// Read an imported oracle file.
pub fn load(path: &Path) -> Result<Oracle, CliError> {
    let shown = crate::discover::display(path);
    let text = std::fs::read_to_string(path).map_err(|e| {
        CliError::usage(format!(
            "{shown}: cannot read: {}",
            crate::discover::io_message(&e)
        ))
    })?;
    oracle::parse_oracle(&text).map_err(|e| {
        CliError::usage_with(
            format!("{shown}: not an oracle file: {e}"),
            "`taskc import` writes <task>.oracle.toml beside the spec",
        )
    })
}

/// Print the comparison; `Findings` when any repository differs.
pub fn compare(imported: &Oracle, outcome: &VerifyOutcome, format: VerifyFormat) -> Exit {
    let derived: BTreeMap<String, (Vec<String>, Vec<String>)> = outcome
        .verification
        .oracles
        .iter()
        .map(|(k, o)| (k.clone(), (o.f2p.clone(), o.p2p.clone())))
        .collect();
    let rows = oracle::compare(imported, &derived);
    let agree = rows.iter().all(|r| r.agrees());
    match format {
        VerifyFormat::Human => output::out(&oracle::render(&rows)),
        VerifyFormat::Json => output::out(&format!(
            "{}\n",
            serde_json::json!({ "oracle_comparison": rows, "agree": agree })
        )),
    }
    if agree {
        Exit::Success
    } else {
        Exit::Findings
    }
}
