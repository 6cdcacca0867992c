//! `warpscope estimate`: the sweep table from the models alone, for an arch or a named card.

use clap::Args;

use warpscope::Outcome;
use warpscope::model::arch::{self, Arch, Card};
use warpscope::model::time::Target;
use warpscope::{Result, estimate};

use super::sweep::Shapes;
use super::{OutputArgs, usage};

/// Arguments of `estimate`.
#[derive(Args, Debug)]
pub struct EstimateArgs {
    #[command(flatten)]
    shapes: Shapes,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    fig: super::report::FigureArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// Which machine to model: an arch (with its first listed card's sizes) or a named card.
#[derive(Args, Debug)]
pub struct TargetArgs {
    /// Compute capability to model: sm_20, 9.0, ... (`warpscope archs` lists them).
    #[arg(long)]
    arch: Option<String>,
    /// Card to model: "GTX 480", H200, ... (`warpscope archs` lists them).
    #[arg(long)]
    gpu: Option<String>,
}

impl TargetArgs {
    /// The target, or a usage error naming what is missing or unknown.
    pub fn target(&self) -> Result<Target> {
        let (card, arch): (&Card, &'static Arch) = match (&self.gpu, &self.arch) {
            (Some(g), _) => {
                let card = arch::find_card(g).map_err(usage)?;
                let a = arch::arch(card.cc).ok_or_else(|| usage(format!("{} has no arch row", card.name)))?;
                if let Some(want) = &self.arch {
                    let w = arch::parse_arch(want).map_err(usage)?;
                    if w.cc != a.cc {
                        return Err(usage(format!("--gpu {} is {}, not {}", card.name, a.sm_name(), w.sm_name())));
                    }
                }
                (card, a)
            }
            (None, Some(s)) => {
                let a = arch::parse_arch(s).map_err(usage)?;
                let card =
                    arch::default_card(a.cc).ok_or_else(|| usage(format!("no card modelled for {}", a.sm_name())))?;
                (card, a)
            }
            (None, None) => return Err(usage("say what to model: --arch sm_90 or --gpu H200 (see `warpscope archs`)")),
        };
        Ok(Target::from_card(card, arch))
    }
}

pub fn run(a: &EstimateArgs) -> Result<Outcome> {
    super::check_outputs(&[], &a.out, &a.fig.outputs())?;
    a.out.to().check()?;
    let fig = a.fig.visuals();
    fig.check()?;
    let (kernel, blocks) = a.shapes.resolve()?;
    let target = a.target.target()?;
    let (_, regs_from) = estimate::attrs(kernel.as_ref(), &target);
    if !a.out.quiet {
        errln!(
            "{} {}: {} config{} modelled on {} ({}, {} SMs, {} MHz, {:.0} GB/s achievable), registers from ptxas {regs_from}",
            kernel.name(),
            kernel.problem(),
            blocks.len(),
            if blocks.len() == 1 { "" } else { "s" },
            target.name,
            target.arch.sm_name(),
            target.sms,
            target.clock_mhz,
            target.figures.copy_gbs
        );
    }
    let report = in_steps(kernel.as_ref(), &blocks, &target, a.out.to().progress(blocks.len()));
    a.out.to().emit(&report)?;
    fig.emit(&report)?;
    Ok(Outcome::Ok)
}

/// The estimates in steps of about 1 % of the shapes, so that a long estimate shows a progress bar on a
/// terminal and stops at the next step on Ctrl-C (or SIGTERM, SIGHUP) with what finished.
fn in_steps(
    kernel: &dyn warpscope::kernels::Kernel,
    blocks: &[warpscope::spec::Dim3],
    target: &Target,
    bar: indicatif::ProgressBar,
) -> warpscope::record::Report {
    let step = blocks.len().div_ceil(100).max(1);
    let mut report = estimate::run(kernel, &blocks[..0], target);
    for (k, chunk) in blocks.chunks(step).enumerate() {
        if warpscope::signals::stop_requested() {
            break;
        }
        let first = (k * step) as u32;
        report.records.extend(estimate::run(kernel, chunk, target).records.into_iter().map(|mut r| {
            r.index = r.index.map(|i| i + first);
            r
        }));
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    report
}
