//! `warpscope selftest`: every kernel, a few block shapes, a small odd-sized problem, verified.

use warpscope::Outcome;
use warpscope::kernels;
use warpscope::record::Report;
use warpscope::sweep::{self, Event, Options};
use warpscope::{Result, gpu, ptx, spec};

use super::{Context, DeviceArg, OutputArgs, exit_for};

/// Arguments of `selftest`.
#[derive(clap::Args, Debug)]
pub struct SelftestArgs {
    #[command(flatten)]
    gpu: DeviceArg,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn selftest(ctx: &Context, a: &SelftestArgs) -> Result<Outcome> {
    let out = &a.out.to();
    out.check()?;
    let mut backend = gpu::open(ctx.backend, a.gpu.device)?;
    if !out.quiet {
        let d = backend.info();
        errln!(
            "selftest on device {} ({}, sm_{}), PTX from {}",
            d.ordinal,
            d.name,
            d.compute_capability.as_deref().unwrap_or("?").replace('.', ""),
            ptx::ORIGIN
        );
    }
    let opts = Options { warmup: 1, iters: 3, seed: 0x5e1f_7e57, ..Default::default() };
    let mut all: Option<Report> = None;
    for info in kernels::all() {
        let kernel = info.selftest_kernel()?;
        let blocks = spec::parse_block_list(info.selftest_blocks)?;
        let report = sweep::run(backend.as_mut(), kernel.as_ref(), &blocks, &opts, &mut |e| {
            if let Event::Record(r) = e {
                out.line(&format!("{:<10} {}", r.status.as_str(), r.launch_line()));
            }
        })?;
        match &mut all {
            Some(a) => a.records.extend(report.records),
            None => all = Some(report),
        }
    }
    let report = all.expect("at least one kernel");
    out.emit(&report)?;
    let failed = report.records.iter().filter(|r| r.status != warpscope::record::Status::Ok).count();
    if !out.quiet {
        errln!(
            "selftest: {} of {} configurations verified{}",
            report.records.len() - failed,
            report.records.len(),
            if failed == 0 { "" } else { " -- FAILED" }
        );
    }
    Ok(if failed > 0 { Outcome::CheckFailed } else { exit_for(&report) })
}
