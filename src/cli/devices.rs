//! `warpscope devices`: what the GPU is and the limits configurations are validated against.

use clap::{Args, ValueEnum};
use tabled::builder::Builder;
use tabled::settings::Style;

use warpscope::Outcome;
use warpscope::gpu::{self, DeviceInfo, calibrate};
use warpscope::{Error, Result};

use super::Context;

/// Arguments of `devices`.
#[derive(Args, Debug)]
pub struct DevicesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: DevicesFormat,
    /// Also run the time model's calibration microbenchmarks on each device (afresh, well under a
    /// second) and show the figures; they are kept in the cache that measured sweeps read.
    #[arg(long)]
    calibrate: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DevicesFormat {
    Table,
    Json,
}

pub fn devices(ctx: &Context, a: &DevicesArgs) -> Result<Outcome> {
    let list = gpu::list(ctx.backend)?;
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
    match a.format {
        DevicesFormat::Json if a.calibrate => {
            let out: Vec<serde_json::Value> = list
                .iter()
                .zip(&calibrations)
                .map(|(d, c)| serde_json::json!({ "device": d, "calibration": c }))
                .collect();
            outln!("{}", serde_json::to_string_pretty(&out).map_err(|e| Error::Output(e.to_string()))?)?;
        }
        DevicesFormat::Json => {
            outln!("{}", serde_json::to_string_pretty(&list).map_err(|e| Error::Output(e.to_string()))?)?;
        }
        DevicesFormat::Table => {
            for (i, d) in list.iter().enumerate() {
                outln!("{}", describe(d))?;
                if let Some(c) = calibrations.get(i) {
                    outln!("{}", describe_calibration(d, c))?;
                }
            }
        }
    }
    Ok(Outcome::Ok)
}

/// The calibration's figures, one per row, with what measured each.
fn describe_calibration(d: &DeviceInfo, c: &calibrate::Calibration) -> String {
    let f = &c.figures;
    let m = &c.measurements;
    let rows: Vec<(&str, String, &str)> = vec![
        ("copy bandwidth", format!("{:.0} GB/s", f.copy_gbs), "device-to-device cuMemcpy, bytes read + written"),
        ("DRAM read bandwidth", format!("{:.0} GB/s", f.read_gbs), "calRead: 4 x L2 read once"),
        ("DRAM latency", format!("{:.0} ns", f.dram_latency_ns), "calChase: one thread, dependent loads 1 MiB apart"),
        ("L2 bandwidth", format!("{:.0} GB/s", f.l2_gbs), "calRead: a quarter of L2 read over and over"),
        (
            "L2 partial-sector stores",
            format!("{:.1} per ns", f.partial_store_sectors_per_ns),
            "calPartialStore: 8 four-byte stores per sector",
        ),
        ("L1 bandwidth", format!("{:.0} B/clk/SM", f.l1_bytes_per_clk), "calL1Read: 8 KiB per block re-read"),
        ("shared memory", format!("{:.0} B/clk/SM", f.smem_bytes_per_clk), "calSmemRead: conflict-free 4-byte loads"),
        ("block issue", format!("{:.2} blocks/us/SM", f.blocks_per_us_per_sm), "calEmpty: 2000 empty blocks per SM"),
        ("launch overhead", format!("{:.1} us", f.launch_ms * 1e3), "calEmpty: one block, between CUDA events"),
        ("calibration took", format!("{:.0} ms", m.wall_ms), "microbenchmarks, their buffers and module load"),
    ];
    let mut b = Builder::default();
    b.push_record([format!("calibration of {} ({})", d.name, d.ordinal), f.source.clone(), String::new()]);
    for (k, v, how) in rows {
        b.push_record([k.to_string(), v, how.to_string()]);
    }
    if let Some(p) = calibrate::cache_path(d) {
        b.push_record(["cached in".to_string(), p.display().to_string(), String::new()]);
    }
    let mut t = b.build();
    t.with(Style::psql());
    t.to_string()
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
