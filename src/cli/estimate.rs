//! `warpscope estimate`: the sweep table from the models alone, for an arch or a named card.

use clap::Args;

use warpscope::{Outcome, Result, estimate};

use super::OutputArgs;
use super::sweep::Shapes;

/// Arguments of `estimate`.
#[derive(Args, Debug)]
pub struct EstimateArgs {
    #[command(flatten)]
    shapes: Shapes,
    #[command(flatten)]
    target: TargetArgs,
    #[arg(long, value_name = "N", requires = "kernel_file", conflicts_with = "kernel",
        value_parser = super::ranges::REGS.parser(),
        help = super::ranges::REGS.help("Registers per thread of a kernel file's entry (ptxas's figure: `nvcc --resource-usage`), which its occupancy needs; 32 when not given (said so)"))]
    registers: Option<u32>,
    #[command(flatten)]
    fig: super::report::FigureArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// Which machine to model: an arch (with its first listed card's sizes) or a named card.
#[derive(Args, Debug)]
struct TargetArgs {
    /// Compute capability to model: sm_20, 9.0, ... (`warpscope archs` lists them).
    #[arg(long)]
    arch: Option<String>,
    /// Card to model: "GTX 480", H200, ... (`warpscope archs` lists them).
    #[arg(long)]
    gpu: Option<String>,
}

pub fn run(a: &EstimateArgs) -> Result<Outcome> {
    super::check_outputs(&[], &a.out, &a.fig.outputs())?;
    estimate::Request {
        kernel: a.shapes.kernel(),
        problem: a.shapes.problem(),
        blocks: &a.shapes.blocks(),
        gpu: a.target.gpu.as_deref(),
        arch: a.target.arch.as_deref(),
        to: &a.out.to(),
        visuals: &a.fig.visuals(),
        names: super::flag,
        kernel_file: a.shapes.kernel_file().map(|(path, sizes, defines)| estimate::FileRequest {
            path,
            sizes,
            defines,
            registers: a.registers,
        }),
    }
    .run()
}
