//! `taskc verify --compare-oracle FILE`: rendering the derived oracle against an imported
//! one (the runtime reads the file and compares, `pipeline::verify_specs`).

use taskc_runtime::import::oracle;
use taskc_runtime::pipeline::{OracleComparison, OracleFileError};

use super::verify::VerifyFormat;
use crate::discover::{display, io_message};
use crate::error::CliError;
use crate::output;

/// The usage error (exit 2) of an oracle file that cannot be read.
pub fn file_error(e: &OracleFileError) -> CliError {
    match e {
        OracleFileError::Read { path, source } => CliError::usage(format!(
            "{}: cannot read: {}",
            display(path),
            io_message(source)
        )),
        OracleFileError::Parse { path, detail } => CliError::Usage {
            message: format!("{}: not an oracle file: {detail}", display(path)),
            hint: e.hint(),
        },
    }
}

/// Print the comparison.
pub fn print(c: &OracleComparison, format: VerifyFormat) {
    match format {
        VerifyFormat::Human => output::out(&oracle::render(&c.rows)),
        VerifyFormat::Json => output::out(&format!(
            "{}\n",
            serde_json::json!({ "oracle_comparison": c.rows, "agree": c.agree })
        )),
    }
}
