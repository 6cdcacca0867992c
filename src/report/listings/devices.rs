//! `devices`: what each GPU is, the limits configurations are validated against, and (with
//! `--calibrate`) the figures the time model measured on it.

use crate::error::Result;
use crate::gpu::DeviceInfo;
use crate::gpu::calibrate::{self, Calibration};
use crate::report::listing::{Cells, Listing, Part, to_json};

/// The devices of this host, with their calibrations when they were measured.
pub struct Devices {
    /// Every device.
    pub list: Vec<DeviceInfo>,
    /// One per device, or none.
    pub calibrations: Vec<Calibration>,
}

impl Listing for Devices {
    /// The devices; with calibrations, `{device, calibration}` pairs.
    fn json(&self) -> Result<String> {
        if self.calibrations.is_empty() {
            return to_json(&self.list);
        }
        let pairs: Vec<serde_json::Value> = self
            .list
            .iter()
            .zip(&self.calibrations)
            .map(|(d, c)| serde_json::json!({ "device": d, "calibration": c }))
            .collect();
        to_json(&pairs)
    }

    fn text(&self) -> Vec<Part> {
        let mut out = Vec::new();
        for (i, d) in self.list.iter().enumerate() {
            out.push(Part::Table(describe(d)));
            if let Some(c) = self.calibrations.get(i) {
                out.push(Part::Table(describe_calibration(d, c)));
            }
        }
        out
    }

    fn csv(&self) -> Option<Cells> {
        let o = |v: Option<String>| v.unwrap_or_default();
        let mut t = Cells::new(&[
            "ordinal",
            "name",
            "compute_capability",
            "backend",
            "driver",
            "sms",
            "sm_clock_mhz",
            "memory_bytes",
            "mem_clock_mhz",
            "mem_bus_width_bits",
            "peak_bandwidth_gbs",
            "l2_bytes",
            "pci_bus_id",
            "power_limit_w",
        ]);
        for d in &self.list {
            t.push(vec![
                d.ordinal.to_string(),
                d.name.clone(),
                o(d.compute_capability.clone()),
                d.backend.to_string(),
                o(d.driver.clone()),
                o(d.sms.map(|v| v.to_string())),
                o(d.sm_clock_mhz.map(|v| v.to_string())),
                o(d.memory_bytes.map(|v| v.to_string())),
                o(d.mem_clock_mhz.map(|v| v.to_string())),
                o(d.mem_bus_width_bits.map(|v| v.to_string())),
                o(d.peak_bandwidth_gbs.map(|v| v.to_string())),
                o(d.l2_bytes.map(|v| v.to_string())),
                o(d.pci_bus_id.clone()),
                o(d.power_limit_w.map(|v| v.to_string())),
            ]);
        }
        Some(t)
    }
}

/// A measured table's points, each as `point` writes it, comma-separated, or `not measured`.
fn points<const N: usize>(t: &[[f64; N]], point: impl Fn(&[f64; N]) -> String) -> String {
    if t.is_empty() {
        return "not measured".to_string();
    }
    t.iter().map(point).collect::<Vec<_>>().join(", ")
}

/// The row spreads, `4 KiB rows: 64: 1.15, ...; 64 KiB rows: ...`, or `not measured`.
fn row_spreads(f: &crate::model::time::Figures) -> String {
    if f.row_spreads.is_empty() {
        return "not measured".to_string();
    }
    let each = |r: &crate::model::time::RowSpread| {
        format!("{} KiB rows: {}", r.pitch_bytes / 1024.0, points(&r.factors, |p| format!("{}: {:.2}", p[0], p[1])))
    };
    f.row_spreads.iter().map(each).collect::<Vec<_>>().join("; ")
}

/// The calibration's figures, one per row, with what measured each.
fn describe_calibration(d: &DeviceInfo, c: &Calibration) -> Cells {
    let f = &c.figures;
    let m = &c.measurements;
    let rows: Vec<(&str, String, &str)> = vec![
        ("copy bandwidth", format!("{:.0} GB/s", f.copy_gbs), "device-to-device cuMemcpy, bytes read + written"),
        (
            "DRAM read bandwidth",
            format!("{:.0} GB/s", f.read_gbs),
            "calReadBlocks: 2 and 16 x L2 once, the rate between",
        ),
        ("DRAM latency", format!("{:.0} ns", f.dram_latency_ns), "calChase: one thread, dependent loads 1 MiB apart"),
        (
            "L1 / L2 hit latency",
            format!("{:.1} / {:.1} ns", f.l1_latency_ns, f.l2_latency_ns),
            "calChase warm: through 8 KiB, and through up to 16 MiB a line a step; rate between two lengths",
        ),
        (
            "DRAM read in flight",
            points(&f.read_curve, |p| format!("{}: {:.0}", p[0] / 1024.0, p[1])),
            "calInflight: KiB in flight per SM: GB/s",
        ),
        (
            "DRAM runs",
            points(&f.run_efficiency, |p| format!("{}: {:.2} {:.2}", p[0], p[1], p[2])),
            "calRuns: bytes per run: reads, writes over a contiguous pass",
        ),
        (
            "DRAM row spread",
            row_spreads(f),
            "calRows: rows of a pitch, bytes per row of 1024-thread blocks 1024x1..16x64: time over 1024x1's",
        ),
        ("L2 bandwidth", format!("{:.0} GB/s", f.l2_gbs), "calL2Read: a quarter of L2 re-read past L1"),
        (
            "L2 input port",
            format!("{:.1} cycles per ns", f.l2_write_cycles_per_ns),
            "calPartialStore: one 4-byte store per sector and line",
        ),
        (
            "L2 atomic unit",
            if f.atomic_sectors_per_ns > 0.0 {
                format!(
                    "{:.2} sectors/ns a slice; slices by lines: {}",
                    f.atomic_sectors_per_ns,
                    points(&f.atomic_spread, |p| format!("{}: {:.1}", p[0], p[1]))
                )
            } else {
                "not measured".to_string()
            },
            "calAtomics: a warp's adds to a line's 32 words over 1-2048 lines; rate over the one-line run's",
        ),
        ("L1 bandwidth", format!("{:.0} B/clk/SM", f.l1_bytes_per_clk), "calL1Read: 8 KiB per block re-read"),
        ("shared memory", format!("{:.0} B/clk/SM", f.smem_bytes_per_clk), "calSmemRead: conflict-free 4-byte loads"),
        ("block issue", format!("{:.2} blocks/us/SM", f.blocks_per_us_per_sm), "calEmpty: 2000 empty blocks per SM"),
        (
            "block turnover",
            if f.block_gap_ns > 0.0 { format!("{:.0} ns", f.block_gap_ns) } else { "not measured".to_string() },
            "calEmpty: 1024-thread blocks, 50 and 150 rounds; time per round between",
        ),
        ("launch overhead", format!("{:.1} us", f.launch_ms * 1e3), "calEmpty: one block, between CUDA events"),
        ("calibration took", format!("{:.0} ms", m.wall_ms), "microbenchmarks, their buffers and module load"),
    ];
    let title = format!("calibration of {} ({})", d.name, d.ordinal);
    let mut t = Cells::new(&[&title, &f.source, ""]);
    for (k, v, how) in rows {
        t.push(vec![k.to_string(), v, how.to_string()]);
    }
    if let Some(p) = calibrate::cache_path(d) {
        t.push(vec!["cached in".to_string(), p.display().to_string(), String::new()]);
    }
    t
}

fn opt<T: std::fmt::Display>(v: &Option<T>, unit: &str) -> String {
    v.as_ref().map(|v| format!("{v}{unit}")).unwrap_or_else(|| "n/a".into())
}

/// The device and its limits as rows of two columns (the first row is the table's header).
fn describe(d: &DeviceInfo) -> Cells {
    let kib = |b: u32| format!("{} KiB", b / 1024);
    let mut rows: Vec<(&str, String)> = vec![
        ("compute capability", opt(&d.compute_capability, "")),
        ("backend", d.backend.to_string()),
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
    if let Some(l) = &d.limits {
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
    }
    let name = format!("{} ({})", d.name, d.ordinal);
    let mut t = Cells::new(&["device", &name]);
    for (k, v) in rows {
        t.push(vec![k.to_string(), v]);
    }
    t
}
