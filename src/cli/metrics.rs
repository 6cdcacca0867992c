//! `warpscope metrics`: the catalogue — nvprof name, the Nsight Compute metric behind it, unit, meaning.

use clap::Args;

use warpscope::report::listings::Catalogue;
use warpscope::{Outcome, Result};

use super::{ListFormat, print_listing};

/// Arguments of `metrics`.
#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
}

pub fn run(a: &MetricsArgs) -> Result<Outcome> {
    print_listing(&Catalogue::default(), a.format)?;
    Ok(Outcome::Ok)
}
