//! `warpscope devices`: what the GPU is and the limits configurations are validated against.

use clap::Args;

use warpscope::Outcome;
use warpscope::Result;
use warpscope::gpu::{self, calibrate};
use warpscope::report::listings::Devices;

use super::{Context, ListFormat, print_listing, ranges};

/// Arguments of `devices`.
#[derive(Args, Debug)]
pub struct DevicesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ListFormat,
    /// Also run the time model's calibration microbenchmarks on each device (afresh, well under a
    /// second) and show the figures; they are kept in the cache that measured sweeps read.
    #[arg(long)]
    calibrate: bool,
    #[arg(long, value_parser = ranges::DEVICE.parser(), help = ranges::DEVICE.help(
        "Only this device (CUDA ordinal): listed and, with --calibrate, calibrated alone, so that calibrating one GPU of a host does not disturb work running on the others"))]
    device: Option<u32>,
}

pub fn devices(ctx: &Context, a: &DevicesArgs) -> Result<Outcome> {
    let list = match a.device {
        // Opening the one device checks its ordinal (a usage error naming the host's devices) and
        // leaves the host's other GPUs untouched.
        Some(ordinal) => vec![gpu::open(ctx.backend, ordinal)?.info().clone()],
        None => gpu::list(ctx.backend)?,
    };
    let calibrations = if a.calibrate {
        list.iter()
            .map(|d| {
                let mut backend = gpu::open(ctx.backend, d.ordinal)?;
                calibrate::calibration(backend.as_mut(), true)
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        Vec::new()
    };
    print_listing(&Devices { list, calibrations }, a.format)?;
    Ok(Outcome::Ok)
}
