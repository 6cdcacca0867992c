//! [`UserGpu`] on the real GPU: modules from NVRTC's PTX or the user's cubin/fatbin, byte buffers, raw
//! argument lists through `cuLaunchKernel`, CUDA-event timing and the counters, all on the backend's
//! one stream. Kept apart from the built-in kernels' path, which it does not touch.

use std::ffi::c_void;

use cudarc::driver::sys::{CUfunction_attribute as FnAttr, CUresult};
use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

use super::{CudaBackend, cu, describe};
use crate::error::{Error, Result};
use crate::gpu::{Compare, Expect, KernelAttrs, Launch, Tally, UserArg, UserGpu};
use crate::kernels::Module;
use crate::profile::Unavailable;
use crate::userkernel::compile::Code;

/// The current user kernel and its buffers.
#[derive(Default)]
pub(super) struct UserState {
    func: Option<(String, CudaFunction)>,
    module: Option<std::sync::Arc<cudarc::driver::CudaModule>>,
    buffers: Vec<CudaSlice<u8>>,
    /// The expected outputs kept on the device ([`UserGpu::user_expect`]).
    expected: Vec<CudaSlice<u8>>,
    /// Buffers' initial contents kept on the device, by buffer ([`UserGpu::user_snapshot`]).
    snapshots: Vec<Option<CudaSlice<u8>>>,
}

/// How a buffer is filled with a repeating unit: by `cuMemsetD8/D16/D32` where the unit repeats every 1, 2
/// or 4 bytes (the width and the word), else `None`.
fn memset_word(unit: &[u8]) -> Option<(usize, u32)> {
    [1usize, 2, 4].into_iter().find_map(|w| {
        (!unit.is_empty() && unit.len().is_multiple_of(w) && unit.chunks(w).all(|c| c == &unit[..w])).then(|| {
            let mut word = [0u8; 4];
            word[..w].copy_from_slice(&unit[..w]);
            (w, u32::from_le_bytes(word))
        })
    })
}

/// Errors after which the context cannot be used again (CUDA's "sticky" errors).
fn is_fault(e: &DriverError) -> bool {
    matches!(
        e.0,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_LAUNCH_TIMEOUT
    )
}

/// A launch's or a wait's error: a fault, a refusal of this configuration, or any other CUDA error.
fn launch_error(entry: &str, e: DriverError) -> Error {
    if is_fault(&e) {
        Error::KernelFault(format!("{entry}: {}", describe(&e)))
    } else if matches!(e.0, CUresult::CUDA_ERROR_INVALID_VALUE | CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) {
        Error::LaunchRejected(format!("launch rejected by the driver: {}", describe(&e)))
    } else {
        cu(&format!("cuLaunchKernel({entry})"))(e)
    }
}

impl CudaBackend {
    fn user_func(&self) -> Result<&(String, CudaFunction)> {
        self.user.func.as_ref().ok_or_else(|| Error::internal("no user kernel loaded"))
    }

    /// Launches the current user kernel once on the stream, without waiting.
    fn user_launch_async(&self, launch: &Launch, args: &[UserArg<'_>]) -> Result<()> {
        let (entry, func) = self.user_func()?;
        // The values the parameters point at: each buffer's device address, each scalar's bytes.
        let mut ptrs: Vec<u64> = Vec::with_capacity(args.len());
        let mut guards = Vec::new();
        for a in args {
            if let UserArg::Buffer(i) = a {
                let s = self.user.buffers.get(*i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?;
                let (p, g) = s.device_ptr(&self.stream);
                ptrs.push(p);
                guards.push(g);
            }
        }
        let mut next = ptrs.iter();
        let mut params: Vec<*mut c_void> = Vec::with_capacity(args.len());
        for a in args {
            params.push(match a {
                UserArg::Buffer(_) => next.next().expect("one pointer per buffer") as *const u64 as *mut c_void,
                UserArg::Bytes(b) => b.as_ptr() as *mut c_void,
            });
        }
        // SAFETY: one parameter per argument of the entry, checked against its PTX signature (or, for
        // cubins, the file's declaration); buffer pointers are live allocations of the declared sizes,
        // and `ptrs`, `guards` and the scalars' bytes outlive the call, which copies them.
        let r = unsafe {
            cudarc::driver::result::launch_kernel(
                func.cu_function(),
                (launch.grid.x, launch.grid.y, launch.grid.z),
                (launch.block.x, launch.block.y, launch.block.z),
                launch.dynamic_smem,
                self.stream.cu_stream(),
                &mut params,
            )
        };
        drop(guards);
        r.map_err(|e| launch_error(entry, e))
    }

    /// Waits for the stream, a fault named as one.
    fn user_wait(&self) -> Result<()> {
        let entry = self.user.func.as_ref().map_or("user kernel", |(e, _)| e.as_str());
        self.stream.synchronize().map_err(|e| launch_error(entry, e))
    }
}

impl UserGpu for CudaBackend {
    fn user_load(&mut self, key: &str, code: &Code, entry: &str, dynamic_smem: u32) -> Result<KernelAttrs> {
        let module = match self.modules.get(key) {
            Some(m) => m.clone(),
            None => {
                let image = match code {
                    Code::Ptx(text) => Ptx::from_src(text.clone()),
                    Code::Binary(bytes) => Ptx::from_binary(bytes.clone()),
                };
                let m = self.ctx.load_module(image).map_err(|e| match e.0 {
                    CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION => Error::Driver(format!(
                        "the driver cannot load this PTX ({}): it was made by a newer CUDA than the driver's",
                        describe(&e)
                    )),
                    CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU | CUresult::CUDA_ERROR_INVALID_IMAGE => {
                        Error::usage(format!("the module has no code for this GPU: {}", describe(&e)))
                    }
                    _ => cu("cuModuleLoadData")(e),
                })?;
                self.modules.insert(key.to_string(), m.clone());
                m
            }
        };
        let func = module.load_function(entry).map_err(cu(&format!("cuModuleGetFunction({entry})")))?;
        let attrs = super::kernel_attrs(&func)?;
        if dynamic_smem > 48 * 1024 {
            func.set_attribute(FnAttr::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic_smem as i32).map_err(
                |e| Error::LaunchRejected(format!("{dynamic_smem} bytes of dynamic shared memory: {}", describe(&e))),
            )?;
        }
        self.user.func = Some((entry.to_string(), func));
        self.user.module = Some(module);
        Ok(attrs)
    }

    fn user_constant(&mut self, name: &str, data: &[u8]) -> Result<()> {
        let module = self.user.module.clone().ok_or_else(|| Error::internal("no user module loaded"))?;
        let mut symbol = module.get_global(name, &self.stream).map_err(|e| match e.0 {
            CUresult::CUDA_ERROR_NOT_FOUND => {
                Error::usage(format!("constant '{name}': the compiled module has no such variable ({})", describe(&e)))
            }
            _ => cu(&format!("cuModuleGetGlobal({name})"))(e),
        })?;
        if data.len() > symbol.len() {
            return Err(Error::usage(format!(
                "constant '{name}': {} bytes given, the module's variable holds {}",
                data.len(),
                symbol.len()
            )));
        }
        let mut view = symbol.slice_mut(0..data.len());
        self.stream.memcpy_htod(data, &mut view).map_err(cu(&format!("cuMemcpyHtoD({name})")))?;
        self.stream.synchronize().map_err(cu(&format!("cuMemcpyHtoD({name})")))
    }

    fn user_occupancy(&mut self, block_threads: u32, dynamic_smem: u32) -> Result<u32> {
        self.user_func()?
            .1
            .occupancy_max_active_blocks_per_multiprocessor(block_threads, dynamic_smem as usize, None)
            .map_err(cu("cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    }

    fn user_buffers(&mut self, bytes: &[u64]) -> Result<()> {
        self.user.buffers.clear();
        self.user.snapshots.clear();
        for &n in bytes {
            let n = usize::try_from(n.max(1)).map_err(|_| Error::usage(format!("a buffer of {n} bytes")))?;
            let s = self.stream.alloc_zeros::<u8>(n).map_err(|e| match e.0 {
                CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::Memory {
                    need: format!("a buffer of {n} bytes does not fit in the device's free memory"),
                    fix: None,
                },
                _ => cu("cuMemAlloc")(e),
            })?;
            self.user.buffers.push(s);
        }
        Ok(())
    }

    fn user_write(&mut self, i: usize, data: &[u8]) -> Result<()> {
        let s = self.user.buffers.get_mut(i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?;
        if data.len() > s.len() {
            return Err(Error::internal(format!("{} bytes into a buffer of {}", data.len(), s.len())));
        }
        super::write_staged(&self.ctx, &self.stream, data, s)
    }

    fn user_fill(&mut self, i: usize, unit: &[u8]) -> Result<()> {
        let s = self.user.buffers.get(i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?;
        let Some((width, word)) = memset_word(unit).filter(|(w, _)| s.len().is_multiple_of(*w)) else {
            let data = unit.repeat(s.len() / unit.len().max(1));
            return self.user_write(i, &data);
        };
        let (ptr, _sync) = s.device_ptr(&self.stream);
        let (n, stream) = (s.len() / width, self.stream.cu_stream());
        use cudarc::driver::sys::{cuMemsetD8Async, cuMemsetD16Async, cuMemsetD32Async};
        // SAFETY: ptr is a live allocation of n x width bytes on this stream's context.
        let r = unsafe {
            match width {
                1 => cuMemsetD8Async(ptr, word as u8, n, stream),
                2 => cuMemsetD16Async(ptr, word as u16, n, stream),
                _ => cuMemsetD32Async(ptr, word, n, stream),
            }
        };
        r.result().map_err(cu("cuMemsetAsync"))
    }

    fn user_snapshot(&mut self, i: usize) -> Result<bool> {
        let n = self.user.buffers.get(i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?.len();
        // SAFETY: written whole by the copy below before it is read.
        let mut copy = match unsafe { self.stream.alloc::<u8>(n) } {
            Ok(s) => s,
            Err(e) if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY => return Ok(false),
            Err(e) => return Err(cu("cuMemAlloc")(e)),
        };
        self.stream.memcpy_dtod(&self.user.buffers[i], &mut copy).map_err(cu("cuMemcpyDtoD"))?;
        if self.user.snapshots.len() <= i {
            self.user.snapshots.resize_with(i + 1, || None);
        }
        self.user.snapshots[i] = Some(copy);
        Ok(true)
    }

    fn user_restore(&mut self, i: usize) -> Result<bool> {
        let Some(Some(copy)) = self.user.snapshots.get(i) else { return Ok(false) };
        let dst = self.user.buffers.get_mut(i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?;
        self.stream.memcpy_dtod(copy, dst).map_err(cu("cuMemcpyDtoD"))?;
        Ok(true)
    }

    fn user_expect(&mut self, from: &[Expect<'_>]) -> Result<bool> {
        self.user.expected.clear();
        let mut kept = Vec::with_capacity(from.len());
        for f in from {
            let n = match f {
                Expect::Buffer(i) => {
                    self.user.buffers.get(*i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?.len()
                }
                Expect::Bytes(b) => b.len(),
            };
            // SAFETY: every byte is written below before the slot is read.
            let mut slot = match unsafe { self.stream.alloc::<u8>(n.max(1)) } {
                Ok(s) => s,
                // No room: the caller keeps them on the host instead.
                Err(e) if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY => return Ok(false),
                Err(e) => return Err(cu("cuMemAlloc")(e)),
            };
            match f {
                Expect::Buffer(i) => {
                    let src = &self.user.buffers[*i];
                    self.stream.memcpy_dtod(src, &mut slot).map_err(cu("cuMemcpyDtoD"))?;
                }
                Expect::Bytes(b) if !b.is_empty() => {
                    self.stream.memcpy_htod(*b, &mut slot).map_err(cu("cuMemcpyHtoD"))?;
                }
                Expect::Bytes(_) => {}
            }
            kept.push(slot);
        }
        self.stream.synchronize().map_err(cu("cuMemcpy (the expected outputs)"))?;
        self.user.expected = kept;
        Ok(true)
    }

    fn user_compare(&mut self, i: usize, slot: usize, n: u64, how: &Compare) -> Result<Tally> {
        let name = how.ty.to_string();
        let m = self.module(Module::Embedded("verify"))?;
        let func = |f: String| m.load_function(&f).map_err(cu(&format!("cuModuleGetFunction({f})")));
        let (compare, first) = (func(format!("compare_{name}"))?, func(format!("first_{name}"))?);
        let got = self.user.buffers.get(i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?;
        let want = self.user.expected.get(slot).ok_or_else(|| Error::internal(format!("no expected output {slot}")))?;
        let size = how.ty.size() as u64;
        if n * size > got.len() as u64 || n * size > want.len() as u64 {
            return Err(Error::internal(format!(
                "{n} elements compared in buffers of {} and {} bytes",
                got.len(),
                want.len()
            )));
        }
        let tally = self.stream.alloc_zeros::<u64>(5).map_err(cu("cuMemAlloc"))?;
        if n > 0 {
            let sms = self.info.sms.unwrap_or(1);
            let blocks = (n.div_ceil(256).min(u64::from(sms) * 16) as u32).max(1);
            let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
            let exact = i32::from(how.exact);
            let mut b = self.stream.launch_builder(&compare);
            b.arg(got).arg(want).arg(&n).arg(&how.atol).arg(&how.rtol).arg(&exact).arg(&tally);
            // SAFETY: compare_T(const T*, const T*, u64 n, double, double, int, u64*) reads n elements of
            // two live buffers of at least n (checked above) and adds into the 5 words of the tally.
            unsafe { b.launch(cfg) }.map_err(cu("cuLaunchKernel(compare)"))?;
            let mut b = self.stream.launch_builder(&first);
            b.arg(got).arg(want).arg(&tally);
            let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
            // SAFETY: first_T reads one element of each buffer, at an index the tally says is inside
            // them, and writes the tally's last two words.
            unsafe { b.launch(one) }.map_err(cu("cuLaunchKernel(first)"))?;
        }
        let w = self.stream.clone_dtoh(&tally).map_err(cu("cuMemcpyDtoH (the tally)"))?;
        self.stream.synchronize().map_err(cu("cuMemcpyDtoH (the tally)"))?;
        Ok(Tally {
            mismatches: w[0],
            max_abs_error: f64::from_bits(w[2]),
            first: (w[0] > 0).then(|| (!w[1], f64::from_bits(w[3]), f64::from_bits(w[4]))),
        })
    }

    fn user_read(&mut self, i: usize) -> Result<Vec<u8>> {
        let s = self.user.buffers.get(i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?;
        super::read_staged(&self.ctx, &self.stream, s)
    }

    fn user_launch(&mut self, launch: &Launch, args: &[UserArg<'_>]) -> Result<()> {
        self.user_launch_async(launch, args)?;
        self.user_wait()
    }

    fn user_time(
        &mut self,
        launch: &Launch,
        args: &[UserArg<'_>],
        warmup: u32,
        iters: u32,
        cold: bool,
    ) -> Result<Vec<f64>> {
        self.prepare_flush(cold)?;
        let flush = self.flush.as_ref().filter(|_| cold);
        let times = self.time_with(warmup, iters, "user kernel", flush, || self.user_launch_async(launch, args));
        match times {
            // A fault while timing surfaces at the wait, as a CUDA error of the synchronisation.
            Err(Error::Cuda { .. }) => self.user_wait().and(times),
            other => other,
        }
    }

    fn user_counters(&mut self, launch: &Launch, args: &[UserArg<'_>]) -> std::result::Result<Vec<f64>, Unavailable> {
        let mut counters =
            self.counters.take().ok_or_else(|| Unavailable::Failed("counters were not enabled".into()))?;
        let result = counters.measure(1, || {
            self.user_launch_async(launch, args).map_err(|e| e.to_string())?;
            self.stream.synchronize().map_err(|e| describe(&e))
        });
        self.counters = Some(counters);
        result.map(|mut v| v.pop().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::memset_word;
    use crate::userkernel::data::{Poison, TYPES};

    #[test]
    fn every_poison_is_filled_by_a_memset() {
        for (name, t) in TYPES {
            for which in [Poison::Reference, Poison::Checked] {
                let unit = t.poison(which);
                let (width, word) =
                    memset_word(&unit).unwrap_or_else(|| panic!("{name}'s poison repeats every 8 bytes"));
                // The memset's words laid end to end give the poison back.
                let filled: Vec<u8> = word.to_le_bytes()[..width].repeat(unit.len() / width);
                assert_eq!(filled, unit, "{name}");
            }
        }
        assert_eq!(memset_word(&[0xA5; 8]), Some((1, 0xA5)));
        assert_eq!(memset_word(&0x7E00u16.to_le_bytes()), Some((2, 0x7E00)));
        assert_eq!(memset_word(&0x7FF8_0000_7FF8_0000u64.to_le_bytes()), Some((4, 0x7FF8_0000)));
        // A unit that repeats only every 8 bytes is written from the host instead.
        assert_eq!(memset_word(&0x7FF8_0000_0000_0000u64.to_le_bytes()), None);
        assert_eq!(memset_word(&[]), None);
    }
}
