//! Registers and shared memory per kernel and arch as `ptxas -v` reported them when the PTX was
//! regenerated (kernels-ptx/resources.json): what the offline model and the mock use in place of the
//! driver's function attributes.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::gpu::KernelAttrs;
use crate::ptx::RESOURCES_JSON;

/// One kernel compiled for one arch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct Resources {
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory, bytes.
    pub static_smem: u32,
    /// Stack frame (local memory) per thread, bytes.
    pub local_bytes: u32,
    /// Named barriers used.
    pub barriers: u32,
}

impl Resources {
    /// As the driver would report them, for a device allowing `max_threads` per block.
    pub fn attrs(&self, max_threads: u32) -> KernelAttrs {
        KernelAttrs {
            registers: self.registers,
            static_smem: self.static_smem,
            local_bytes: self.local_bytes,
            max_threads_per_block: max_threads,
        }
    }
}

type Table = BTreeMap<String, BTreeMap<String, Resources>>;

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| serde_json::from_str(RESOURCES_JSON).unwrap_or_default())
}

/// The resources of `entry` on `sm` (`sm_90`); `None` if ptxas was not run for that arch.
pub fn lookup(entry: &str, sm: &str) -> Option<Resources> {
    table().get(entry)?.get(sm).copied()
}

/// The resources of `entry` on the nearest recorded arch at or below `sm` (ptxas 13 starts at sm_75,
/// so older archs borrow sm_75's figures); the arch used is returned too.
pub fn nearest(entry: &str, cc: (u32, u32)) -> Option<(String, Resources)> {
    let want = cc.0 * 10 + cc.1;
    let per_arch = table().get(entry)?;
    let parse = |k: &str| k.trim_start_matches("sm_").parse::<u32>().ok();
    per_arch
        .iter()
        .filter_map(|(k, r)| parse(k).map(|v| (v, k, r)))
        .filter(|(v, _, _)| *v <= want)
        .max_by_key(|(v, _, _)| *v)
        .or_else(|| per_arch.iter().filter_map(|(k, r)| parse(k).map(|v| (v, k, r))).min_by_key(|(v, _, _)| *v))
        .map(|(_, k, r)| (k.clone(), *r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_table_parses_and_has_every_target() {
        assert!(!table().is_empty(), "kernels-ptx/resources.json did not parse");
        for sm in ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"] {
            let r = lookup("sumMatrixOnGPU2D", sm).unwrap_or_else(|| panic!("no {sm}"));
            assert!(r.registers > 0 && r.registers < 64, "{sm}: {r:?}");
        }
    }

    #[test]
    fn older_archs_borrow_the_oldest_record() {
        assert_eq!(nearest("sumMatrixOnGPU2D", (2, 0)).unwrap().0, "sm_75");
        assert_eq!(nearest("sumMatrixOnGPU2D", (9, 0)).unwrap().0, "sm_90");
        assert_eq!(nearest("sumMatrixOnGPU2D", (8, 7)).unwrap().0, "sm_87");
        assert!(nearest("nope", (9, 0)).is_none());
    }
}
