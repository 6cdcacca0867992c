//! `warpscope archs`: the architecture database and the named cards, with the limits the models use.

use clap::{Args, ValueEnum};

use warpscope::report::listings::Database;
use warpscope::{Outcome, Result};

use super::{ListFormat, print_listing};

/// Arguments of `archs`.
#[derive(Args, Debug)]
pub struct ArchsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ArchsFormat,
}

/// Two tables (architectures and cards) have no single CSV form.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ArchsFormat {
    Table,
    Json,
}

pub fn run(a: &ArchsArgs) -> Result<Outcome> {
    let format = match a.format {
        ArchsFormat::Table => ListFormat::Table,
        ArchsFormat::Json => ListFormat::Json,
    };
    print_listing(&Database::default(), format)?;
    Ok(Outcome::Ok)
}
