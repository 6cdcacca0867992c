//! `occupancy`: the theoretical occupancy of each block size, with what limits it.

use std::path::Path;

use crate::Outcome;
use crate::error::{Error, Result};
use crate::gpu::driver_check::DriverCheck;
use crate::model::arch::Arch;
use crate::model::occupancy::{Occupancy, Request, theoretical};
use crate::report::listing::{Cells, Listing, ListingFormat, Part, print, to_json};

/// `warpscope occupancy` once its arguments are checked: the calculator for `arch` (`sm_80`, `9.0`) at
/// each block size of `sizes` (a list or ranges), printed in `format`, and its three views drawn to
/// `plot`.
pub fn calculate(
    arch: &str,
    sizes: &str,
    request: Request,
    format: ListingFormat,
    plot: Option<&Path>,
) -> Result<Outcome> {
    crate::report::check_plot(plot)?;
    let arch = crate::model::arch::parse_arch(arch).map_err(Error::usage)?;
    let sizes = crate::spec::parse_int_list(sizes)?;
    let calculator = Calculator::new(arch, request, &sizes);
    print(&calculator, format)?;
    if let Some(path) = plot.filter(|_| !sizes.is_empty()) {
        crate::report::figures::calculator(arch, &calculator.request).draw(path)?;
        crate::output::note(&format!("wrote {}", path.display()));
    }
    Ok(Outcome::Ok)
}

/// `warpscope occupancy --against-driver`: the calculator against the driver of CUDA device `device`,
/// printed in `format`; `CheckFailed` on any disagreement.
pub fn check_driver(device: u32, format: ListingFormat) -> Result<Outcome> {
    let check = crate::gpu::driver_check::against_driver(&mut crate::gpu::CudaBackend::open(device)?)?;
    print(&AgainstDriver(&check), format)?;
    Ok(if check.disagreements().is_empty() { Outcome::Ok } else { Outcome::CheckFailed })
}

/// The calculator's answer for one architecture, one resource request and several block sizes.
pub struct Calculator {
    /// The architecture.
    pub arch: &'static Arch,
    /// Registers and shared memory asked for (its block size is the first row's).
    pub request: Request,
    /// One row per block size.
    pub rows: Vec<Occupancy>,
}

impl Calculator {
    /// The calculator for `request` (registers and shared memory; its block size is ignored) at each of
    /// `sizes`.
    pub fn new(arch: &'static Arch, request: Request, sizes: &[u32]) -> Self {
        let rows = sizes.iter().map(|&block_size| theoretical(arch, &Request { block_size, ..request })).collect();
        Calculator { arch, request: Request { block_size: sizes.first().copied().unwrap_or(0), ..request }, rows }
    }
}

impl Listing for Calculator {
    /// One object for one block size (as nvprof users script against), else an array.
    fn json(&self) -> Result<String> {
        match self.rows.as_slice() {
            [one] => to_json(one),
            rows => to_json(rows),
        }
    }

    fn text(&self) -> Vec<Part> {
        let o = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        let mut t = Cells::new(&[
            "block",
            "blocks/SM",
            "warps/SM",
            "occupancy",
            "limiter",
            "by warps",
            "by registers",
            "by smem",
            "by blocks",
            "note",
        ]);
        for r in &self.rows {
            t.push(vec![
                r.block_size.to_string(),
                r.active_blocks_per_sm.to_string(),
                format!("{} / {}", r.active_warps_per_sm, r.max_warps_per_sm),
                format!("{:.1}%", r.occupancy_pct),
                r.limiter.as_str().to_string(),
                o(r.limits.warps),
                o(r.limits.registers),
                o(r.limits.shared_memory),
                o(r.limits.blocks),
                r.reason.clone().unwrap_or_default(),
            ]);
        }
        let q = &self.request;
        vec![
            Part::Line(format!(
                "{} ({}), {} registers/thread, {} B static + {} B dynamic shared memory per block",
                self.arch.sm_name(),
                self.arch.family,
                q.regs_per_thread,
                q.static_smem,
                q.dynamic_smem
            )),
            Part::Table(t),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let o = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_default();
        let mut t = Cells::new(&[
            "arch",
            "block_size",
            "regs_per_thread",
            "static_smem",
            "dynamic_smem",
            "active_blocks_per_sm",
            "active_warps_per_sm",
            "max_warps_per_sm",
            "occupancy_pct",
            "limiter",
            "limit_warps",
            "limit_registers",
            "limit_shared_memory",
            "limit_blocks",
            "launchable",
            "reason",
        ]);
        for r in &self.rows {
            t.push(vec![
                r.arch.clone(),
                r.block_size.to_string(),
                r.regs_per_thread.to_string(),
                r.static_smem.to_string(),
                r.dynamic_smem.to_string(),
                r.active_blocks_per_sm.to_string(),
                r.active_warps_per_sm.to_string(),
                r.max_warps_per_sm.to_string(),
                format!("{:.2}", r.occupancy_pct),
                r.limiter.as_str().to_string(),
                o(r.limits.warps),
                o(r.limits.registers),
                o(r.limits.shared_memory),
                o(r.limits.blocks),
                r.launchable.to_string(),
                r.reason.clone().unwrap_or_default(),
            ]);
        }
        Some(t)
    }
}

/// `occupancy --against-driver`: the calculator against the driver's on this GPU.
pub struct AgainstDriver<'a>(pub &'a DriverCheck);

impl Listing for AgainstDriver<'_> {
    /// The check with the number of disagreements.
    fn json(&self) -> Result<String> {
        #[derive(serde::Serialize)]
        struct Json<'a> {
            #[serde(flatten)]
            check: &'a DriverCheck,
            arch: String,
            disagreements: usize,
        }
        let c = self.0;
        to_json(&Json { check: c, arch: c.arch.sm_name(), disagreements: c.disagreements().len() })
    }

    fn text(&self) -> Vec<Part> {
        let c = self.0;
        let bad = c.disagreements();
        let mut out = vec![Part::Line(format!(
            "{} ({}) against {}: {} cases ({} kernels with {:?} registers, {} block sizes, {} dynamic shared-memory sizes): {} agree, {} differ",
            c.device,
            c.driver.as_deref().unwrap_or("driver"),
            c.arch.sm_name(),
            c.cases.len(),
            c.kernels,
            c.registers(),
            c.block_sizes,
            c.dynamic_sizes,
            c.cases.len() - bad.len(),
            bad.len()
        ))];
        for (d, ours) in bad.iter().take(20) {
            out.push(Part::Line(format!(
                "  {}: block {} regs {} static {} dynamic {}: driver {} blocks/SM, warpscope {}",
                d.entry, d.block_size, d.regs_per_thread, d.static_smem, d.dynamic_smem, d.driver_blocks, ours
            )));
        }
        out
    }

    fn csv(&self) -> Option<Cells> {
        let c = self.0;
        let mut t = Cells::new(&[
            "entry",
            "block_size",
            "regs_per_thread",
            "static_smem",
            "dynamic_smem",
            "driver_blocks",
            "warpscope_blocks",
        ]);
        for d in &c.cases {
            t.push(vec![
                d.entry.clone(),
                d.block_size.to_string(),
                d.regs_per_thread.to_string(),
                d.static_smem.to_string(),
                d.dynamic_smem.to_string(),
                d.driver_blocks.to_string(),
                c.ours(d).to_string(),
            ]);
        }
        Some(t)
    }
}
