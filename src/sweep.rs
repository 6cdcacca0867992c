//! The measurement pipeline: plan and validate every configuration, set the problem up once (fresh
//! random inputs, CPU reference, upload, copy yardstick), then per configuration poison, launch,
//! verify, time and derive metrics, handing each record out as it finishes. Hardware counters are
//! collected for windows of configurations at once (every replay pass launches the whole window), so
//! that CUPTI's fixed cost per pass is shared.

use crate::capacity;
use crate::error::{Error, Input, Result};
use crate::gpu::DeviceInfo;
use crate::gpu::{Backend, CompareOn, KernelAttrs, Launch};
use crate::handout::{Handout, Host};
use crate::kernels::{self, Kernel};
use crate::metrics::Requested;
use crate::metrics::{self as m, GBPS, MS, PCT};
use crate::model::time::{Figures, Target};
use crate::model::{self, arch};
use crate::plan::{self, Planned};
use crate::profile::Unavailable;
use crate::record::{Conditions, Metric, ModelFit, Record, Report, Source, Status, TimeStats, Timing};
use crate::signals::stop_requested as interrupted;
use crate::spec::Dim3;
use crate::watch::Watch;
use std::sync::Arc;
use std::time::Instant;

/// How to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Untimed launches before timing.
    pub warmup: u32,
    /// Timed launches.
    pub iters: u32,
    /// Seed of the random inputs.
    pub seed: u64,
    /// Add the time model's prediction and its error to every record.
    pub model: bool,
    /// Metrics to measure with hardware counters (CUPTI), beside the estimates.
    pub metrics: Vec<Requested>,
    /// Flush L2 before every timed launch (`--cold`).
    pub cold: bool,
    /// Time until the spread falls under a threshold instead of a fixed count (`--until-noise`).
    pub until_noise: Option<Noise>,
    /// Time the configurations round-robin, a slice of iterations at a time (`--interleave`).
    pub interleave: bool,
    /// Configurations whose hardware counters are collected together, at most ([`COUNTER_WINDOW`]; 1
    /// measures each configuration's counters before the next configuration runs).
    pub counter_window: usize,
    /// The busy clock `--timeout` reads: each configuration's GPU calls are counted on it.
    pub watch: Option<Arc<Watch>>,
}

/// A seed for the random inputs that differs from run to run (the clock's nanoseconds), for commands
/// not given one.
pub fn fresh_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
}

/// Configurations whose counters one measurement collects, at most: each replay pass launches every
/// configuration of the window once, so CUPTI's fixed cost per pass is shared by all of them.
pub const COUNTER_WINDOW: usize = 32;

/// A window is measured once its first configuration waited this long, so records keep coming.
const COUNTER_WINDOW_SECS: f64 = 1.0;

/// `--until-noise`: keep timing in batches until IQR / median <= `pct`, within the caps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    /// The spread to reach, percent of the median.
    pub pct: f64,
    /// Iterations before the spread is judged (also the batch size).
    pub min_iters: u32,
    /// Iterations at most.
    pub max_iters: u32,
    /// Seconds of timing per configuration at most.
    pub max_secs: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            warmup: 2,
            iters: 20,
            seed: 0,
            model: false,
            metrics: Vec::new(),
            cold: false,
            until_noise: None,
            interleave: false,
            counter_window: COUNTER_WINDOW,
            watch: None,
        }
    }
}

impl Options {
    /// Runs `f`, GPU work of the configuration in progress, on the busy clock where there is one.
    pub fn on_gpu<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.watch {
            Some(w) => w.busy(f),
            None => f(),
        }
    }

    /// A new configuration begins: the busy clock, where there is one, starts from zero.
    pub fn next_config(&self) {
        if let Some(w) = &self.watch {
            w.next();
        }
    }

    /// The report's account of the timing.
    pub fn timing(&self) -> Timing {
        Timing {
            warmup: self.warmup,
            iters: self.until_noise.map_or(self.iters, |n| n.min_iters),
            cold: self.cold,
            until_noise_pct: self.until_noise.map(|n| n.pct),
            interleave: self.interleave,
            seed: Some(self.seed),
        }
    }
}

/// Slices the iterations of an interleaved sweep are timed in.
const INTERLEAVE_ROUNDS: u32 = 5;

/// Progress, for the command line to print as it happens.
pub enum Event<'a> {
    /// The sweep's size, before anything runs.
    Planned {
        /// Configurations in the sweep.
        total: usize,
        /// How many of them are invalid.
        invalid: usize,
    },
    /// The device-to-device copy bandwidth the records are compared with.
    Baseline(&'a Metric),
    /// One configuration finished.
    Record(&'a Record),
    /// Where time went: a set-up step (inputs, reference, upload, copy yardstick), or a per-configuration
    /// step summed over the sweep (shown with `--verbose`).
    Phase(Phase),
    /// Hardware counters are set up: one measurement takes this many replay passes.
    Counters(usize),
    /// Hardware counters cannot be collected (from here on): estimates only.
    NoCounters(&'a Unavailable),
    /// Something the user should know that does not stop the sweep.
    Warning(String),
}

/// Time spent in one step: once (set-up) or summed over the configurations that went through it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phase {
    /// What the step does.
    pub name: &'static str,
    /// Seconds, in all.
    pub secs: f64,
    /// The configurations it is summed over; `None` for a step done once.
    pub configs: Option<usize>,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.configs {
            None => write!(f, "{}: {:.3} s", self.name, self.secs),
            Some(n) => write!(
                f,
                "{}: {:.3} s for {n} config{}, {:.2} ms per config",
                self.name,
                self.secs,
                if n == 1 { "" } else { "s" },
                1e3 * self.secs / n.max(1) as f64
            ),
        }
    }
}

/// Runs `blocks` of `kernel` on `backend`; `on_event` sees the plan, the baseline and each record.
pub fn run(
    backend: &mut dyn Backend,
    kernel: &dyn Kernel,
    blocks: &[Dim3],
    opts: &Options,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Report> {
    let indexed: Vec<(u32, Dim3)> = blocks.iter().enumerate().map(|(i, &b)| (i as u32, b)).collect();
    run_indexed(backend, kernel, &Handout::new(indexed, 1), blocks.len() as u32, opts, on_event)
}

/// [`run`] on a slice of a larger sweep of `sweep_size` configurations: each block comes with its position
/// in the whole list, which its record keeps as `index` (so slices run on several GPUs or hosts merge
/// back in the sweep's order, and `merge` can tell a missing slice).
pub fn run_indexed(
    backend: &mut dyn Backend,
    kernel: &dyn Kernel,
    handout: &Handout,
    sweep_size: u32,
    opts: &Options,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Report> {
    let indexed = handout.list();
    let blocks: Vec<Dim3> = indexed.iter().map(|&(_, b)| b).collect();
    let blocks = blocks.as_slice();
    if opts.iters == 0 {
        return Err(Error::input(Input::Iters, None, "must be at least 1"));
    }
    let mut spent = StepTimes::default();
    let attrs = spent.time("set-up: kernel module", 0, || backend.load(kernel))?;
    let mut report = Report::new(backend.info().clone());
    let planned = plan::plan(kernel, blocks, report.device.checked_limits()?, &attrs);
    let invalid = planned.iter().filter(|p| p.invalid.is_some()).count();
    on_event(Event::Planned { total: planned.len(), invalid });
    handout.order(|| predicted_ms(&report.device, kernel, &attrs, &planned));

    let window = opts.counter_window.max(1);
    let mut counters_on = false;
    if opts.interleave && opts.until_noise.is_some() {
        return Err(Error::input(
            Input::Interleave,
            None,
            "needs a fixed number of timed launches, not timing until a noise target",
        ));
    }
    report.timing = Some(opts.timing());
    let mut problem = None;
    // Interleaved: verified configurations wait here (record index, launch) to be timed round-robin.
    let mut pending: Vec<(usize, Launch)> = Vec::new();
    // Verified configurations waiting for their counters, and records not yet handed out (all of
    // them from the first that waits, so that records come out in order).
    let mut waiting = Waiting::default();
    let mut sent = 0;
    while let Some(at) = handout.next() {
        if interrupted() {
            break;
        }
        let (p, index) = (&planned[at], indexed[at].0);
        let mut record = match &p.invalid {
            Some(reason) => invalid_record(kernel, p, reason.clone()),
            None => {
                if problem.is_none() {
                    let prob = SetUp::of(backend, kernel, handout, opts, &mut spent, on_event)?;
                    match &prob.counters {
                        Some(Ok(passes)) => {
                            counters_on = true;
                            on_event(Event::Counters(*passes));
                        }
                        Some(Err(why)) => on_event(Event::NoCounters(why)),
                        None => {}
                    }
                    on_event(Event::Baseline(&prob.memcpy));
                    report.baselines.memcpy_dtod_gbs = Some(prob.memcpy.clone());
                    report.baselines.calibration = prob.figures.clone();
                    problem = Some(prob);
                }
                let prob = problem.as_ref().expect("set up above");
                measure(backend, kernel, prob, p, opts, &mut spent)?
            }
        };
        record.index = Some(index);
        record.sweep_size = Some(sweep_size);
        let at = report.records.len();
        if counters_on && record.status == Status::Ok {
            waiting.push(at, p.launch);
        }
        let valid = record.status != Status::Invalid;
        if opts.interleave && valid {
            pending.push((at, p.launch));
        } else if opts.interleave {
            on_event(Event::Record(&record));
        }
        report.records.push(record);
        if waiting.due(window, handout.left_to_share()) {
            counters_on = waiting.measure(backend, kernel, opts, &mut report.records, &mut spent, on_event);
        }
        if !opts.interleave && waiting.is_empty() {
            report.records[sent..].iter().for_each(|r| on_event(Event::Record(r)));
            sent = report.records.len();
        }
    }
    if !waiting.is_empty() {
        waiting.measure(backend, kernel, opts, &mut report.records, &mut spent, on_event);
    }
    if !opts.interleave {
        report.records[sent..].iter().for_each(|r| on_event(Event::Record(r)));
    }
    if let Some(prob) = problem.as_ref().filter(|_| !pending.is_empty()) {
        let samples = interleaved(backend, kernel, &pending, opts, &mut spent)?;
        for ((i, launch), (times, conditions)) in pending.iter().zip(samples) {
            let record = &mut report.records[*i];
            record.conditions = conditions;
            fill_time_and_metrics(backend, kernel, prob, launch, record, &times, opts, &mut spent)?;
            on_event(Event::Record(record));
        }
    }
    for phase in spent.per_config() {
        on_event(Event::Phase(phase));
    }
    if opts.model {
        report.model_fit = ModelFit::of(&report.records);
    }
    Ok(report)
}

/// Verified configurations whose counters are still to be measured: (record index, launch), and since
/// when the first has waited.
#[derive(Default)]
struct Waiting {
    launches: Vec<(usize, Launch)>,
    since: Option<Instant>,
}

impl Waiting {
    fn push(&mut self, record: usize, launch: Launch) {
        self.since.get_or_insert_with(Instant::now);
        self.launches.push((record, launch));
    }

    fn is_empty(&self) -> bool {
        self.launches.is_empty()
    }

    /// Whether to measure now: the window is full, or its first configuration has waited long enough,
    /// or (with `left` configurations still to share with other devices) it holds as many as are left.
    /// That last rule keeps the last windows small, so that no device is left measuring a long one
    /// while the others are done: on 2 x H100 the device with the larger last window (24 against 9
    /// configurations) ended 0.24 s after the other.
    fn due(&self, window: usize, left: Option<usize>) -> bool {
        let n = self.launches.len();
        n >= window
            || left.is_some_and(|left| n > 0 && n >= left)
            || self.since.is_some_and(|t| t.elapsed().as_secs_f64() >= COUNTER_WINDOW_SECS)
    }

    /// Measures the counters of every waiting configuration (each replay pass launches them all) and
    /// puts their metrics in their records; returns whether the counters still work.
    fn measure(
        &mut self,
        backend: &mut dyn Backend,
        kernel: &dyn Kernel,
        opts: &Options,
        records: &mut [Record],
        spent: &mut StepTimes,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> bool {
        let launches: Vec<Launch> = self.launches.iter().map(|&(_, l)| l).collect();
        let n = launches.len();
        let mut measured = spent
            .time("per config: hardware counters", n, || opts.on_gpu(|| backend.measure_counters(kernel, &launches)));
        // A window whose ranges came back short (once in about a dozen two-GPU sweeps on 2 x H200) is
        // measured again, once, before the counters are given up for the rest of the sweep.
        if matches!(measured, Err(Unavailable::Failed(_))) {
            measured = spent.time("per config: hardware counters", 0, || {
                opts.on_gpu(|| backend.measure_counters(kernel, &launches))
            });
        }
        let waited = std::mem::take(&mut self.launches);
        self.since = None;
        match measured {
            Ok(values) => {
                for ((i, _), values) in waited.iter().zip(values) {
                    let counted = measured_metrics(&opts.metrics, &values, backend.source());
                    let r = &mut records[*i];
                    r.metrics = merged(std::mem::take(&mut r.metrics), counted);
                }
                true
            }
            Err(why) => {
                on_event(Event::NoCounters(&why));
                false
            }
        }
    }
}

/// The requested metrics from the counters' values (in `counters_of` order).
fn measured_metrics(requested: &[Requested], values: &[f64], source: Source) -> Vec<Metric> {
    let order = m::counters_of(requested);
    requested
        .iter()
        .map(|r| {
            let mine: Vec<f64> =
                r.counters.iter().map(|c| order.iter().position(|o| o == c).map_or(f64::NAN, |i| values[i])).collect();
            Metric { name: r.name.clone(), value: r.value(&mine), unit: r.unit.clone(), source }
        })
        .collect()
}

/// A record's metrics: the derived ones, then the counters'. A name from both with one source (on the
/// mock, where all are `mock`) keeps the counters' value.
fn merged(mut derived: Vec<Metric>, mut counted: Vec<Metric>) -> Vec<Metric> {
    derived.retain(|d| !counted.iter().any(|c| c.name == d.name && c.source == d.source));
    derived.append(&mut counted);
    derived
}

/// Seconds spent per step: set-up steps reported as they end, per-configuration steps summed over the
/// configurations and reported at the end (shown with `--verbose`).
#[derive(Default)]
struct StepTimes(Vec<Phase>);

impl StepTimes {
    /// Runs `f`, adding its duration to `name` for `configs` configurations (0: a set-up step).
    fn time<T>(&mut self, name: &'static str, configs: usize, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.add(name, t.elapsed().as_secs_f64(), configs);
        out
    }

    /// Adds `secs` to `name`, spent on `configs` configurations (0: a set-up step).
    fn add(&mut self, name: &'static str, secs: f64, configs: usize) {
        let configs = (configs > 0).then_some(configs);
        match self.0.iter_mut().find(|p| p.name == name) {
            Some(p) => {
                p.secs += secs;
                p.configs = p.configs.map(|n| n + configs.unwrap_or(0)).or(configs);
            }
            None => self.0.push(Phase { name, secs, configs }),
        }
    }

    /// Hands the set-up steps recorded so far to `on_event` and forgets them.
    fn report_set_up(&mut self, on_event: &mut dyn FnMut(Event<'_>)) {
        let (set_up, rest) = std::mem::take(&mut self.0).into_iter().partition(|p| p.configs.is_none());
        self.0 = rest;
        for p in set_up {
            on_event(Event::Phase(p));
        }
    }

    /// Every step recorded since the last [`StepTimes::report_set_up`].
    fn per_config(self) -> Vec<Phase> {
        self.0
    }
}

/// Fails before anything is allocated when the problem cannot fit: on the device (its buffers) or on
/// the host (the inputs, the CPU reference and the host copy of the outputs).
fn check_memory(backend: &dyn Backend, kernel: &dyn Kernel) -> Result<()> {
    let buffers = kernel.buffers();
    let bytes = |role: Option<kernels::Role>| -> u64 {
        buffers.iter().filter(|b| role.is_none_or(|r| b.role == r)).map(|b| b.len as u64 * 4).sum()
    };
    let (device, host) = (bytes(None), bytes(None) + bytes(Some(kernels::Role::Output)));
    let what = format!("{} {}", kernel.entry(), kernel.problem());
    capacity::check(backend, &what, device, host, "inputs, CPU reference, outputs")
}

/// A problem set up on one device, what its configurations share: where outputs are compared, the copy
/// yardstick, the calibration and the counters.
struct SetUp {
    compare_on: CompareOn,
    memcpy: Metric,
    /// The device's calibration (with `--model`), or `None` for the database's figures.
    figures: Option<Figures>,
    /// Replay passes of the hardware counters, or why they cannot be measured (`None`: none asked for).
    counters: Option<std::result::Result<usize, Unavailable>>,
}

impl SetUp {
    /// The CPU draws the inputs and computes the reference while the GPU allocates its buffers and
    /// generates the same inputs; then a sample of them is checked, the reference handed to the
    /// backend (to the device, where outputs are compared) and the copy yardstick measured.
    ///
    /// The host's inputs and reference are made once for every device, shared, and usually ready before
    /// this starts: a session begins them while its devices open ([`Handout::prepare`]); else the first
    /// device thread to need them makes them (the others upload meanwhile and then wait for them).
    fn of(
        backend: &mut dyn Backend,
        kernel: &dyn Kernel,
        handout: &Handout,
        opts: &Options,
        spent: &mut StepTimes,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<Self> {
        check_memory(backend, kernel)?;
        let start = Instant::now();
        let (host, uploaded) = std::thread::scope(|s| {
            // Usually made already, while the device opened (`Handout::prepare`).
            let cpu = s.spawn(|| handout.host(|| host_set_up(kernel, opts.seed)));
            let uploaded = backend.upload(kernel, opts.seed);
            // The profiler's set-up (a tenth of a second with its availability image cached, a quarter
            // without) while the host may still draw the inputs.
            let counters = (uploaded.is_ok() && !opts.metrics.is_empty()).then(|| {
                let counters = m::counters_of(&opts.metrics);
                let t = Instant::now();
                let on = backend.enable_counters(&counters, opts.counter_window.max(1));
                (on, t.elapsed().as_secs_f64())
            });
            (cpu.join().expect("input generation does not panic"), (uploaded, counters))
        });
        let (uploaded, counters) = uploaded;
        uploaded?;
        let counters = counters.map(|(on, secs)| {
            spent.add("set-up: hardware counters (CUPTI)", secs, 0);
            on
        });
        spent.add("set-up: inputs and CPU reference (host, in parallel)", host.secs, 0);
        spent.add("set-up: device buffers and inputs (GPU, in parallel)", start.elapsed().as_secs_f64(), 0);
        let compare_on = spent.time("set-up: inputs checked, reference handed over", 0, || {
            backend.check_inputs(kernel, &host.inputs, &host.reference)
        });
        let memcpy = compare_on.and_then(|compare_on| {
            let memcpy = spent.time("set-up: memcpy baseline", 0, || copy_yardstick(backend, opts))?;
            Ok((compare_on, memcpy))
        });
        // The host's copy is let go once every device has checked (or failed to), after the copy
        // yardstick: returning gigabytes of pages holds the process's memory map, which stalled the
        // yardstick's allocations by up to 0.18 s on an H200 machine.
        handout.checked(host);
        let (compare_on, memcpy) = memcpy?;
        // The model's figures for this device: its calibration (cached per device), measured at the
        // start of the first sweep that asks for predictions.
        let figures = if opts.model {
            let c = spent
                .time("set-up: calibration (or its cache)", 0, || crate::gpu::calibrate::calibration(backend, false));
            match c {
                Ok(c) => Some(c.figures),
                Err(e) => {
                    on_event(Event::Warning(format!(
                        "calibration failed ({e}): the model uses the database's figures for this arch"
                    )));
                    None
                }
            }
        } else {
            None
        };
        spent.report_set_up(on_event);
        Ok(SetUp { compare_on, memcpy, figures, counters })
    }
}

/// The host's half of a problem's set-up: the inputs drawn from `seed` (as the device draws them) and
/// the CPU reference computed from them.
pub fn host_set_up(kernel: &dyn Kernel, seed: u64) -> Host {
    let t = Instant::now();
    let inputs = kernels::random_inputs(kernel, seed);
    let reference = std::sync::Arc::new(kernel.reference(&inputs));
    Host { inputs, reference, secs: t.elapsed().as_secs_f64() }
}

fn invalid_record(kernel: &dyn Kernel, p: &Planned, reason: String) -> Record {
    Record::invalid(kernel.entry(), &kernel.problem(), p.launch.grid, p.launch.block, reason)
}

/// One configuration: poison, launch, compare every output element with the reference (on the GPU
/// where it fits), then the timed launches (unless the sweep interleaves: then they come later).
fn measure(
    backend: &mut dyn Backend,
    kernel: &dyn Kernel,
    prob: &SetUp,
    p: &Planned,
    opts: &Options,
    spent: &mut StepTimes,
) -> Result<Record> {
    let launch = p.launch;
    opts.next_config();
    let (verification, took) = match opts.on_gpu(|| backend.launch_verified(kernel, &launch)) {
        Err(Error::LaunchRejected(reason)) => return Ok(invalid_record(kernel, p, reason)),
        other => other?,
    };
    spent.add("per config: poison and verified launch", took.launch, 1);
    let (compare, copy_back) = match prob.compare_on {
        CompareOn::Device => ("per config: compare every element (GPU)", "per config: copy back the tally"),
        CompareOn::Host => ("per config: compare every element (host)", "per config: copy back the outputs"),
    };
    spent.add(compare, took.compare, 1);
    spent.add(copy_back, took.copy_back, 1);
    let (times, conditions) = match opts.interleave {
        true => (Vec::new(), None),
        false => spent.time("per config: warm-up and timed launches", 1, || {
            time_config(backend, kernel, &launch, opts, opts.warmup.saturating_sub(1))
        })?,
    };
    let passed = verification.passed();
    let status = if passed { Status::Ok } else { Status::Failed };
    let mut record = Record {
        reason: (!passed).then(|| format!("verification failed: {}", verification.summary())),
        verification: Some(verification),
        device: Some(backend.info().ordinal),
        conditions,
        ..Record::new(kernel.entry(), &kernel.problem(), launch.grid, launch.block, status)
    };
    if !opts.interleave {
        fill_time_and_metrics(backend, kernel, prob, &launch, &mut record, &times, opts, spent)?;
    }
    Ok(record)
}

/// Times one configuration: `opts.iters` launches after `warmup`, or with `--until-noise` batches of
/// them until the spread is small enough (within its caps), each batch on the busy clock.
fn time_config(
    backend: &mut dyn Backend,
    kernel: &dyn Kernel,
    launch: &Launch,
    opts: &Options,
    warmup: u32,
) -> Result<(Vec<f64>, Option<Conditions>)> {
    timed(opts, warmup, |warmup, iters| {
        let samples = backend.time(kernel, launch, warmup, iters, opts.cold)?;
        Ok((samples, backend.last_conditions()))
    })
}

/// The timing rule of every sweep: `batch(warmup, iters)` times `iters` launches after `warmup`
/// untimed ones (and says the conditions it saw); called once with `opts.iters`, or with
/// `--until-noise` in batches of `min_iters` until the IQR is at most `pct` % of the median, or
/// `max_iters` launches, or `max_secs` seconds, or a stop signal.
pub fn timed(
    opts: &Options,
    warmup: u32,
    mut batch: impl FnMut(u32, u32) -> Result<(Vec<f64>, Option<Conditions>)>,
) -> Result<(Vec<f64>, Option<Conditions>)> {
    let Some(n) = opts.until_noise else {
        return opts.on_gpu(|| batch(warmup, opts.iters));
    };
    let start = Instant::now();
    let (mut samples, mut seen) = opts.on_gpu(|| batch(warmup, n.min_iters))?;
    while (samples.len() as u32) < n.max_iters && start.elapsed().as_secs_f64() < n.max_secs && !interrupted() {
        if TimeStats::from_samples(&samples).is_some_and(|t| t.iqr_pct() <= n.pct) {
            break;
        }
        let more = n.min_iters.min(n.max_iters - samples.len() as u32);
        let (again, saw) = opts.on_gpu(|| batch(0, more))?;
        samples.extend(again);
        seen = Conditions::merge(seen, saw);
    }
    Ok((samples, seen))
}

/// Times the `pending` configurations round-robin: [`INTERLEAVE_ROUNDS`] slices of the iterations each,
/// so that drift (clocks, temperature) spreads over all of them instead of favouring the first.
fn interleaved(
    backend: &mut dyn Backend,
    kernel: &dyn Kernel,
    pending: &[(usize, Launch)],
    opts: &Options,
    spent: &mut StepTimes,
) -> Result<Vec<(Vec<f64>, Option<Conditions>)>> {
    let rounds = INTERLEAVE_ROUNDS.min(opts.iters);
    let mut samples = vec![(Vec::new(), None); pending.len()];
    for round in 0..rounds {
        if interrupted() {
            break;
        }
        let iters = opts.iters / rounds + u32::from(round < opts.iters % rounds);
        for ((_, launch), s) in pending.iter().zip(samples.iter_mut()) {
            // Each slice re-warms the configuration it switches to.
            let warmup = if round == 0 { opts.warmup } else { opts.warmup.min(1) };
            opts.next_config();
            let t = spent.time("per config: warm-up and timed launches", usize::from(round == 0), || {
                opts.on_gpu(|| backend.time(kernel, launch, warmup, iters, opts.cold))
            })?;
            s.0.extend(t);
            s.1 = Conditions::merge(s.1.take(), backend.last_conditions());
        }
    }
    Ok(samples)
}

/// Fills a verified record's time and the metrics derived from it (the counters' stay after them).
#[allow(clippy::too_many_arguments)]
fn fill_time_and_metrics(
    backend: &mut dyn Backend,
    kernel: &dyn Kernel,
    prob: &SetUp,
    launch: &Launch,
    record: &mut Record,
    samples: &[f64],
    opts: &Options,
    spent: &mut StepTimes,
) -> Result<()> {
    record.time_ms = TimeStats::from_samples(samples);
    let active_blocks = backend.max_active_blocks(launch.block.volume() as u32, launch.dynamic_smem)?;
    let (metrics, bound) = spent.time("per config: models", 1, || match &record.time_ms {
        Some(t) => {
            timed_metrics(backend, kernel, launch, t.median, active_blocks, &prob.memcpy, prob.figures.as_ref(), opts)
        }
        None => (Vec::new(), None),
    });
    record.metrics = merged(metrics, std::mem::take(&mut record.metrics));
    record.bound = bound;
    Ok(())
}

/// The metrics of one measured configuration: effective bandwidth (measured) and the models'
/// occupancy and load metrics over the measured time (estimated).
#[allow(clippy::too_many_arguments)]
fn timed_metrics(
    backend: &dyn Backend,
    kernel: &dyn Kernel,
    launch: &Launch,
    median_ms: f64,
    active_blocks: u32,
    memcpy: &Metric,
    figures: Option<&Figures>,
    opts: &Options,
) -> (Vec<Metric>, Option<String>) {
    let (with_model, requested) = (opts.model, &opts.metrics);
    let info = backend.info();
    let measured = backend.source();
    // The models' values are estimates; on the mock backend every value is marked `mock`, so that no
    // figure of a mock run can pass for a real one.
    let estimated = if measured == Source::Mock { Source::Mock } else { Source::Estimated };
    let target = device_target(info, memcpy.value, figures);
    let ev = model::evaluate(&target, kernel, launch, active_blocks, Some(median_ms));
    let work = kernel.work();
    let eff = m::eff_bandwidth_gbs(work.bytes_read + work.bytes_written, median_ms);
    let metric =
        |name: &str, value: f64, unit: &str, source| Metric { name: name.into(), value, unit: unit.into(), source };
    let mut out = vec![
        metric(m::EFF_BANDWIDTH, eff, GBPS, measured),
        metric(m::PCT_OF_MEMCPY, 100.0 * eff / memcpy.value, PCT, measured),
    ];
    out.extend(model_metrics(&ev, median_ms, requested, estimated, with_model));
    (out, with_model.then(|| ev.prediction.bound.as_str().to_string()))
}

/// The model's metrics of a configuration measured at `median_ms`: with `with_time`, its predicted time
/// and error; and its estimate of the sweep's default metrics (the model gives no eff_bandwidth or
/// pct_of_memcpy: those are measured) and of every metric `requested` of the counters, so that the two
/// stand side by side.
pub fn model_metrics(
    ev: &model::Evaluation,
    median_ms: f64,
    requested: &[Requested],
    estimated: Source,
    with_time: bool,
) -> Vec<Metric> {
    let metric =
        |name: &str, value: f64, unit: &str| Metric { name: name.into(), value, unit: unit.into(), source: estimated };
    let mut out = Vec::new();
    if with_time {
        let predicted = ev.prediction.time_ms;
        out.push(metric(m::PREDICTED_TIME, predicted, MS));
        out.push(metric(m::MODEL_ERROR, 100.0 * (predicted - median_ms) / median_ms, PCT));
    }
    let wanted = |n: &str| m::DEFAULT_SWEEP.contains(&n) || requested.iter().any(|r| r.name == n);
    out.extend(ev.metrics(median_ms, estimated).into_iter().filter(|x| wanted(&x.name) && x.name != m::PREDICTED_TIME));
    out
}

/// The device-to-device copy bandwidth, the yardstick records are compared with (`pct_of_memcpy`).
pub fn copy_yardstick(backend: &mut dyn Backend, opts: &Options) -> Result<Metric> {
    let (bytes, times) = backend.memcpy(opts.warmup.max(1), opts.iters.max(5))?;
    let t = TimeStats::from_samples(&times).ok_or_else(|| Error::Output("memcpy produced no timing".into()))?;
    Ok(Metric {
        name: "memcpy_dtod".into(),
        value: 2.0 * bytes as f64 / (t.median * 1e-3) / 1e9,
        unit: GBPS.into(),
        source: backend.source(),
    })
}

/// Each planned configuration's predicted time on this device (0 for an invalid one), to hand the
/// longest out first; `None` where the device's bandwidth is not known.
fn predicted_ms(info: &DeviceInfo, kernel: &dyn Kernel, attrs: &KernelAttrs, planned: &[Planned]) -> Option<Vec<f64>> {
    let target = device_target(info, info.peak_bandwidth_gbs?, None);
    let time = |p: &Planned| {
        let occ = crate::estimate::occupancy_of(&target, attrs, &p.launch);
        match (&p.invalid, occ.reason) {
            (None, None) => {
                model::evaluate(&target, kernel, &p.launch, occ.active_blocks_per_sm, None).prediction.time_ms
            }
            _ => 0.0,
        }
    };
    Some(planned.iter().map(time).collect())
}

/// The measured device as a target of the models: its SMs and clock, its calibration (else the
/// database's figures for its arch), and the copy bandwidth measured in this run.
pub fn device_target(info: &DeviceInfo, memcpy_gbs: f64, calibrated: Option<&Figures>) -> Target {
    let arch = arch::nearest(info.cc());
    let clock_mhz = info.sm_clock_mhz.unwrap_or(1500);
    let mut figures = calibrated.cloned().unwrap_or_else(|| Figures::of_arch(arch, clock_mhz, memcpy_gbs));
    figures.copy_gbs = memcpy_gbs;
    let l2_bytes = info.l2_bytes.unwrap_or(0);
    Target { name: info.name.clone(), arch, sms: info.sms.unwrap_or(0), clock_mhz, l2_bytes, figures }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::MockBackend;
    use crate::kernels::SumMatrix;

    #[test]
    fn until_noise_times_in_batches_until_the_spread_is_small_or_a_cap_is_reached() {
        let noise = Noise { pct: 5.0, min_iters: 4, max_iters: 20, max_secs: 60.0 };
        let opts = Options { until_noise: Some(noise), ..Options::default() };
        // Two noisy batches, then tight ones: the spread is judged over all samples, which the noisy
        // ones keep above 5 % of the median, so the batches go on to the cap of 20 launches.
        let mut calls = Vec::new();
        let (samples, _) = timed(&opts, 2, |warmup, iters| {
            calls.push((warmup, iters));
            let spread = if calls.len() <= 2 { [1.0, 2.0, 1.5, 1.0] } else { [1.5, 1.5, 1.5, 1.5] };
            Ok((spread[..iters as usize].to_vec(), None))
        })
        .unwrap();
        // Warm-up only before the first batch.
        assert_eq!(calls, [(2, 4), (0, 4), (0, 4), (0, 4), (0, 4)]);
        assert_eq!(samples.len(), 20);
        // Tight from the start: one batch.
        let mut n = 0;
        let (samples, _) = timed(&opts, 0, |_, iters| {
            n += 1;
            Ok((vec![1.0; iters as usize], None))
        })
        .unwrap();
        assert_eq!((n, samples.len()), (1, 4));
        // Without --until-noise: one call of --iters.
        let fixed = Options { iters: 7, ..Options::default() };
        let (samples, _) = timed(&fixed, 3, |warmup, iters| {
            assert_eq!((warmup, iters), (3, 7));
            Ok((vec![1.0; iters as usize], None))
        })
        .unwrap();
        assert_eq!(samples.len(), 7);
    }

    #[test]
    fn mock_sweep_end_to_end() {
        let mut b = MockBackend::new(0).unwrap();
        let k = SumMatrix::new(300, 200).unwrap();
        let blocks = crate::spec::blocks_from(Some("32x16,16x16,2048x1"), None, None, None).unwrap();
        let mut seen = Vec::new();
        let r = run(
            &mut b,
            &k,
            &blocks,
            &Options { warmup: 1, iters: 3, seed: 1, model: true, ..Default::default() },
            &mut |e| {
                if let Event::Record(r) = e {
                    seen.push(r.status);
                }
            },
        )
        .unwrap();
        assert_eq!(seen, vec![Status::Ok, Status::Ok, Status::Invalid]);
        let ok = &r.records[0];
        assert_eq!(ok.grid, Some(Dim3::new(10, 13, 1)));
        assert_eq!(ok.verification.as_ref().unwrap().checked, 60_000);
        for m in &ok.metrics {
            let model = [
                m::THEORETICAL_OCCUPANCY,
                m::ACHIEVED_OCCUPANCY,
                m::GLD_THROUGHPUT,
                m::GLD_EFFICIENCY,
                m::PREDICTED_TIME,
                m::MODEL_ERROR,
            ];
            assert!(
                model.contains(&m.name.as_str()) || [m::EFF_BANDWIDTH, m::PCT_OF_MEMCPY].contains(&m.name.as_str())
            );
            assert_eq!(m.source, Source::Mock, "{}: every value of a mock run is marked mock", m.name);
        }
        assert_eq!(ok.time_ms.as_ref().unwrap().iters, 3);
        assert!(r.baselines.memcpy_dtod_gbs.is_some());
        assert_eq!(
            r.records[2].reason.as_deref(),
            Some("invalid configuration: 2048 threads per block > 1024 (device limit)")
        );
    }

    #[test]
    fn measured_counters_stand_beside_the_models_estimates() {
        // What a real GPU's run looks like (the mock posing as one): each metric measured by counters
        // comes with the model's value for it, one `measured` and one `estimated`, in every format.
        let mut b = MockBackend::new(0).unwrap().posing_as_real();
        let k = SumMatrix::new(256, 256).unwrap();
        let blocks = crate::spec::blocks_from(Some("32x16,16x16"), None, None, None).unwrap();
        let metrics = m::parse_requested("achieved_occupancy,gld_efficiency,dram_read_throughput").unwrap();
        let opts = Options { warmup: 1, iters: 3, seed: 1, metrics, ..Default::default() };
        let r = run(&mut b, &k, &blocks, &opts, &mut |_| {}).unwrap();
        for rec in &r.records {
            let sources =
                |name: &str| rec.metrics.iter().filter(|x| x.name == name).map(|x| x.source).collect::<Vec<_>>();
            assert_eq!(sources(m::ACHIEVED_OCCUPANCY), [Source::Estimated, Source::Measured]);
            assert_eq!(sources(m::GLD_EFFICIENCY), [Source::Estimated, Source::Measured]);
            assert_eq!(sources(m::EFF_BANDWIDTH), [Source::Measured]);
        }
        let mut table = Vec::new();
        crate::report::write(&r, crate::report::Format::Table, &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(table.contains("(%, measured)") && table.contains("(%, est)"), "{table}");
    }

    #[test]
    fn counters_measured_in_windows_land_in_their_own_records_in_order() {
        let k = SumMatrix::new(256, 256).unwrap();
        let blocks =
            crate::spec::blocks_from(Some("32x16,16x16,2048x1,64x4,128x2,256x1,32x8"), None, None, None).unwrap();
        let metrics = m::parse_requested("achieved_occupancy,gld_efficiency").unwrap();
        let sweep = |window| {
            let mut b = MockBackend::new(0).unwrap().posing_as_real();
            let (mut seen, mut counted) = (Vec::new(), None);
            let opts = Options {
                warmup: 1,
                iters: 3,
                seed: 1,
                metrics: metrics.clone(),
                counter_window: window,
                ..Default::default()
            };
            let r = run(&mut b, &k, &blocks, &opts, &mut |e| match e {
                Event::Record(r) => seen.push(r.clone()),
                Event::Phase(p) if p.name == "per config: hardware counters" => counted = p.configs,
                _ => {}
            })
            .unwrap();
            (r, seen, counted)
        };
        let (alone, _, _) = sweep(1);
        for window in [1, 3, 32] {
            let (r, seen, counted) = sweep(window);
            assert_eq!(seen, r.records, "window {window}: every record handed out once, in order");
            assert_eq!(counted, Some(6), "window {window}: the six valid configurations");
            for (rec, solo) in r.records.iter().zip(&alone.records) {
                let measured: Vec<_> = rec.metrics.iter().filter(|x| x.source == Source::Measured).collect();
                match rec.status {
                    Status::Ok => assert_eq!(measured.len(), 4, "{rec:?}"),
                    _ => assert!(rec.metrics.is_empty()),
                }
                assert_eq!(rec.metrics, solo.metrics, "window {window}: the same values as one at a time");
            }
        }
    }

    #[test]
    fn a_failed_counter_window_is_measured_again_once_before_counters_are_given_up() {
        let k = SumMatrix::new(256, 256).unwrap();
        let blocks = crate::spec::blocks_from(Some("32x16,16x16,64x4"), None, None, None).unwrap();
        let metrics = m::parse_requested("achieved_occupancy").unwrap();
        let opts = Options { warmup: 1, iters: 3, seed: 1, metrics, counter_window: 1, ..Default::default() };
        let sweep = |failing| {
            let mut b = MockBackend::new(0).unwrap().posing_as_real().failing_measurements(failing);
            let mut gave_up = 0;
            let r = run(&mut b, &k, &blocks, &opts, &mut |e| gave_up += usize::from(matches!(e, Event::NoCounters(_))))
                .unwrap();
            let measured = |rec: &Record| {
                rec.metrics.iter().any(|x| x.name == m::ACHIEVED_OCCUPANCY && x.source == Source::Measured)
            };
            (r.records.iter().filter(|r| measured(r)).count(), gave_up)
        };
        assert_eq!(sweep(0), (3, 0));
        // One failure: the retry measures the window; nothing is lost.
        assert_eq!(sweep(1), (3, 0));
        // Two in a row: said once, and the rest of the sweep shows estimates.
        assert_eq!(sweep(2), (0, 1));
    }

    #[test]
    fn several_devices_are_handed_the_longest_configurations_first() {
        let mut b = MockBackend::new(0).unwrap();
        let k = SumMatrix::new(1 << 12, 1 << 11).unwrap();
        let blocks = crate::spec::blocks_from(None, Some("32,1024,2048,64,4"), Some("1"), None).unwrap();
        let list: Vec<(u32, Dim3)> = (0u32..).zip(blocks.iter().copied()).collect();
        // One thread of two: it takes everything, in the hand-out order.
        let handout = Handout::new(list, 2);
        let opts = Options { warmup: 1, iters: 2, seed: 1, model: true, ..Default::default() };
        let r = run_indexed(&mut b, &k, &handout, 5, &opts, &mut |_| {}).unwrap();
        let predicted: Vec<f64> =
            r.records.iter().map(|r| r.metric(m::PREDICTED_TIME).map_or(0.0, |x| x.value)).collect();
        assert!(predicted.windows(2).all(|w| w[0] >= w[1]), "{predicted:?}");
        // The invalid shape comes last, and a slow narrow shape (4 threads) before the wide ones.
        let order: Vec<u32> = r.records.iter().map(|r| r.index.unwrap()).collect();
        assert_eq!((order[0], order[4]), (4, 2), "{order:?}");
        assert_eq!(handout.host_made(), 1);
    }

    #[test]
    fn with_other_devices_a_window_is_measured_once_it_holds_what_is_left() {
        let mut w = Waiting::default();
        assert!(!w.due(32, Some(0)), "nothing waits");
        let launch = Launch { grid: Dim3::new(1, 1, 1), block: Dim3::new(32, 1, 1), dynamic_smem: 0 };
        (0..5).for_each(|i| w.push(i, launch));
        assert!(!w.due(32, None), "one device: the window fills first");
        assert!(!w.due(32, Some(6)));
        assert!(w.due(32, Some(5)));
        assert!(w.due(32, Some(0)));
        assert!(w.due(5, None));
    }

    #[test]
    fn zero_iterations_is_a_usage_error() {
        let mut b = MockBackend::new(0).unwrap();
        let k = SumMatrix::new(64, 64).unwrap();
        let e = run(
            &mut b,
            &k,
            &[Dim3::new(32, 1, 1)],
            &Options { warmup: 0, iters: 0, ..Default::default() },
            &mut |_| {},
        )
        .unwrap_err();
        assert!(matches!(e, Error::Input { input: Input::Iters, .. }), "{e}");
        assert_eq!(e.named_by(|_| "--iters").to_string(), "--iters: must be at least 1");
    }
}
