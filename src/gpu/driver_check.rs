//! `occupancy --against-driver`: warpscope's occupancy calculator against the driver's
//! (cuOccupancyMaxActiveBlocksPerMultiprocessor) on this GPU, over probe kernels of 24 to 255 registers
//! and 0 to 40 KiB of static shared memory, and many block and dynamic shared-memory sizes.

use serde::Serialize;

use super::{Backend, CudaBackend};
use crate::error::Result;
use crate::model::arch::{self, Arch};
use crate::model::occupancy::{self, DriverCase};

/// The probe kernels' module.
const MODULE: &str = "occupancy_probe";

/// Every case asked of the driver, with the device and the architecture it was checked against.
#[derive(Serialize)]
pub struct DriverCheck {
    /// The device's name.
    pub device: String,
    /// The driver's version, as the device reports it.
    pub driver: Option<String>,
    /// The database's architecture nearest the device's compute capability.
    #[serde(skip)]
    pub arch: &'static Arch,
    /// Probe kernels.
    pub kernels: usize,
    /// Block sizes asked for each.
    pub block_sizes: usize,
    /// Dynamic shared-memory sizes asked for each.
    pub dynamic_sizes: usize,
    /// Every case with the driver's answer.
    pub cases: Vec<DriverCase>,
}

impl DriverCheck {
    /// The cases where warpscope's calculator differs, with its blocks per SM.
    pub fn disagreements(&self) -> Vec<(&DriverCase, u32)> {
        occupancy::disagreements(self.arch, &self.cases)
    }

    /// warpscope's blocks per SM for `case`.
    pub fn ours(&self, case: &DriverCase) -> u32 {
        occupancy::blocks_for(self.arch, case)
    }

    /// The distinct register counts of the probe kernels.
    pub fn registers(&self) -> Vec<u32> {
        let mut regs: Vec<u32> = self.cases.iter().map(|c| c.regs_per_thread).collect();
        regs.sort();
        regs.dedup();
        regs
    }
}

/// Asks the driver of `gpu` about every case.
pub fn against_driver(gpu: &mut CudaBackend) -> Result<DriverCheck> {
    let info = gpu.info().clone();
    let mut sizes: Vec<u32> = (1..=32).map(|w| w * 32).collect();
    sizes.extend([1, 17, 33, 100, 129, 200, 257, 300, 500, 513, 700, 777, 1000, 1023]);
    let kib = 1024;
    let dynamic = [
        0,
        1,
        100,
        1000,
        2 * kib,
        4 * kib,
        8 * kib,
        12 * kib,
        16 * kib,
        24 * kib,
        32 * kib,
        48 * kib,
        64 * kib,
        100 * kib,
        160 * kib,
        200 * kib,
        226 * kib,
    ];
    let cases = gpu.driver_occupancy(MODULE, &sizes, &dynamic)?;
    Ok(DriverCheck {
        device: info.name.clone(),
        driver: info.driver.clone(),
        arch: arch::nearest(info.cc()),
        kernels: crate::ptx::entries(MODULE).len(),
        block_sizes: sizes.len(),
        dynamic_sizes: dynamic.len(),
        cases,
    })
}
