//! [`UserGpu`] on the real GPU: modules from NVRTC's PTX or the user's cubin/fatbin, byte buffers, raw
//! argument lists through `cuLaunchKernel`, CUDA-event timing and the counters, all on the backend's
//! one stream. Kept apart from the built-in kernels' path, which it does not touch.

use std::ffi::c_void;

use cudarc::driver::sys::{CUfunction_attribute as FnAttr, CUresult};
use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, DriverError};
use cudarc::nvrtc::Ptx;

use super::{CudaBackend, cu, describe};
use crate::error::{Error, Result};
use crate::gpu::{KernelAttrs, Launch, UserArg, UserGpu};
use crate::profile::Unavailable;
use crate::userkernel::compile::Code;

/// The current user kernel and its buffers.
#[derive(Default)]
pub(super) struct UserState {
    func: Option<(String, CudaFunction)>,
    module: Option<std::sync::Arc<cudarc::driver::CudaModule>>,
    buffers: Vec<CudaSlice<u8>>,
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
        let mut view = s.slice_mut(0..data.len());
        self.stream.memcpy_htod(data, &mut view).map_err(cu("cuMemcpyHtoD"))?;
        self.stream.synchronize().map_err(cu("cuMemcpyHtoD"))
    }

    fn user_read(&mut self, i: usize) -> Result<Vec<u8>> {
        let s = self.user.buffers.get(i).ok_or_else(|| Error::internal(format!("no user buffer {i}")))?;
        let v = self.stream.clone_dtoh(s).map_err(cu("cuMemcpyDtoH"))?;
        self.stream.synchronize().map_err(cu("cuMemcpyDtoH"))?;
        Ok(v)
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
