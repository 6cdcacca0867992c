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

/// Compiled register/shared-memory use per kernel and arch, from `ptxas -v` (kernels-ptx/resources.json).
pub const RESOURCES_JSON: &str = include_str!("../kernels-ptx/resources.json");

#[cfg(test)]
mod tests {
    use super::*;

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
