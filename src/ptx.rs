//! The PTX embedded at build time (see build.rs): one module per kernels/*.cu.

mod index {
    include!(concat!(env!("OUT_DIR"), "/ptx_index.rs"));
}

/// Where the embedded PTX came from (nvcc at build time, or the committed kernels-ptx/).
pub const ORIGIN: &str = index::ORIGIN;

/// The PTX text of a module (kernels/NAME.cu).
pub fn module(name: &str) -> Option<&'static str> {
    index::MODULES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// Names of the embedded modules.
pub fn modules() -> impl Iterator<Item = &'static str> {
    index::MODULES.iter().map(|(n, _)| *n)
}

/// The highest PTX ISA version (`.version X.Y`) among the embedded modules: what the driver must accept.
pub fn isa_version() -> Option<(u32, u32)> {
    index::MODULES.iter().filter_map(|(_, text)| parse_version(text)).max()
}

fn parse_version(text: &str) -> Option<(u32, u32)> {
    let line = text.lines().find(|l| l.trim_start().starts_with(".version"))?;
    let (maj, min) = line.split_whitespace().nth(1)?.split_once('.')?;
    Some((maj.parse().ok()?, min.parse().ok()?))
}

/// The entry points of module `name`, in file order.
pub fn entries(name: &str) -> Vec<&'static str> {
    let Some(text) = module(name) else { return Vec::new() };
    text.lines()
        .filter_map(|l| l.split_once(".entry ").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split(['(', ' ']).next())
        .collect()
}

/// Instructions in the body of `entry` of module `name` (directives, labels and braces left out): the
/// per-thread instruction count of SKE's computation term for straight-line kernels.
pub fn instruction_count(name: &str, entry: &str) -> Option<u32> {
    let text = module(name)?;
    let start = text.find(&format!(".entry {entry}("))?;
    let body = &text[start..];
    let open = body.find("\n{")?;
    let close = body[open..].find("\n}")? + open;
    let count = body[open + 2..close]
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with('.') && !l.starts_with("//") && !l.ends_with(':') && l.ends_with(';')
        })
        .count();
    Some(count as u32)
}

/// Whether a PTX line is an instruction the hardware executes: `mov` of an immediate folds into its
/// user in SASS, and directives, labels and braces are not instructions.
fn executes(line: &str) -> bool {
    let l = line.trim();
    if l.is_empty() || l.starts_with('.') || l.starts_with("//") || l.ends_with(':') || !l.ends_with(';') {
        return false;
    }
    let folds = l.starts_with("mov.") && l.rsplit(',').next().is_some_and(|src| !src.trim().starts_with('%'));
    !folds
}

/// Instructions per multiply-add in the loop of `entry` with the most multiply-adds (a loop: a label
/// and a later branch back to it, its body counted as SASS would run it); `None` without such a loop.
pub fn loop_insns_per_fma(name: &str, entry: &str) -> Option<f64> {
    let text = module(name)?;
    let start = text.find(&format!(".entry {entry}("))?;
    let body = &text[start..];
    let lines: Vec<&str> = body[..body.find("\n}")?].lines().map(str::trim).collect();
    let mut best: Option<(usize, usize)> = None; // (fmas, instructions)
    for (end, line) in lines.iter().enumerate() {
        let Some(target) =
            line.strip_suffix(';').and_then(|l| l.split("bra").nth(1)).map(|t| t.trim_start_matches(".uni").trim())
        else {
            continue;
        };
        let Some(head) = lines[..end].iter().position(|l| l.strip_suffix(':') == Some(target)) else { continue };
        let loop_body = &lines[head..=end];
        let insns = loop_body.iter().filter(|l| executes(l)).count();
        let fmas = loop_body.iter().filter(|l| l.starts_with("fma.") || l.starts_with("mad.")).count();
        if fmas > 0 && best.is_none_or(|(f, _)| fmas > f) {
            best = Some((fmas, insns));
        }
    }
    best.map(|(f, i)| i as f64 / f as f64)
}

/// Compiled register/shared-memory use per kernel and arch, from `ptxas -v` (kernels-ptx/resources.json).
pub const RESOURCES_JSON: &str = include_str!("../kernels-ptx/resources.json");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_bodies_are_priced_per_multiply_add() {
        // divergeWarp's loop: fma, add, setp, bra (the constants' movs fold into the FFMA).
        assert_eq!(loop_insns_per_fma("patterns", "divergeWarp"), Some(4.0));
        // The matmul loop is unrolled by nvcc: several multiply-adds per trip, a few instructions each.
        let m = loop_insns_per_fma("patterns", "matmulCoalesced").unwrap();
        assert!((3.0..8.0).contains(&m), "{m}");
        // No loop at all.
        assert_eq!(loop_insns_per_fma("sum_matrix", "sumMatrixOnGPU2D"), None);
    }

    #[test]
    fn every_kernel_module_is_embedded() {
        assert!(module("sum_matrix").unwrap().contains(".entry sumMatrixOnGPU2D"));
        assert!(module("nope").is_none());
        assert!(modules().count() >= 1);
    }

    #[test]
    fn instructions_are_counted_per_entry() {
        let n = instruction_count("sum_matrix", "sumMatrixOnGPU2D").unwrap();
        assert!((10..40).contains(&n), "{n}");
        assert!(instruction_count("sum_matrix", "nope").is_none());
        assert_eq!(entries("sum_matrix"), vec!["sumMatrixOnGPU2D"]);
        assert_eq!(entries("occupancy_probe").len(), 12);
    }

    #[test]
    fn the_committed_ptx_loads_on_a_cuda_13_0_driver() {
        // PTX ISA 9.0 is what CUDA 13.0 (R580, the GPU machine's driver) accepts; nvvm 13.5 would write 9.5.
        assert_eq!(isa_version(), Some((9, 0)));
        assert_eq!(parse_version("//\n.version 8.7\n.target sm_75"), Some((8, 7)));
        for m in modules() {
            assert!(module(m).unwrap().contains(".target sm_75"), "{m} must target compute_75");
        }
    }
}
