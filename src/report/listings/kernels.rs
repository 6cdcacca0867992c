//! `kernels`: the built-in kernels, their entry points, registers and problem options.

use serde::Serialize;

use crate::error::Result;
use crate::kernels;
use crate::model::resources;
use crate::report::listing::{Cells, Listing, Part, to_json};

/// One built-in kernel as `kernels` lists it.
#[derive(Serialize)]
pub struct KernelRow {
    name: &'static str,
    entry: &'static str,
    /// Registers per thread of its sm_90 build (ptxas), where known.
    registers_sm90: Option<u32>,
    /// Its problem parameters with their defaults, e.g. `nx 16384, ny 16384`.
    problem_defaults: String,
    about: &'static str,
}

/// Every built-in kernel, in listing order.
pub struct KernelCatalogue(Vec<KernelRow>);

impl Default for KernelCatalogue {
    fn default() -> Self {
        KernelCatalogue(
            kernels::all()
                .map(|k| KernelRow {
                    name: k.name,
                    entry: k.entry,
                    registers_sm90: resources::lookup(k.entry, "sm_90").map(|r| r.registers),
                    problem_defaults: k.defaults(),
                    about: k.about,
                })
                .collect(),
        )
    }
}

impl Listing for KernelCatalogue {
    fn json(&self) -> Result<String> {
        to_json(&self.0)
    }

    fn text(&self) -> Vec<Part> {
        let mut t = Cells::new(&["kernel", "entry", "registers (sm_90)", "problem (defaults)", "what it does"]);
        for k in &self.0 {
            let regs = k.registers_sm90.map(|r| r.to_string()).unwrap_or_else(|| "-".into());
            t.push(vec![k.name.into(), k.entry.into(), regs, k.problem_defaults.clone(), k.about.into()]);
        }
        let options: Vec<String> = kernels::Param::ALL.iter().map(|p| format!("--{}", p.name())).collect();
        vec![
            Part::Table(t),
            Part::Line(format!("problem options: {} (each kernel takes those it lists)", options.join(", "))),
            Part::Line("your own kernel: warpscope kernels --kernel-file FILE.toml (docs/KERNEL-FILE.md)".into()),
        ]
    }

    fn csv(&self) -> Option<Cells> {
        let mut t = Cells::new(&["name", "entry", "registers_sm90", "problem_defaults", "about"]);
        for k in &self.0 {
            t.push(vec![
                k.name.into(),
                k.entry.into(),
                k.registers_sm90.map(|r| r.to_string()).unwrap_or_default(),
                k.problem_defaults.clone(),
                k.about.into(),
            ]);
        }
        Some(t)
    }
}
