//! `warpscope kernels`: the kernels warpscope can run, their entry points and problem options.

use std::process::ExitCode;

use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::Result;
use warpscope::kernels::CATALOGUE;
use warpscope::model::resources;

pub fn run() -> Result<ExitCode> {
    let mut t = Builder::default();
    t.push_record(["kernel", "entry", "registers (sm_90)", "what it does"]);
    for k in CATALOGUE {
        let regs = resources::lookup(k.entry, "sm_90").map(|r| r.registers.to_string()).unwrap_or_else(|| "-".into());
        t.push_record([k.name, k.entry, &regs, k.about]);
    }
    outln!("{}", t.build().with(Style::psql()))?;
    outln!("problem options: --nx/--ny (matrix or frame size), --frames (image kernels)")?;
    Ok(ExitCode::SUCCESS)
}
