//! Probing the driver before cudarc touches it: cudarc panics when libcuda or a symbol is missing, so
//! warpscope opens libcuda.so.1 itself, checks every entry point it will use and the driver's CUDA
//! version against the embedded PTX, and turns each failure into one clear error.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::ptx;

/// Driver entry points the CUDA backend calls through cudarc (bindings for CUDA 13.0).
const SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuCtxGetCurrent",
    "cuCtxSynchronize",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuFuncGetAttribute",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuMemAlloc_v2",
    "cuMemAllocAsync",
    "cuMemFree_v2",
    "cuMemFreeAsync",
    "cuMemGetInfo_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemsetD32Async",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime_v2",
    "cuEventDestroy_v2",
    "cuStreamSynchronize",
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cuGetErrorName",
    "cuGetErrorString",
];

/// The driver's CUDA version, e.g. 13000 for 13.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DriverVersion(pub i32);

impl std::fmt::Display for DriverVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0 / 1000, (self.0 % 1000) / 10)
    }
}

/// The CUDA release that introduced a PTX ISA version, and the first Linux driver branch of that release.
pub fn cuda_for_ptx_isa(isa: (u32, u32)) -> Option<(i32, &'static str)> {
    match isa {
        (9, 0) => Some((13000, "R580 (580.65 or newer)")),
        (8, 8) => Some((12090, "R575 (575.51 or newer)")),
        (8, 7) => Some((12080, "R570 (570.26 or newer)")),
        (8, 5) => Some((12050, "R555 (555.42 or newer)")),
        _ => None,
    }
}

/// Opens libcuda.so.1, checks its entry points and version; every failure is an [`Error`], never a panic.
pub fn driver() -> Result<DriverVersion> {
    // SAFETY: loading the NVIDIA driver library runs its initialisers, which is what cudarc would do too.
    let lib = unsafe { libloading::Library::new("libcuda.so.1") }.map_err(|e| Error::NoDriver(chain(&e)))?;
    let missing: Vec<&str> =
        SYMBOLS.iter().copied().filter(|s| unsafe { lib.get::<*const ()>(s.as_bytes()) }.is_err()).collect();
    let version = unsafe {
        let get: libloading::Symbol<unsafe extern "C" fn(*mut i32) -> i32> = lib
            .get(b"cuDriverGetVersion")
            .map_err(|e| Error::Driver(format!("libcuda.so.1 has no cuDriverGetVersion: {e}")))?;
        let mut v = 0;
        let rc = get(&mut v);
        if rc != 0 {
            return Err(Error::Driver(format!("cuDriverGetVersion failed with CUresult {rc}")));
        }
        DriverVersion(v)
    };
    let isa = ptx::isa_version();
    if let Some((needed, branch)) = isa.and_then(cuda_for_ptx_isa)
        && version.0 < needed
    {
        let (maj, min) = isa.unwrap_or_default();
        return Err(Error::Driver(format!(
            "the NVIDIA driver supports CUDA {version}, but warpscope's kernels are PTX ISA {maj}.{min}, which needs CUDA {}.{}: install driver {branch}",
            needed / 1000,
            (needed % 1000) / 10
        )));
    }
    if !missing.is_empty() {
        return Err(Error::Driver(format!(
            "the NVIDIA driver (CUDA {version}) lacks {}: warpscope needs a CUDA 13.0 driver (R580) or newer",
            missing.join(", ")
        )));
    }
    // cudarc finds the same library under one of its candidate names; check it would not panic.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::NoDriver("cudarc cannot open libcuda under any of its names".into()));
    }
    Ok(version)
}

/// Where to look for an NVIDIA library (libcupti, libnvrtc), in order: `env_var` (a file, or a folder),
/// `subdirs` of each CUDA root (`$CUDA_PATH`, `$CUDA_HOME`, /usr/local/cuda, /usr/local/cuda-*, newest
/// first), the system library folder, pip wheels (`site-packages/nvidia/*/lib`, also under
/// `$VIRTUAL_ENV`), then the bare `names` for the loader's own search.
pub fn library_candidates(env_var: &str, names: &[&str], subdirs: &[&str]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(v) = std::env::var_os(env_var) {
        let p = PathBuf::from(v);
        if p.is_file() {
            return vec![p];
        }
        dirs.push(p);
    }
    let glob_sorted = |pattern: &str| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> =
            glob::glob(pattern).map(|ps| ps.filter_map(|p| p.ok()).collect()).unwrap_or_default();
        found.sort();
        found.reverse(); // newest CUDA first
        found
    };
    let mut roots: Vec<String> = ["CUDA_PATH", "CUDA_HOME"]
        .iter()
        .filter_map(std::env::var_os)
        .map(|r| r.to_string_lossy().into_owned())
        .collect();
    roots.extend(["/usr/local/cuda".to_string(), "/usr/local/cuda-*".to_string()]);
    for root in &roots {
        for sub in subdirs {
            dirs.extend(glob_sorted(&format!("{root}/{sub}")));
        }
    }
    let mut patterns = vec![
        "/usr/lib/x86_64-linux-gnu".to_string(),
        "/usr/lib/python3*/site-packages/nvidia/*/lib".to_string(),
        "/usr/local/lib/python3*/dist-packages/nvidia/*/lib".to_string(),
        "/usr/local/lib/python3*/site-packages/nvidia/*/lib".to_string(),
        "/opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib".to_string(),
    ];
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        patterns.push(format!("{}/lib/python3*/site-packages/nvidia/*/lib", venv.to_string_lossy()));
    }
    for p in &patterns {
        dirs.extend(glob_sorted(p));
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for d in dirs {
        for name in names {
            let p = d.join(name);
            if p.is_file() && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out.extend(names.iter().map(PathBuf::from));
    out
}

/// The loader's message with its causes (dlerror's text), on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        parts.push(s.to_string());
        cur = s.source();
    }
    parts.join(": ").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_print_like_nvidia_smi() {
        assert_eq!(DriverVersion(13000).to_string(), "13.0");
        assert_eq!(DriverVersion(12040).to_string(), "12.4");
    }

    #[test]
    fn the_embedded_ptx_has_a_known_driver_floor() {
        let isa = ptx::isa_version().expect("embedded PTX carries a .version line");
        assert!(cuda_for_ptx_isa(isa).is_some(), "no driver floor recorded for PTX ISA {isa:?}");
    }
}
