//! `warpscope devices`: what the GPU is and the limits configurations are validated against.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::gpu::{self, DeviceInfo};
use warpscope::{Error, Result};

use super::Context;

/// Arguments of `devices`.
#[derive(Args, Debug)]
pub struct DevicesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: DevicesFormat,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DevicesFormat {
    Table,
    Json,
}

pub fn devices(ctx: &Context, a: &DevicesArgs) -> Result<ExitCode> {
    let list = gpu::list(ctx.backend)?;
    match a.format {
        DevicesFormat::Json => {
            outln!("{}", serde_json::to_string_pretty(&list).map_err(|e| Error::Output(e.to_string()))?)?;
        }
        DevicesFormat::Table => {
            for d in &list {
                outln!("{}", describe(d))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn opt<T: std::fmt::Display>(v: &Option<T>, unit: &str) -> String {
    v.as_ref().map(|v| format!("{v}{unit}")).unwrap_or_else(|| "n/a".into())
}

fn describe(d: &DeviceInfo) -> String {
    let kib = |b: u32| format!("{} KiB", b / 1024);
    let mut rows: Vec<(&str, String)> = vec![
        ("device", format!("{} ({})", d.name, d.ordinal)),
        ("compute capability", opt(&d.compute_capability, "")),
        ("backend", d.backend.clone()),
        ("driver", opt(&d.driver, "")),
        ("SMs", opt(&d.sms, "")),
        ("SM clock (max)", opt(&d.sm_clock_mhz, " MHz")),
        ("memory", opt(&d.memory_bytes.map(|m| format!("{:.1}", m as f64 / (1u64 << 30) as f64)), " GiB")),
        ("memory clock", opt(&d.mem_clock_mhz, " MHz")),
        ("memory bus", opt(&d.mem_bus_width_bits, " bit")),
        (
            "peak bandwidth",
            d.peak_bandwidth_gbs.map(|b| format!("{b:.1} GB/s (2 x clock x bus)")).unwrap_or_else(|| "n/a".into()),
        ),
        ("L2 cache", opt(&d.l2_bytes.map(|b| b as f64 / (1u64 << 20) as f64), " MiB")),
        ("PCI bus id", opt(&d.pci_bus_id, "")),
        ("power limit", opt(&d.power_limit_w, " W")),
    ];
    let Some(l) = &d.limits else { return table(rows) };
    rows.extend([
        ("warp size", l.warp_size.to_string()),
        ("threads per block", l.max_threads_per_block.to_string()),
        ("block dims", format!("{} x {} x {}", l.max_block_dim[0], l.max_block_dim[1], l.max_block_dim[2])),
        ("grid dims", format!("{} x {} x {}", l.max_grid_dim[0], l.max_grid_dim[1], l.max_grid_dim[2])),
        ("threads per SM", l.max_threads_per_sm.to_string()),
        ("blocks per SM", l.max_blocks_per_sm.to_string()),
        ("registers per block", l.regs_per_block.to_string()),
        ("registers per SM", l.regs_per_sm.to_string()),
        ("shared memory per block", format!("{} ({} opt-in)", kib(l.smem_per_block), kib(l.smem_per_block_optin))),
        ("shared memory per SM", kib(l.smem_per_sm)),
        ("reserved shared per block", format!("{} B", l.reserved_smem_per_block)),
    ]);
    table(rows)
}

fn table(rows: Vec<(&str, String)>) -> String {
    let mut b = Builder::default();
    for (k, v) in rows {
        b.push_record([k.to_string(), v]);
    }
    let mut t = b.build();
    t.with(Style::psql());
    t.to_string()
}
