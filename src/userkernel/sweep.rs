//! Sweeping a kernel file: each configuration (block shape x compile-time parameters) loaded from its
//! built module, its buffers filled as the file declares, launched with its outputs poisoned, verified
//! against the expected outputs (a reference kernel's, `.npy` files', or the first configuration's),
//! timed with CUDA events and measured with counters, into the same records as a built-in kernel's. A
//! kernel that faults becomes a failed row naming compute-sanitizer, and the device is opened again.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::compile::{Built, CompileError};
use super::data::{HostData, Poison};
use super::expand::{ArgValue, Config, Expansion};
use super::expr::Value;
use super::file::{Expected, KernelFile, Role};
use super::{check, data};
use crate::error::{Error, Result};
use crate::gpu::{Backend, Compare, Expect, Launch, UserArg, UserGpu};
use crate::metrics::{self as m, GBPS, RATIO};
use crate::record::{Metric, Mismatch, Record, Report, Status, TimeStats, Verification};
use crate::sweep::Options;

/// What a configuration whose outputs are all unchecked (or absent) says instead of "verified".
const NOTHING_COMPARED: &str =
    "no output buffer is compared (none declared, or each has verify = false): nothing was verified";

/// Why the mock cannot give a row of a user's kernel.
pub const MOCK_REASON: &str = "not run: the mock backend does not run user kernels";

/// Buffers' initial contents on the host, by argument and length.
pub(super) type Inputs = HashMap<(usize, u64), Arc<HostData>>;

/// The configurations of a run left to run: each device takes the next when it is free.
#[derive(Debug, Default)]
pub struct Queue(std::sync::Mutex<std::collections::VecDeque<usize>>);

impl Queue {
    /// `todo`, in order.
    pub fn new(todo: &[usize]) -> Self {
        Queue(std::sync::Mutex::new(todo.iter().copied().collect()))
    }

    /// The next configuration, if any is left.
    fn next(&self) -> Option<usize> {
        self.0.lock().ok()?.pop_front()
    }

    /// Every configuration left, taken at once (no device gets them after this).
    fn take_rest(&self) -> Vec<usize> {
        self.0.lock().map(|mut q| q.drain(..).collect()).unwrap_or_default()
    }
}

/// A kernel file, expanded and built, to sweep on one device.
pub struct UserSweep<'a> {
    /// The file.
    pub file: &'a KernelFile,
    /// Its configurations.
    pub ex: &'a Expansion,
    /// One build result per module of `ex`.
    pub built: &'a [std::result::Result<Built, CompileError>],
    /// How to measure (warm-up, iterations, seed, counters).
    pub options: &'a Options,
    /// The configurations left to run (indices into `ex.configs`), shared with the run's other devices.
    pub queue: &'a Queue,
    /// The inputs generated on the host so far, shared with the run's other devices.
    pub host_inputs: &'a std::sync::Mutex<Inputs>,
    /// With `same_as_first`: the sweep's first configuration (the first the expansion does not rule
    /// out), whose outputs every other configuration must give.
    pub anchor: Option<usize>,
    /// Whether its outputs are made before this device's first configuration (it runs with other
    /// devices, or its first configuration is not the anchor: a slice, a resumed run).
    pub anchor_first: bool,
    /// The command line that runs this same sweep in a new process (`warpscope sweep --kernel-file ...`
    /// with every option that shapes it, `--format jsonl`): after a kernel faults, CUDA allows this
    /// process no more work, so the configurations left run there (`--configs`).
    pub rerun: Option<Vec<String>>,
    /// Whether to say, after each configuration, how long each of its steps took (`-v`).
    pub verbose: bool,
}

/// How long each step of one configuration took, in order (`-v`).
#[derive(Default)]
struct Steps {
    last: Option<std::time::Instant>,
    took: Vec<(&'static str, f64)>,
}

impl Steps {
    fn start() -> Steps {
        Steps { last: Some(std::time::Instant::now()), took: Vec::new() }
    }

    /// The step `name` ended now.
    fn mark(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        if let Some(last) = self.last.replace(now) {
            self.took.push((name, (now - last).as_secs_f64()));
        }
    }

    /// `load 0.001 s, poison 0.120 s, ...`, or `None` when nothing was timed.
    fn line(&self) -> Option<String> {
        (!self.took.is_empty())
            .then(|| self.took.iter().map(|(n, s)| format!("{n} {s:.3} s")).collect::<Vec<_>>().join(", "))
    }
}

/// Where the expected outputs are kept, in the order of the compared outputs.
enum Want {
    /// On the host: outputs are read back and compared on the CPU.
    Host(Vec<HostData>),
    /// On the device (slot k for the k-th compared output, its element type and length): outputs are
    /// compared there and only a tally comes back.
    Device(Vec<(data::ElemType, usize)>),
}

/// What the sweep keeps between configurations: the loaded module, the buffers on the device and
/// the host's copies of the inputs, the expected outputs.
#[derive(Default)]
struct State {
    /// `(module, entry)` loaded now.
    loaded: Option<(usize, String)>,
    /// Element type and length of each device buffer now.
    layout: Vec<(data::ElemType, u64)>,
    /// Whether counters are enabled on the current device.
    counters: Option<std::result::Result<usize, String>>,
    /// The device-to-device copy bandwidth measured at the start, GB/s.
    copy_gbs: Option<f64>,
    /// The last configuration's steps.
    steps: Steps,
    /// The entry loaded now, as its module spells it (a C++ kernel's mangled name).
    entry: String,
    /// The model's figures for this device (its calibration), with `--model`.
    figures: Option<crate::model::time::Figures>,
    /// Why the model could not evaluate a configuration, the first time it could not.
    unmodelled: Option<String>,
    /// The inputs the model's run reads, shared once per argument and length (not copied for every
    /// configuration).
    followed: HashMap<(usize, u64), Arc<[u8]>>,
}

impl UserSweep<'_> {
    /// Runs the configurations on `backend` (device `ordinal`; after a fault, the rest in a new process,
    /// see [`UserSweep::rerun`]); `on_record` sees each record as it ends and `note` what the user should
    /// know (counters that could not be measured, a sweep going on elsewhere).
    pub fn run(
        &self,
        mut backend: Box<dyn Backend>,
        ordinal: u32,
        on_record: &mut dyn FnMut(&Record),
        note: &mut dyn FnMut(&str),
    ) -> Result<Report> {
        let mut report = Report::new(backend.info().clone());
        report.timing = Some(self.options.timing());
        let mut inputs: Inputs = HashMap::new();
        let mut expected: Option<Want> = match (self.npy_expected()?, backend.user()) {
            (Some(host), Some(gpu)) => Some(keep_on_device(gpu, host)?),
            (host, _) => host.map(Want::Host),
        };
        let mut state = State::default();
        // The copy yardstick, as for built-in kernels (it also brings the clocks up before the first
        // configuration is timed).
        if backend.user().is_some() {
            report.baselines.memcpy_dtod_gbs = Some(crate::sweep::copy_yardstick(backend.as_mut(), self.options)?);
        }
        if let (Expected::Reference(_), Some(reference)) = (&self.file.verify.expected, &self.ex.reference)
            && backend.user().is_some()
        {
            let got = self.reference_outputs(backend.as_mut(), reference, &mut inputs, &mut state);
            expected = Some(got.map_err(|e| Error::usage(format!("the reference kernel: {e}")))?);
        }
        // Whether the anchor's outputs were made here before any configuration.
        let mut anchor_ran = false;
        // same_as_first where this device may not run the sweep's first configuration first (another
        // device, slice or earlier run has it): its outputs are made here first, as a reference's are.
        if let (Some(a), true, None) = (self.anchor.filter(|_| self.anchor_first), backend.user().is_some(), &expected)
        {
            let c = &self.ex.configs[a];
            if self.reason_not_to_run(c, backend.as_mut()).is_none() {
                match self.reference_outputs(backend.as_mut(), c, &mut inputs, &mut state) {
                    Ok(want) => {
                        expected = Some(want);
                        anchor_ran = true;
                    }
                    // Not launchable here: the first configuration that runs gives them, as on one device.
                    Err(Error::LaunchRejected(_)) => {}
                    // It faults (its own row comes from the device that takes it): the configurations
                    // left go on in a new process, as after any fault.
                    Err(Error::KernelFault(_)) => {
                        drop(backend);
                        self.hand_over(None, a, ordinal, on_record, note, &mut report)?;
                        return Ok(report);
                    }
                    Err(e) => {
                        return Err(Error::usage(format!(
                            "the sweep's first configuration ({}), whose outputs the others must give: {e}",
                            c.block
                        )));
                    }
                }
            }
        }
        // The configuration whose outputs are the expected ones (same-as-first), once one has run.
        let mut first_ok: Option<usize> = None;
        state.copy_gbs = report.baselines.memcpy_dtod_gbs.as_ref().map(|m| m.value);
        // The model's figures for this device, as a built-in sweep with --model measures them.
        if self.options.model && backend.user().is_some() {
            match crate::gpu::calibrate::calibration(backend.as_mut(), false) {
                Ok(c) => {
                    // Kept in the report, as a built-in sweep keeps it: `model-check --kernel-file`
                    // predicts again with the figures this sweep predicted with.
                    report.baselines.calibration = Some(c.figures.clone());
                    state.figures = Some(c.figures);
                }
                Err(e) => {
                    note(&format!("calibration failed ({e}): the model uses the database's figures for this arch"))
                }
            }
        }
        while !crate::signals::stop_requested() {
            let Some(index) = self.queue.next() else { break };
            let c = &self.ex.configs[index];
            // The first configuration itself gives the expected outputs again, as it does on one device.
            if Some(index) == self.anchor {
                expected = None;
            }
            let mut r = self.record(c, Status::Invalid);
            r.index = Some(index as u32);
            r.sweep_size = Some(self.ex.configs.len() as u32);
            self.options.next_config();
            match self.reason_not_to_run(c, backend.as_mut()) {
                Some(reason) => r.reason = Some(reason),
                None => match self.measure(backend.as_mut(), c, &mut inputs, &mut expected, &mut state, &mut r) {
                    Ok(()) => {}
                    Err(Error::LaunchRejected(why)) => {
                        r.status = Status::Invalid;
                        r.reason = Some(why);
                    }
                    Err(Error::KernelFault(why)) => {
                        r.status = Status::Failed;
                        r.reason = Some(format!("{why}: find the faulting access with `{}`", self.sanitizer(c)));
                        r.device = Some(ordinal);
                        on_record(&r);
                        report.records.push(r);
                        drop(backend);
                        // The new process is given the expected outputs' configuration first.
                        let lead = if anchor_ran { self.anchor } else { first_ok };
                        self.hand_over(lead, index, ordinal, on_record, note, &mut report)?;
                        return Ok(report);
                    }
                    Err(e) => return Err(e),
                },
            }
            if r.status == Status::Ok && first_ok.is_none() {
                first_ok = Some(index);
            }
            if let Some(line) = std::mem::take(&mut state.steps).line().filter(|_| self.verbose) {
                let params = c.params_label();
                let what = if params.is_empty() { c.block.to_string() } else { format!("{}, {params}", c.block) };
                note(&format!("configuration {} ({what}): {line}", index + 1));
            }
            if let Some(Err(why)) = state.counters.as_mut().filter(|c| c.as_ref().is_err_and(|w| !w.is_empty())) {
                note(&format!("hardware counters unavailable: {why}"));
                // Said once.
                why.clear();
            }
            r.device = (r.status != Status::Invalid).then_some(ordinal);
            on_record(&r);
            report.records.push(r);
        }
        if let Some(why) = state.unmodelled.take() {
            note(&format!("model: {why}, so its times and memory metrics are not modelled"));
        }
        Ok(report)
    }

    /// After configuration `faulted` faulted on device `ordinal` (whose backend is gone): every
    /// configuration no device has taken yet runs in a new process on that device, `lead` (the
    /// expected outputs' configuration) first; their records are added to `report`.
    fn hand_over(
        &self,
        lead: Option<usize>,
        faulted: usize,
        ordinal: u32,
        on_record: &mut dyn FnMut(&Record),
        note: &mut dyn FnMut(&str),
        report: &mut Report,
    ) -> Result<()> {
        let rest = self.queue.take_rest();
        let again: Vec<usize> = lead.iter().copied().chain(rest.iter().copied()).collect();
        for r in self.continue_elsewhere(&again, &rest, faulted, ordinal, note)? {
            on_record(&r);
            report.records.push(r);
        }
        Ok(())
    }

    /// After configuration `faulted` faulted: runs `configs` (the expected outputs' configuration first,
    /// when there is one, then `rest`) in a new process and returns the records of `rest`; where that
    /// cannot be done, `rest` become rows saying how to run them.
    fn continue_elsewhere(
        &self,
        configs: &[usize],
        rest: &[usize],
        faulted: usize,
        ordinal: u32,
        note: &mut dyn FnMut(&str),
    ) -> Result<Vec<Record>> {
        let not_run = |why: String| -> Vec<Record> {
            rest.iter()
                .map(|&i| {
                    let mut r = self.record(&self.ex.configs[i], Status::Invalid);
                    r.index = Some(i as u32);
                    r.sweep_size = Some(self.ex.configs.len() as u32);
                    r.reason = Some(why.clone());
                    r
                })
                .collect()
        };
        if rest.is_empty() {
            return Ok(Vec::new());
        }
        let Some(args) = &self.rerun else {
            return Ok(not_run("not run: the CUDA context was lost to an earlier fault".into()));
        };
        note(&format!(
            "configuration {faulted} faulted: CUDA takes no more work from this process, the {} left run in a new one",
            rest.len()
        ));
        let list: Vec<String> = configs.iter().map(|i| i.to_string()).collect();
        let exe = std::env::current_exe().map_err(|e| Error::internal(format!("warpscope's own path: {e}")))?;
        let out = std::process::Command::new(exe)
            .args(args)
            .args(["--device".to_string(), ordinal.to_string()])
            .arg("--configs")
            .arg(list.join(","))
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| Error::internal(format!("starting warpscope again: {e}")))?;
        let mut records = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.trim().is_empty()) {
            let r: Record = serde_json::from_str(line)
                .map_err(|e| Error::internal(format!("a record from the new process: {e}: {line}")))?;
            if r.index.is_some_and(|i| rest.contains(&(i as usize))) {
                records.push(r);
            }
        }
        // Whatever the new process could not report stays in the results, as a row.
        let missing: Vec<usize> =
            rest.iter().copied().filter(|&i| !records.iter().any(|r| r.index == Some(i as u32))).collect();
        let why = match out.status.code() {
            // `main`'s code for a sweep that gave up on a configuration past its timeout.
            Some(124) => "not run: the process that took over after the fault gave up on a hung configuration \
                          (its timeout)"
                .to_string(),
            _ => format!("not run: the process that took over after the fault ended with {}", out.status),
        };
        records.extend(not_run(why).into_iter().filter(|r| r.index.is_some_and(|i| missing.contains(&(i as usize)))));
        records.sort_by_key(|r| rest.iter().position(|&i| r.index == Some(i as u32)));
        Ok(records)
    }

    /// A record of configuration `c` before it runs.
    fn record(&self, c: &Config, status: Status) -> Record {
        record_of(self.file, c, status)
    }

    /// Why `c` cannot run here, if it cannot: the expansion's reason, its module's compile error, or a
    /// backend that does not run users' kernels.
    fn reason_not_to_run(&self, c: &Config, backend: &mut dyn Backend) -> Option<String> {
        if let Some(why) = &c.invalid {
            return Some(why.clone());
        }
        if let Some(Err(e)) = self.built.get(c.module) {
            return Some(format!("compile failed: {}", e.summary));
        }
        if backend.user().is_some() {
            return None;
        }
        // The mock still checks the launch against the device's limits (the kernel's own resources
        // are only known once the driver loads it).
        let limits = backend.info().limits.clone()?;
        let attrs = crate::gpu::KernelAttrs {
            registers: 0,
            static_smem: 0,
            local_bytes: 0,
            max_threads_per_block: limits.max_threads_per_block,
        };
        let launch = Launch { grid: c.grid, block: c.block, dynamic_smem: c.dynamic_smem };
        Some(crate::plan::validate(&limits, &attrs, &launch).err().unwrap_or_else(|| MOCK_REASON.to_string()))
    }

    /// The `compute-sanitizer` command that reruns configuration `c` alone.
    pub fn sanitizer(&self, c: &Config) -> String {
        let mut cmd = format!(
            "compute-sanitizer --tool memcheck warpscope run --kernel-file {} --block {}",
            self.file.path.display(),
            c.block
        );
        for s in &self.file.sizes {
            cmd += &format!(" --size {}={}", s.name, s.value);
        }
        for (n, v) in &c.params {
            cmd += &format!(" --define {n}={v}");
        }
        cmd
    }

    /// The expected outputs from `.npy` files, when the file names them (in output order).
    fn npy_expected(&self) -> Result<Option<Vec<HostData>>> {
        let Expected::Npy(files) = &self.file.verify.expected else { return Ok(None) };
        let Some(c) = self.ex.configs.iter().find(|c| c.invalid.is_none()) else { return Ok(None) };
        let mut out = Vec::new();
        for b in c.buffers.iter().filter(|b| b.compared()) {
            let (_, path) = files
                .iter()
                .find(|(arg, _)| *arg == b.arg)
                .ok_or_else(|| Error::usage(format!("[verify] names no .npy file for output '{}'", b.name)))?;
            out.push(data::read_npy(path, b.ty, b.len as usize).map_err(Error::usage)?);
        }
        Ok(Some(out))
    }

    /// Makes `c`'s module current and its buffers allocated and filled (inputs once per layout, in/out
    /// buffers before every verified launch: see [`Self::prepare_outputs`]).
    fn load(
        &self,
        gpu: &mut dyn UserGpu,
        c: &Config,
        inputs: &mut Inputs,
        state: &mut State,
    ) -> Result<crate::gpu::KernelAttrs> {
        let built = match self.built.get(c.module) {
            Some(Ok(b)) => b,
            _ => return Err(Error::internal("a configuration without its module")),
        };
        // The symbol to look up: a C++ entry's mangled name, as the PTX spells it.
        let entry = match (&built.code, &self.file.verify.expected) {
            (super::compile::Code::Ptx(ptx), expected) => {
                let at = match expected {
                    Expected::Reference(r) if r.entry == c.entry => r.entry_at,
                    _ => self.file.entry_at,
                };
                self.file.find_entry(&super::source::ptx_entries(ptx), &c.entry, at)?.name.clone()
            }
            (super::compile::Code::Binary(_), _) => c.entry.clone(),
        };
        let attrs = gpu.user_load(&format!("user:{}", c.module), &built.code, &entry, c.dynamic_smem)?;
        state.loaded = Some((c.module, c.entry.clone()));
        state.entry = entry;
        // A reference kernel from another source need not declare the file's constants: those its
        // module lacks are not its to fill.
        let reference = self.ex.reference.as_ref().is_some_and(|r| r.module == c.module && r.entry == c.entry);
        for b in &c.constants {
            if let (true, super::compile::Code::Ptx(ptx)) = (reference, &built.code)
                && !super::file::ptx_declares(ptx, &b.name)
            {
                continue;
            }
            gpu.user_constant(&b.name, &self.input(b, inputs)?.bytes)?;
        }
        let layout: Vec<(data::ElemType, u64)> = c.buffers.iter().map(|b| (b.ty, b.len)).collect();
        if layout != state.layout {
            state.layout.clear();
            gpu.user_buffers(&c.buffers.iter().map(|b| b.bytes()).collect::<Vec<_>>())?;
            for (i, b) in c.buffers.iter().enumerate() {
                if b.role == Role::Input {
                    gpu.user_write(i, &self.input(b, inputs)?.bytes)?;
                }
            }
            state.layout = layout;
        }
        Ok(attrs)
    }

    /// A buffer's initial contents: generated once per argument and length for every device of the run
    /// (a device that needs one another is generating waits for it), kept in this device's `inputs`.
    fn input<'i>(&self, b: &super::expand::Buffer, inputs: &'i mut Inputs) -> Result<&'i HostData> {
        let key = (b.arg, b.len);
        if let std::collections::hash_map::Entry::Vacant(slot) = inputs.entry(key) {
            let mut all = self.host_inputs.lock().map_err(|_| Error::internal("the shared inputs' lock"))?;
            let d = match all.get(&key) {
                Some(d) => d.clone(),
                None => {
                    let init = b.init.clone().unwrap_or(data::Init::Zeros);
                    let d = init
                        .generate(b.ty, b.len as usize, self.options.seed, b.arg as u32)
                        .map_err(|e| Error::usage(format!("argument '{}': {e}", b.name)))?;
                    all.entry(key).or_insert(Arc::new(d)).clone()
                }
            };
            slot.insert(d);
        }
        Ok(&inputs[&key])
    }

    /// Poisons the outputs (`which` poison) and restores the in/out buffers' initial contents.
    fn prepare_outputs(&self, gpu: &mut dyn UserGpu, c: &Config, which: Poison, inputs: &mut Inputs) -> Result<()> {
        for (i, b) in c.buffers.iter().enumerate() {
            match b.role {
                Role::Output => gpu.user_fill(i, &b.ty.poison(which))?,
                // From the device's copy of its initial contents, kept at the first restore where
                // there is room (else from the host every time).
                Role::InOut if gpu.user_restore(i)? => {}
                Role::InOut => {
                    gpu.user_write(i, &self.input(b, inputs)?.bytes)?;
                    gpu.user_snapshot(i)?;
                }
                Role::Input => {}
            }
        }
        Ok(())
    }

    /// What the outputs hold now, in output order.
    fn read_outputs(&self, gpu: &mut dyn UserGpu, c: &Config) -> Result<Vec<HostData>> {
        let mut out = Vec::new();
        for (i, b) in c.buffers.iter().enumerate().filter(|(_, b)| b.compared()) {
            out.push(HostData { ty: b.ty, bytes: gpu.user_read(i)? });
        }
        Ok(out)
    }

    /// Runs the reference kernel once; its outputs are what every configuration must give.
    fn reference_outputs(
        &self,
        backend: &mut dyn Backend,
        reference: &Config,
        inputs: &mut Inputs,
        state: &mut State,
    ) -> Result<Want> {
        if let Some(Err(e)) = self.built.get(reference.module) {
            return Err(Error::usage(format!("compile failed: {}", e.summary)));
        }
        let gpu = backend.user().ok_or_else(|| Error::internal("no user kernels on this backend"))?;
        self.load(gpu, reference, inputs, state)?;
        self.prepare_outputs(gpu, reference, Poison::Reference, inputs)?;
        let launch = Launch { grid: reference.grid, block: reference.block, dynamic_smem: reference.dynamic_smem };
        let args = args_of(reference);
        self.options.next_config();
        self.options.on_gpu(|| gpu.user_launch(&launch, &args))?;
        self.options.on_gpu(|| self.keep_expected(gpu, reference))
    }

    /// The outputs `c` just wrote, kept as the expected ones: on the device where it has room, else
    /// read back.
    fn keep_expected(&self, gpu: &mut dyn UserGpu, c: &Config) -> Result<Want> {
        let compared: Vec<(usize, &super::expand::Buffer)> =
            c.buffers.iter().enumerate().filter(|(_, b)| b.compared()).collect();
        let from: Vec<Expect<'_>> = compared.iter().map(|(i, _)| Expect::Buffer(*i)).collect();
        if compare_on_device() && gpu.user_expect(&from)? {
            return Ok(Want::Device(compared.iter().map(|(_, b)| (b.ty, b.len as usize)).collect()));
        }
        Ok(Want::Host(self.read_outputs(gpu, c)?))
    }

    /// `c`'s outputs compared on the device with the expected ones kept there (`want`), as
    /// [`check::compare`] compares them on the host; an output whose type or length differs from the
    /// expected one's fails whole. Also what that difference says.
    fn compare_on_device(
        &self,
        gpu: &mut dyn UserGpu,
        c: &Config,
        want: &[(data::ElemType, usize)],
    ) -> Result<(Verification, Option<String>)> {
        let spec = &self.file.verify;
        let mut v = Verification { checked: 0, mismatches: 0, max_abs_error: 0.0, first_mismatch: None };
        let mut explained = None;
        let compared = c.buffers.iter().enumerate().filter(|(_, b)| b.compared());
        for (slot, ((i, b), &(ty, len))) in compared.zip(want).enumerate() {
            v.checked += len as u64;
            if b.ty != ty || b.len as usize != len {
                v.mismatches += len.max(1) as u64;
                explained.get_or_insert_with(|| {
                    format!("output '{}' has {} elements where the expected outputs have {len}", b.name, b.len)
                });
                continue;
            }
            let how = Compare { ty, exact: !ty.is_float() && !spec.tolerance_given, atol: spec.atol, rtol: spec.rtol };
            let t = gpu.user_compare(i, slot, len as u64, &how)?;
            v.mismatches += t.mismatches;
            v.max_abs_error = v.max_abs_error.max(t.max_abs_error);
            if let (None, Some((index, got, expected))) = (&v.first_mismatch, t.first) {
                v.first_mismatch =
                    Some(Mismatch { buffer: b.name.clone(), index, got: got as f32, expected: expected as f32 });
            }
        }
        Ok((v, explained))
    }

    /// One configuration: loaded, limits checked, verified launch, timed, occupancy, counters.
    fn measure(
        &self,
        backend: &mut dyn Backend,
        c: &Config,
        inputs: &mut Inputs,
        expected: &mut Option<Want>,
        state: &mut State,
        r: &mut Record,
    ) -> Result<()> {
        let info = backend.info().clone();
        let source = backend.source();
        if state.counters.is_none() && !self.options.metrics.is_empty() {
            let counters = m::counters_of(&self.options.metrics);
            state.counters = Some(backend.enable_counters(&counters, 1).map_err(|e| e.to_string()));
        }
        let mut steps = Steps::start();
        let gpu = backend.user().ok_or_else(|| Error::internal("no user kernels on this backend"))?;
        let attrs = self.load(gpu, c, inputs, state)?;
        steps.mark("load");
        let launch = Launch { grid: c.grid, block: c.block, dynamic_smem: c.dynamic_smem };
        if let Err(why) = crate::plan::validate(info.checked_limits()?, &attrs, &launch) {
            r.reason = Some(why);
            return Ok(());
        }
        let args = args_of(c);
        // The first configuration of a same-as-first sweep gives the expected outputs.
        let first = expected.is_none();
        self.prepare_outputs(gpu, c, if first { Poison::Reference } else { Poison::Checked }, inputs)?;
        steps.mark("poison");
        self.options.on_gpu(|| gpu.user_launch(&launch, &args))?;
        steps.mark("launch");
        // What a failed check says beyond its counts: an output whose length differs from the expected
        // one's (an output sized by the grid, compared with another configuration's), or the two sums.
        let mut explained = None;
        let verification = if let Expected::Sums(pairs) = &self.file.verify.expected {
            let got = self.options.on_gpu(|| self.read_outputs(gpu, c))?;
            steps.mark("read back");
            let outputs: Vec<&super::expand::Buffer> = c.buffers.iter().filter(|b| b.compared()).collect();
            for &(_, i) in pairs {
                if let Some(b) = c.buffers.iter().find(|b| b.arg == i) {
                    self.input(b, inputs)?;
                }
            }
            let mut triples = Vec::new();
            for &(o, i) in pairs {
                let (Some(at), Some(b)) =
                    (outputs.iter().position(|b| b.arg == o), c.buffers.iter().find(|b| b.arg == i))
                else {
                    return Err(Error::internal("a summed output or input without its buffer"));
                };
                triples.push((outputs[at].name.as_str(), &got[at], inputs[&(b.arg, b.len)].as_ref()));
            }
            let v = check::compare_sums(&triples, &self.file.verify);
            if let Some(m) = &v.first_mismatch {
                let input = pairs
                    .iter()
                    .find(|(o, _)| self.file.args[*o].name == m.buffer)
                    .map(|(_, i)| &self.file.args[*i].name);
                let spec = &self.file.verify;
                explained = Some(format!(
                    "the elements of output '{}' sum to {} where input '{}' sums to {}: they differ by {:.3e}, above atol {} + rtol {} x the input's sum of magnitudes; look for races and out-of-bounds accesses with `{}`",
                    m.buffer,
                    m.got,
                    input.map_or("?", |n| n.as_str()),
                    m.expected,
                    v.max_abs_error,
                    spec.atol,
                    spec.rtol,
                    self.sanitizer(c)
                ));
            }
            Some(v)
        } else {
            match expected.as_ref() {
                Some(Want::Device(want)) => {
                    let (v, why) = self.options.on_gpu(|| self.compare_on_device(gpu, c, want))?;
                    explained = why;
                    Some(v)
                }
                Some(Want::Host(want)) => {
                    let got = self.options.on_gpu(|| self.read_outputs(gpu, c))?;
                    steps.mark("read back");
                    let names: Vec<&str> = c.buffers.iter().filter(|b| b.compared()).map(|b| b.name.as_str()).collect();
                    let outputs: Vec<(&str, &HostData)> = names.iter().copied().zip(got.iter()).collect();
                    explained = outputs.iter().zip(want).find(|((_, g), w)| g.len() != w.len()).map(|((n, g), w)| {
                        format!("output '{n}' has {} elements where the expected outputs have {}", g.len(), w.len())
                    });
                    Some(check::compare(&outputs, &want.iter().collect::<Vec<_>>(), &self.file.verify))
                }
                None => {
                    *expected = Some(self.options.on_gpu(|| self.keep_expected(gpu, c))?);
                    None
                }
            }
        };
        steps.mark("compare");
        let o = self.options;
        // The conditions the timing saw are read from the backend once it is done (below).
        let (times, _) = crate::sweep::timed(o, o.warmup, |warmup, iters| {
            Ok((gpu.user_time(&launch, &args, warmup, iters, o.cold)?, None))
        })?;
        steps.mark("timing");
        let t = TimeStats::from_samples(&times).ok_or_else(|| Error::Output("no timing".into()))?;
        let metric =
            |name: &str, value: f64, unit: &str| Metric { name: name.into(), value, unit: unit.into(), source };
        let bytes: u64 = c
            .buffers
            .iter()
            .map(|b| match b.role {
                Role::InOut => 2 * b.bytes(),
                _ => b.bytes(),
            })
            .sum();
        let eff = m::eff_bandwidth_gbs(bytes, t.median);
        r.metrics.push(metric(m::EFF_BANDWIDTH, eff, GBPS));
        if let Some(copy) = state.copy_gbs {
            r.metrics.push(metric(m::PCT_OF_MEMCPY, 100.0 * eff / copy, m::PCT));
        }
        let threads = launch.block.volume() as u32;
        let mut active = None;
        if let Some(l) = info.limits.as_ref().filter(|l| l.max_threads_per_sm > 0) {
            let blocks = gpu.user_occupancy(threads, c.dynamic_smem)?;
            let warps = f64::from(blocks) * f64::from(threads.div_ceil(32));
            r.metrics.push(metric(m::THEORETICAL_OCCUPANCY, warps / f64::from(l.max_threads_per_sm / 32), RATIO));
            active = Some(blocks);
        }
        if let Some(Ok(_)) = state.counters {
            match self.options.on_gpu(|| gpu.user_counters(&launch, &args)) {
                Ok(values) => {
                    let order = m::counters_of(&self.options.metrics);
                    for q in &self.options.metrics {
                        let mine: Vec<f64> = q
                            .counters
                            .iter()
                            .map(|n| order.iter().position(|o| o == n).map_or(f64::NAN, |i| values[i]))
                            .collect();
                        r.metrics.push(Metric {
                            name: q.name.clone(),
                            value: q.value(&mine),
                            unit: q.unit.clone(),
                            source,
                        });
                    }
                }
                Err(why) => state.counters = Some(Err(why.to_string())),
            }
        }
        steps.mark("occupancy and counters");
        if let (true, Some(blocks)) = (self.options.model, active) {
            self.model(&info, c, &launch, blocks, t.median, inputs, state, r);
            steps.mark("model");
        }
        state.steps = steps;
        r.time_ms = Some(t);
        r.conditions = backend.last_conditions();
        match verification {
            Some(v) if v.mismatches > 0 => {
                r.status = Status::Failed;
                r.reason = Some(match explained {
                    Some(why) if matches!(self.file.verify.expected, Expected::Sums(_)) => why,
                    Some(why) => format!(
                        "{why}: an output whose length follows the configuration cannot be compared with another configuration's (give a reference kernel or expected files)"
                    ),
                    None => format!(
                        "{} of {} output elements differ from the expected ones; look for races and out-of-bounds accesses with `{}`",
                        v.mismatches,
                        v.checked,
                        self.sanitizer(c)
                    ),
                });
                r.verification = Some(v);
            }
            // No output buffer: nothing was compared, so nothing is claimed verified.
            Some(v) if v.checked == 0 => {
                r.status = Status::Ok;
                r.reason = Some(NOTHING_COMPARED.into());
            }
            Some(v) => {
                r.status = Status::Ok;
                r.verification = Some(v);
            }
            // The first configuration of a same-as-first sweep: its outputs are what the others must
            // give, unless there are none to compare.
            None if c.buffers.iter().any(|b| b.compared()) => {
                r.status = Status::Ok;
                r.reason = Some("gave the expected outputs: every other configuration is compared with it".into());
            }
            None => {
                r.status = Status::Ok;
                r.reason = Some(NOTHING_COMPARED.into());
            }
        }
        Ok(())
    }
}

impl UserSweep<'_> {
    /// The model's estimates of configuration `c` (measured at `median_ms`, `blocks` resident per SM),
    /// from its PTX traced for addresses; where it cannot be traced (a cubin, addresses loaded from
    /// memory), the reason is kept for the end of the sweep.
    #[allow(clippy::too_many_arguments)]
    fn model(
        &self,
        info: &crate::gpu::DeviceInfo,
        c: &Config,
        launch: &Launch,
        blocks: u32,
        median_ms: f64,
        inputs: &mut Inputs,
        state: &mut State,
        r: &mut Record,
    ) {
        let traced = match self.built.get(c.module) {
            Some(Ok(Built { code: super::compile::Code::Ptx(ptx), .. })) => {
                // The inputs this launch read, as the run follows them.
                let followed = &mut state.followed;
                let mut data = |b: &super::expand::Buffer| match followed.get(&(b.arg, b.len)) {
                    Some(d) => Some(d.clone()),
                    None => {
                        let d: Arc<[u8]> = Arc::from(self.input(b, inputs).ok()?.bytes.as_slice());
                        followed.insert((b.arg, b.len), d.clone());
                        Some(d)
                    }
                };
                super::model::traced(&self.file.entry, ptx, &state.entry, c, &mut data)
            }
            _ => Err("its module is a cubin or fatbinary, whose code the model does not read".into()),
        };
        match traced {
            Ok(k) => {
                let copy = state.copy_gbs.or(info.peak_bandwidth_gbs).unwrap_or(0.0);
                let target = crate::sweep::device_target(info, copy, state.figures.as_ref());
                let ev = crate::model::evaluate(&target, &k, launch, blocks, Some(median_ms));
                let estimated = crate::record::Source::Estimated;
                let mut metrics = crate::sweep::model_metrics(&ev, median_ms, &self.options.metrics, estimated, true);
                // The measured theoretical occupancy (the driver's) stands; the estimate would repeat it.
                metrics.retain(|e| !r.metrics.iter().any(|x| x.name == e.name && e.name == m::THEORETICAL_OCCUPANCY));
                r.metrics.extend(metrics);
                r.bound = Some(ev.prediction.bound.as_str().to_string());
            }
            Err(why) => {
                state.unmodelled.get_or_insert_with(|| format!("{} ({}): {why}", self.file.entry, c.block));
            }
        }
    }
}

/// A record of configuration `c` of `file`, with its parameters, before it runs (or is estimated).
pub fn record_of(file: &KernelFile, c: &Config, status: Status) -> Record {
    let mut r = Record::new(&file.name, &file.problem_label(), c.grid, c.block, status);
    let json = |v: &Value| match v {
        Value::Int(i) => serde_json::Value::from(*i),
        Value::Float(x) => serde_json::Value::from(*x),
        Value::Bool(b) => serde_json::Value::from(*b),
        Value::Str(s) => serde_json::Value::from(s.as_str()),
    };
    if !file.params.is_empty() {
        r.params = Some(c.params.iter().map(|(k, v)| (k.clone(), json(v))).collect::<BTreeMap<_, _>>());
    }
    r
}

/// Whether expected outputs may be kept (and outputs compared) on the device: unless
/// `WARPSCOPE_VERIFY_ON_HOST` is set, the check that both comparisons agree (docs/KERNEL-FILE.md).
fn compare_on_device() -> bool {
    std::env::var_os("WARPSCOPE_VERIFY_ON_HOST").is_none_or(|v| v.is_empty() || v == "0")
}

/// Expected outputs read from files, kept on the device where it has room.
fn keep_on_device(gpu: &mut dyn UserGpu, host: Vec<HostData>) -> Result<Want> {
    let from: Vec<Expect<'_>> = host.iter().map(|h| Expect::Bytes(&h.bytes)).collect();
    if compare_on_device() && gpu.user_expect(&from)? {
        return Ok(Want::Device(host.iter().map(|h| (h.ty, h.len())).collect()));
    }
    Ok(Want::Host(host))
}

/// The launch arguments of `c`.
fn args_of(c: &Config) -> Vec<UserArg<'_>> {
    c.args
        .iter()
        .map(|a| match a {
            ArgValue::Buffer(i) => UserArg::Buffer(*i),
            ArgValue::Scalar { bytes, .. } => UserArg::Bytes(bytes),
        })
        .collect()
}

/// The command line that runs the sweep of `file` (given as `path`) in a new process ([`UserSweep::rerun`]):
/// every option that shapes its configurations or their numbers, as `sweep --kernel-file` takes them.
#[allow(clippy::too_many_arguments)]
pub fn rerun_line(
    path: &std::path::Path,
    file: &KernelFile,
    blocks: Option<&[crate::spec::Dim3]>,
    defines: &[String],
    options: &Options,
    metrics: Option<&str>,
    timeout: Option<f64>,
) -> Vec<String> {
    let mut rerun: Vec<String> = vec!["sweep".into(), "--kernel-file".into(), path.display().to_string()];
    for size in &file.sizes {
        rerun.extend(["--size".into(), format!("{}={}", size.name, size.value)]);
    }
    if let Some(b) = blocks {
        rerun.extend(["--block".into(), b.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")]);
    }
    for d in defines {
        rerun.extend(["--define".into(), d.clone()]);
    }
    rerun.extend([
        "--warmup".into(),
        options.warmup.to_string(),
        "--seed".into(),
        options.seed.to_string(),
        "--format".into(),
        "jsonl".into(),
        "-q".into(),
    ]);
    match options.until_noise {
        Some(n) => rerun.extend([
            "--until-noise".into(),
            n.pct.to_string(),
            "--min-iters".into(),
            n.min_iters.to_string(),
            "--max-iters".into(),
            n.max_iters.to_string(),
            "--max-time".into(),
            n.max_secs.to_string(),
        ]),
        None => rerun.extend(["--iters".into(), options.iters.to_string()]),
    }
    if options.cold {
        rerun.push("--cold".into());
    }
    if options.model {
        rerun.push("--model".into());
    }
    if let Some(secs) = timeout {
        rerun.extend(["--timeout".into(), secs.to_string()]);
    }
    if let Some(m) = metrics {
        rerun.extend(["--metrics".into(), m.to_string()]);
    }
    rerun
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_that_goes_on_after_a_fault_keeps_the_model_and_the_timeout() {
        let path = std::path::Path::new("examples/kernels/sum_matrix_ptx.toml");
        let file = KernelFile::load(path, &[]).unwrap();
        let options = Options { model: true, seed: 9, ..Options::default() };
        let line = rerun_line(path, &file, None, &[], &options, Some("gld_efficiency"), Some(2.5));
        // The device is the one that faulted: given where the new process starts.
        assert!(!line.iter().any(|a| a == "--device"), "{line:?}");
        for part in ["--model", "--timeout 2.5", "--seed 9", "--metrics gld_efficiency", "--format jsonl"] {
            assert!(line.join(" ").contains(part), "{part} missing from {line:?}");
        }
        let plain = rerun_line(path, &file, None, &[], &Options::default(), None, None).join(" ");
        assert!(!plain.contains("--model") && !plain.contains("--timeout"), "{plain}");
        assert!(plain.contains("--iters 20") && !plain.contains("--until-noise"), "{plain}");
        let noise = crate::sweep::Noise { pct: 1.5, min_iters: 8, max_iters: 400, max_secs: 3.0 };
        let until = Options { until_noise: Some(noise), ..Options::default() };
        let line = rerun_line(path, &file, None, &[], &until, None, None).join(" ");
        assert!(line.contains("--until-noise 1.5 --min-iters 8 --max-iters 400 --max-time 3"), "{line}");
        assert!(!line.contains("--iters 20"), "--iters conflicts with --until-noise: {line}");
    }
}
