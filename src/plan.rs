//! Expands block shapes into launch configurations and validates each against the device's real
//! limits and the compiled kernel's resources, before anything launches. An invalid configuration
//! carries its reason and becomes a row; it never stops the sweep.

use crate::gpu::{DeviceLimits, KernelAttrs, Launch};
use crate::kernels::Kernel;
use crate::spec::Dim3;

/// One configuration of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// What would be launched.
    pub launch: Launch,
    /// Why it cannot be, if it cannot.
    pub invalid: Option<String>,
}

/// Every block of `blocks`, with its grid and verdict.
pub fn plan(kernel: &dyn Kernel, blocks: &[Dim3], limits: &DeviceLimits, attrs: &KernelAttrs) -> Vec<Planned> {
    blocks
        .iter()
        .map(|&block| {
            let launch = Launch { grid: kernel.grid(block), block, dynamic_smem: kernel.dynamic_smem(block) };
            Planned { invalid: kernel.check_block(block).or_else(|| validate(limits, attrs, &launch).err()), launch }
        })
        .collect()
}

/// Checks a launch the way the driver would, in the order that names the most useful reason first.
pub fn validate(limits: &DeviceLimits, attrs: &KernelAttrs, launch: &Launch) -> Result<(), String> {
    let Launch { grid, block, dynamic_smem } = *launch;
    let threads = block.volume();
    let axes = ["x", "y", "z"];
    if let Some(i) = block.to_array().iter().position(|&v| v == 0) {
        return Err(format!("invalid configuration: block.{} = 0", axes[i]));
    }
    if threads > limits.max_threads_per_block as u64 {
        return Err(format!(
            "invalid configuration: {threads} threads per block > {} (device limit)",
            limits.max_threads_per_block
        ));
    }
    for (i, (&v, &max)) in block.to_array().iter().zip(&limits.max_block_dim).enumerate() {
        if v > max {
            return Err(format!("invalid configuration: block.{} = {v} > {max} (device limit)", axes[i]));
        }
    }
    if threads > attrs.max_threads_per_block as u64 {
        return Err(format!(
            "invalid configuration: {threads} threads per block > {} (kernel limit at {} registers per thread)",
            attrs.max_threads_per_block, attrs.registers
        ));
    }
    let regs = attrs.registers as u64 * threads;
    if regs > limits.regs_per_block as u64 {
        return Err(format!(
            "too many resources requested for launch: {} registers x {threads} threads = {regs} > {} per block",
            attrs.registers, limits.regs_per_block
        ));
    }
    let smem = attrs.static_smem as u64 + dynamic_smem as u64;
    if smem > limits.smem_per_block_optin as u64 {
        return Err(format!(
            "too many resources requested for launch: {smem} B shared memory per block > {} B (device limit)",
            limits.smem_per_block_optin
        ));
    }
    for (i, (&v, &max)) in grid.to_array().iter().zip(&limits.max_grid_dim).enumerate() {
        if v == 0 {
            return Err(format!("invalid configuration: grid.{} = 0", axes[i]));
        }
        if v > max {
            return Err(format!("invalid configuration: grid.{} = {v} > {max} (device limit)", axes[i]));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::SumMatrix;
    use crate::model::arch;

    fn limits() -> DeviceLimits {
        DeviceLimits::from_arch(arch::arch((9, 0)).unwrap())
    }

    fn attrs(regs: u32) -> KernelAttrs {
        KernelAttrs { registers: regs, static_smem: 0, local_bytes: 0, max_threads_per_block: 1024 }
    }

    fn check(block: Dim3, grid: Dim3) -> Result<(), String> {
        validate(&limits(), &attrs(12), &Launch { grid, block, dynamic_smem: 0 })
    }

    #[test]
    fn the_seeds_invalid_config() {
        let k = SumMatrix::new(1 << 14, 1 << 14).unwrap();
        let blocks = crate::spec::blocks_from(None, Some("64,128,256"), Some("2,4,8"), None).unwrap();
        let p = plan(&k, &blocks, &limits(), &attrs(12));
        let invalid: Vec<_> = p.iter().filter(|p| p.invalid.is_some()).collect();
        assert_eq!(invalid.len(), 1);
        assert_eq!(invalid[0].launch.block, Dim3::new(256, 8, 1));
        assert_eq!(
            invalid[0].invalid.as_deref(),
            Some("invalid configuration: 2048 threads per block > 1024 (device limit)")
        );
        assert_eq!(p[0].launch.grid, Dim3::new(256, 8192, 1));
    }

    #[test]
    fn each_limit_has_its_reason() {
        let g = Dim3::new(1, 1, 1);
        assert!(check(Dim3::new(0, 4, 1), g).unwrap_err().contains("block.x = 0"));
        assert!(check(Dim3::new(1, 1, 128), g).unwrap_err().contains("block.z = 128 > 64"));
        assert!(check(Dim3::new(32, 1, 1), Dim3::new(1, 70_000, 1)).unwrap_err().contains("grid.y = 70000 > 65535"));
        assert!(check(Dim3::new(32, 1, 1), Dim3::new(0, 1, 1)).unwrap_err().contains("grid.x = 0"));
        let l = Launch { grid: g, block: Dim3::new(1024, 1, 1), dynamic_smem: 0 };
        let kernel_cap = KernelAttrs { registers: 80, static_smem: 0, local_bytes: 0, max_threads_per_block: 768 };
        assert!(validate(&limits(), &kernel_cap, &l).unwrap_err().contains("> 768 (kernel limit at 80 registers"));
        assert!(validate(&limits(), &attrs(128), &l).unwrap_err().contains("128 registers x 1024 threads"));
        let smem = Launch { dynamic_smem: 300_000, ..l };
        assert!(validate(&limits(), &attrs(12), &smem).unwrap_err().contains("shared memory"));
        assert!(check(Dim3::new(32, 32, 1), Dim3::new(512, 512, 1)).is_ok());
    }
}
