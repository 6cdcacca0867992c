//! JSON: the report as-is (`schema_version`, `device`, `baselines`, `records`).

use std::io::Write;

use crate::error::{Error, Result};
use crate::record::Report;

pub(super) fn write(report: &Report, w: &mut dyn Write) -> Result<()> {
    serde_json::to_writer_pretty(&mut *w, report).map_err(|e| Error::Output(e.to_string()))?;
    writeln!(w).map_err(|e| Error::Output(e.to_string()))
}
