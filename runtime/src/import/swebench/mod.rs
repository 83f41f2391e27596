//! `taskc import swebench INSTANCES.json|jsonl`: SWE-bench instances become single-target specs.

use std::path::Path;

use super::{ImportOptions, ImportReport};

/// Import every instance of `path`; `Err` when the file itself cannot be read.
pub fn import_file(path: &Path, opts: &ImportOptions) -> Result<ImportReport, String> {
    let _ = (path, opts);
    Err("SWE-bench import is not implemented yet".into())
}
