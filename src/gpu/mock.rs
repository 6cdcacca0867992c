//! A deterministic stand-in for a GPU (sm_90 limits, 132 SMs): it "runs" a kernel by walking the grid
//! through the kernel's own address function and writing the CPU reference at every element a thread
//! stores to, so grid arithmetic, poisoning, verification and every output path are exercised in CI.
//! Its times and counter values come from the models; every value of its runs is marked `mock`.
//! `WARPSCOPE_MOCK_FAULT=N` corrupts output element N, to test the FAILED path;
//! `WARPSCOPE_MOCK_SIGINT_AFTER=N` sends the process SIGINT while timing the Nth configuration, to test
//! Ctrl-C; `WARPSCOPE_MOCK_THROTTLE=N` reports the Nth timing power-capped; `WARPSCOPE_MOCK_DEVICES=N`
//! gives N identical devices; `WARPSCOPE_MOCK_MEMORY=BYTES` sets its memory; `WARPSCOPE_MOCK_SLEEP_MS=N`
//! makes every timing take N ms (only on device D with `WARPSCOPE_MOCK_SLEEP_DEVICE=D`);
//! `WARPSCOPE_MOCK_HANG_AT=N` makes the Nth timing hang (to test `--timeout`).

use super::{Backend, CompareOn, DeviceInfo, KernelAttrs, Launch, Reference, VerifyTimes};
use crate::error::{Error, Result};
use crate::kernels::{AccessKind, Kernel, Role, Thread};
use crate::model::{arch, memory, occupancy};
use crate::profile::Unavailable;
use crate::record::{Source, Verification};
use crate::spec::Dim3;

/// Bandwidth the mock pretends to have, GB/s.
const MOCK_GBS: f64 = 3000.0;
/// Launch overhead the mock adds, ms.
const MOCK_LAUNCH_MS: f64 = 0.003;
/// Above this many threads the mock copies the reference instead of walking every thread.
const EMULATE_THREADS: u64 = 1 << 24;

/// The mock device.
pub struct MockBackend {
    info: DeviceInfo,
    arch: &'static arch::Arch,
    attrs: Option<KernelAttrs>,
    reference: Reference,
    /// The "device" outputs, one per output buffer.
    outputs: Vec<Vec<f32>>,
    output_index: Vec<Option<usize>>,
    counters: Vec<String>,
    /// Configurations timed so far (`WARPSCOPE_MOCK_SIGINT_AFTER=N` sends SIGINT during the Nth).
    timed: u32,
    /// What the last timing "saw".
    conditions: Option<crate::record::Conditions>,
    /// How its values are marked: `mock`, except in unit tests of what a real GPU's run looks like.
    source: Source,
    /// Counter measurements still to fail (unit tests of a window whose ranges come back short).
    failing_measurements: u32,
}

/// Mock devices: 1, or `WARPSCOPE_MOCK_DEVICES` (to test multi-GPU sweeps).
pub fn device_count() -> u32 {
    std::env::var("WARPSCOPE_MOCK_DEVICES").ok().and_then(|v| v.parse().ok()).filter(|&n| n >= 1).unwrap_or(1)
}

impl MockBackend {
    /// The mock device `ordinal` (only 0 exists).
    pub fn new(ordinal: u32) -> Result<Self> {
        let n = device_count();
        if ordinal >= n {
            return Err(Error::usage(format!("no CUDA device {ordinal}: the mock backend has {n} (0..{})", n - 1)));
        }
        let a = arch::arch((9, 0)).expect("sm_90 is in the database");
        let info = DeviceInfo {
            ordinal,
            sms: Some(132),
            sm_clock_mhz: Some(1980),
            mem_clock_mhz: Some(2619),
            mem_bus_width_bits: Some(5120),
            memory_bytes: Some(
                std::env::var("WARPSCOPE_MOCK_MEMORY").ok().and_then(|v| v.parse().ok()).unwrap_or(80 << 30),
            ),
            l2_bytes: Some(50 << 20),
            peak_bandwidth_gbs: Some(3352.3),
            driver: Some("mock".into()),
            ..DeviceInfo::offline("warpscope mock GPU (sm_90 limits)".into(), "9.0".into(), super::Origin::Mock, a)
        };
        Ok(MockBackend {
            info,
            arch: a,
            attrs: None,
            reference: Reference::default(),
            outputs: Vec::new(),
            output_index: Vec::new(),
            counters: Vec::new(),
            timed: 0,
            conditions: None,
            source: Source::Mock,
            failing_measurements: 0,
        })
    }

    /// The same fake device posing as a real one (values marked `measured`): for unit tests of how a
    /// GPU run's measured and estimated values sit side by side. Never reachable from the CLI.
    #[cfg(test)]
    pub(crate) fn posing_as_real(mut self) -> Self {
        self.source = Source::Measured;
        self
    }

    /// The next `n` counter measurements fail as CUPTI's did when ranges went missing (unit tests).
    #[cfg(test)]
    pub(crate) fn failing_measurements(mut self, n: u32) -> Self {
        self.failing_measurements = n;
        self
    }

    fn attrs(&self) -> Result<&KernelAttrs> {
        self.attrs.as_ref().ok_or_else(|| Error::internal("no kernel loaded"))
    }

    /// A made-up but deterministic time: modelled bytes over the mock bandwidth, stretched when few
    /// warps are resident, plus launch overhead.
    fn model_ms(&self, kernel: &dyn Kernel, launch: &Launch) -> Result<f64> {
        let stats = memory::analyze(kernel, launch.grid, launch.block, self.arch.global_txn_bytes);
        let bytes = stats.loads.transferred_bytes(stats.txn_bytes) + stats.stores.transferred_bytes(stats.txn_bytes);
        let attrs = self.attrs()?;
        let occ = occupancy::theoretical(
            self.arch,
            &occupancy::Request {
                block_size: launch.block.volume() as u32,
                regs_per_thread: attrs.registers,
                static_smem: attrs.static_smem,
                dynamic_smem: launch.dynamic_smem,
            },
        );
        let latency_hiding = (occ.occupancy_pct / 50.0).clamp(0.25, 1.0);
        Ok(bytes / (MOCK_GBS * 1e9) * 1e3 / latency_hiding + MOCK_LAUNCH_MS)
    }
    /// The counters of one launch: what the models say, in the counters' own units (every value is
    /// marked `mock` anyway).
    fn counter_values(&mut self, kernel: &dyn Kernel, launch: &Launch) -> std::result::Result<Vec<f64>, Unavailable> {
        let fail = |e: Error| Unavailable::Failed(e.to_string());
        let active = self.max_active_blocks(launch.block.volume() as u32, launch.dynamic_smem).map_err(fail)?;
        let card = crate::model::arch::find_card("H100").expect("the database has the H100");
        let mut target = crate::model::time::Target::from_card(card, self.arch);
        target.name = self.info.name.clone();
        target.figures.copy_gbs = MOCK_GBS;
        let ev = crate::model::evaluate(&target, kernel, launch, active, None);
        let secs = self.model_ms(kernel, launch).map_err(fail)? * 1e-3;
        let (ld, st, txn) = (&ev.mem.loads, &ev.mem.stores, ev.mem.txn_bytes);
        Ok(self
            .counters
            .iter()
            .map(|c| match c.as_str() {
                "gpu__time_duration.sum" => secs * 1e9,
                "sm__warps_active.avg.pct_of_peak_sustained_active" => 100.0 * ev.achieved,
                "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second" => ld.transferred_bytes(txn) / secs,
                "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second" => st.transferred_bytes(txn) / secs,
                "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct" => {
                    ld.efficiency_pct(txn).unwrap_or(0.0)
                }
                "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct" => {
                    st.efficiency_pct(txn).unwrap_or(0.0)
                }
                "smsp__sass_data_bytes_mem_global_op_ld.sum" => ld.requested_bytes,
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" => ld.transactions,
                "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum" => st.transactions,
                "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio" => {
                    ld.per_request().unwrap_or(0.0)
                }
                _ => 0.0,
            })
            .collect())
    }
}

impl Backend for MockBackend {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn source(&self) -> Source {
        self.source
    }

    fn load(&mut self, kernel: &dyn Kernel) -> Result<KernelAttrs> {
        let attrs = KernelAttrs { registers: 16, static_smem: 0, local_bytes: 0, max_threads_per_block: 1024 };
        let attrs = crate::model::resources::lookup(kernel.entry(), "sm_90").map(|r| r.attrs(1024)).unwrap_or(attrs);
        self.attrs = Some(attrs.clone());
        Ok(attrs)
    }

    fn max_active_blocks(&mut self, block_threads: u32, dynamic_smem: u32) -> Result<u32> {
        let a = self.attrs()?;
        let req = occupancy::Request {
            block_size: block_threads,
            regs_per_thread: a.registers,
            static_smem: a.static_smem,
            dynamic_smem,
        };
        Ok(occupancy::theoretical(self.arch, &req).active_blocks_per_sm)
    }

    fn upload(&mut self, kernel: &dyn Kernel, _seed: u64) -> Result<()> {
        let bufs = kernel.buffers();
        let mut next = 0;
        self.output_index = bufs
            .iter()
            .map(|b| {
                (b.role == Role::Output).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        self.outputs = bufs.iter().filter(|b| b.role == Role::Output).map(|b| vec![0f32; b.len]).collect();
        Ok(())
    }

    fn check_inputs(&mut self, _kernel: &dyn Kernel, _inputs: &[Vec<f32>], reference: &Reference) -> Result<CompareOn> {
        // The mock's "device memory" is the host's: it keeps a handle on the reference, and compares
        // the way the GPU does (verify::tally, the twin of kernels/verify.cu).
        self.reference = reference.clone();
        Ok(CompareOn::Device)
    }

    fn launch_verified(&mut self, kernel: &dyn Kernel, launch: &Launch) -> Result<(Verification, VerifyTimes)> {
        let start = std::time::Instant::now();
        let out = &mut self.outputs;
        for o in out.iter_mut() {
            o.fill(f32::NAN);
        }
        let threads = launch.grid.volume() * launch.block.volume();
        if threads > EMULATE_THREADS {
            for (o, r) in out.iter_mut().zip(self.reference.iter()) {
                o.copy_from_slice(r);
            }
        } else {
            let mut acc = Vec::new();
            let (g, b) = (launch.grid, launch.block);
            for bz in 0..g.z {
                for by in 0..g.y {
                    for bx in 0..g.x {
                        for t in 0..b.volume() {
                            let thread = Dim3::new(
                                (t % b.x as u64) as u32,
                                ((t / b.x as u64) % b.y as u64) as u32,
                                (t / (b.x as u64 * b.y as u64)) as u32,
                            );
                            kernel.accesses(&Thread { block: Dim3::new(bx, by, bz), thread, dim: b }, &mut acc);
                            for a in acc.drain(..) {
                                if a.kind == AccessKind::Store
                                    && let Some(Some(o)) = self.output_index.get(a.buffer as usize)
                                {
                                    // A vector store writes bytes / 4 consecutive floats.
                                    let i = a.index as usize;
                                    let span = i..i + (a.bytes as usize / 4).max(1);
                                    out[*o][span.clone()].copy_from_slice(&self.reference[*o][span]);
                                }
                            }
                        }
                    }
                }
            }
        }
        if let Some(n) = std::env::var("WARPSCOPE_MOCK_FAULT").ok().and_then(|v| v.parse::<usize>().ok())
            && let Some(x) = out.first_mut().and_then(|o| o.get_mut(n))
        {
            *x += 1.0;
        }
        let launched = std::time::Instant::now();
        let tol = kernel.tolerance();
        let tallies: Vec<_> =
            out.iter().zip(self.reference.iter()).map(|(o, r)| crate::verify::tally(o, r, tol)).collect();
        let lens: Vec<usize> = out.iter().map(Vec::len).collect();
        let times = VerifyTimes {
            launch: (launched - start).as_secs_f64(),
            compare: launched.elapsed().as_secs_f64(),
            copy_back: 0.0,
        };
        Ok((crate::verify::from_tallies(kernel, &tallies, &lens), times))
    }

    fn outputs(&mut self) -> Result<Vec<Vec<f32>>> {
        Ok(self.outputs.clone())
    }

    fn time(&mut self, kernel: &dyn Kernel, launch: &Launch, _warmup: u32, iters: u32, cold: bool) -> Result<Vec<f64>> {
        self.timed += 1;
        if std::env::var("WARPSCOPE_MOCK_SIGINT_AFTER").ok().and_then(|v| v.parse::<u32>().ok()) == Some(self.timed) {
            // A real SIGINT to this process, as Ctrl-C sends; wait for the handler to flag it so that
            // the test is deterministic.
            unsafe { libc::raise(libc::SIGINT) };
            let t0 = std::time::Instant::now();
            while !crate::signals::stop_requested() && t0.elapsed().as_secs() < 5 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        // Conditions as NVML would report them; `WARPSCOPE_MOCK_THROTTLE=N` power-caps the Nth timing.
        let capped =
            std::env::var("WARPSCOPE_MOCK_THROTTLE").ok().and_then(|v| v.parse::<u32>().ok()) == Some(self.timed);
        self.conditions = Some(crate::record::Conditions {
            samples: 3,
            sm_clock_mhz: Some(if capped { [1410, 1980] } else { [1980, 1980] }),
            mem_clock_mhz: Some(2619),
            temperature_c: Some(41),
            power_w: Some(if capped { 700.0 } else { 310.0 }),
            throttle: if capped { vec!["sw_power_cap".into()] } else { Vec::new() },
        });
        // `WARPSCOPE_MOCK_SLEEP_MS=N`: each timing takes N ms of wall time (a slow kernel);
        // `WARPSCOPE_MOCK_HANG_AT=N`: the Nth timing never returns (a hung kernel).
        let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
        // `WARPSCOPE_MOCK_SLEEP_DEVICE=D`: only device D is that slow.
        let slow = env("WARPSCOPE_MOCK_SLEEP_DEVICE").is_none_or(|d| d == u64::from(self.info.ordinal));
        if let Some(ms) = env("WARPSCOPE_MOCK_SLEEP_MS").filter(|_| slow) {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        if env("WARPSCOPE_MOCK_HANG_AT") == Some(u64::from(self.timed)) {
            loop {
                std::thread::park();
            }
        }
        // A cold L2 costs the mock a fixed 5 %.
        let ms = self.model_ms(kernel, launch)? * if cold { 1.05 } else { 1.0 };
        Ok((0..iters).map(|i| ms * (1.0 + 0.01 * (i % 3) as f64)).collect())
    }

    fn last_conditions(&self) -> Option<crate::record::Conditions> {
        self.conditions.clone()
    }

    fn free_memory(&self) -> Option<u64> {
        self.info.memory_bytes
    }

    fn apply(&mut self, kernel: &dyn Kernel, _launch: &Launch, inputs: &[&[f32]]) -> Result<Vec<Vec<f32>>> {
        // The mock's "GPU" is the kernel's CPU twin.
        let owned: Vec<Vec<f32>> = inputs.iter().map(|i| i.to_vec()).collect();
        Ok(kernel.reference(&owned))
    }

    fn enable_counters(&mut self, counters: &[String], _window: usize) -> std::result::Result<usize, Unavailable> {
        if std::env::var("WARPSCOPE_MOCK_CUPTI").is_ok_and(|v| v == "missing") {
            return Err(Unavailable::NotFound("mock backend with WARPSCOPE_MOCK_CUPTI=missing".into()));
        }
        self.counters = counters.to_vec();
        Ok(1)
    }

    fn measure_counters(
        &mut self,
        kernel: &dyn Kernel,
        launches: &[Launch],
    ) -> std::result::Result<Vec<Vec<f64>>, Unavailable> {
        if self.failing_measurements > 0 {
            self.failing_measurements -= 1;
            return Err(Unavailable::Failed(format!("3 profiled range(s) for {} kernel launch(es)", launches.len())));
        }
        launches.iter().map(|launch| self.counter_values(kernel, launch)).collect()
    }

    fn calibrate(&mut self) -> Result<crate::model::calibration::Measurements> {
        // Made-up, self-consistent figures: the mock's bandwidth, 600 ns of DRAM latency, 10 blocks per
        // us per SM, 128 bytes per clock of L1 and shared memory, L2 at three times DRAM.
        let (sms, clock) = (self.info.sms.unwrap_or(0) as f64, 1980e6);
        Ok(crate::model::calibration::Measurements {
            sms: self.info.sms.unwrap_or(0),
            clock_mhz: 1980,
            launch_ms: MOCK_LAUNCH_MS,
            empty_blocks: 132_000,
            empty_ms: MOCK_LAUNCH_MS + 0.1,
            // 100 rounds more in 25 us more: 250 ns a round.
            turnover: crate::model::calibration::Chase {
                steps: 50,
                ms: MOCK_LAUNCH_MS + 0.0125,
                more_steps: 150,
                more_ms: MOCK_LAUNCH_MS + 0.0375,
            },
            chase_steps: 2048,
            chase_ms: 2048.0 * 600e-6,
            // 20 ns an L1 hit, 120 ns an L2 hit.
            l1_chase: crate::model::calibration::Chase {
                steps: 4096,
                ms: 0.1,
                more_steps: 8192,
                more_ms: 0.1 + 4096.0 * 20e-6,
            },
            l2_chase: crate::model::calibration::Chase {
                steps: 8192,
                ms: 1.0,
                more_steps: 16384,
                more_ms: 1.0 + 8192.0 * 120e-6,
            },
            // Each read pays the launch; the rate between the half and the whole is the mock's.
            dram_read_bytes: 1e9,
            dram_read_ms: MOCK_LAUNCH_MS + 1e9 / (MOCK_GBS * 1e9) * 1e3,
            dram_read_half_ms: MOCK_LAUNCH_MS + 0.125e9 / (MOCK_GBS * 1e9) * 1e3,
            dram_read_short_bytes: 0.125e9,
            // Little's law at the 600 ns latency, up to the mock's bandwidth.
            inflight: [1.0f64, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
                .iter()
                .map(|w| {
                    let gbs = (w * 512.0 * sms / 600e-9 / 1e9).min(MOCK_GBS);
                    crate::model::calibration::InflightRun {
                        bytes_per_sm: w * 512.0,
                        bytes: 1e8,
                        ms: MOCK_LAUNCH_MS + 1e8 / (gbs * 1e9) * 1e3,
                        more_bytes: 2e8,
                        more_ms: MOCK_LAUNCH_MS + 2e8 / (gbs * 1e9) * 1e3,
                    }
                })
                .collect(),
            // The mock's DRAM has no pages: runs of any length move at the same rate (none measured).
            runs: Vec::new(),
            // ... nor rows: a block's loads take as long however many rows they spread over.
            rows: Vec::new(),
            l2_bytes: 1e9,
            l2_ms: 1e9 / (3.0 * MOCK_GBS * 1e9) * 1e3,
            l1_bytes: 128.0 * sms * clock * 1e-4,
            l1_ms: 0.1,
            smem_bytes: 128.0 * sms * clock * 1e-4,
            smem_ms: 0.1,
            partial_stores: 3.2e7,
            partial_ms: 0.5,
            // A sector per ns in one slice, a slice per 4 lines beyond 4.
            atomics: [1.0f64, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 512.0, 2048.0]
                .iter()
                .map(|&lines| crate::model::calibration::AtomicsPass {
                    lines,
                    offset_bytes: 0.0,
                    sectors: 1e6,
                    ms: MOCK_LAUNCH_MS + 1e6 / (1e9 * (lines / 4.0).max(1.0)) * 1e3,
                })
                .collect(),
            copy_bytes: 2.0 * (256u64 << 20) as f64,
            copy_ms: 2.0 * (256u64 << 20) as f64 / (MOCK_GBS * 1e9) * 1e3,
            wall_ms: 1.0,
        })
    }

    fn memcpy(&mut self, _warmup: u32, iters: u32) -> Result<(u64, Vec<f64>)> {
        let bytes = (4 * self.info.l2_bytes.unwrap_or(0)).max(256 << 20);
        let ms = 2.0 * bytes as f64 / (MOCK_GBS * 1e9) * 1e3;
        Ok((bytes, (0..iters).map(|i| ms * (1.0 + 0.002 * (i % 3) as f64)).collect()))
    }
}
