//! The one record type: a configuration's identity, status, timing and metrics, each value carrying
//! its source. The GPU backend, the mock and the offline model all produce it; every output format reads it.

use serde::{Deserialize, Serialize};

use crate::gpu::DeviceInfo;
use crate::spec::Dim3;

/// Version of the JSON layout below; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Milliseconds.
pub type Millis = f64;

/// Outcome of one configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Launched, verified, timed.
    Ok,
    /// Rejected before launch (the reason says why); the sweep went on.
    Invalid,
    /// Launched but the output did not match the CPU reference, or the launch failed.
    Failed,
}

impl Status {
    /// The lowercase name used in every output.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Invalid => "invalid",
            Status::Failed => "failed",
        }
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Measured on the GPU (CUDA events, hardware counters, or exact counts over a measured time).
    Measured,
    /// Computed by warpscope's analytical model.
    Estimated,
    /// Produced by the mock backend (tests and CI): neither measured nor a real estimate.
    Mock,
    /// Read from another tool's output (ncu, nvprof).
    Imported,
}

impl Source {
    /// The lowercase name used in every output.
    pub fn as_str(&self) -> &'static str {
        match self {
            Source::Measured => "measured",
            Source::Estimated => "estimated",
            Source::Mock => "mock",
            Source::Imported => "imported",
        }
    }
}

/// One metric value: nvprof-style name, value, unit and source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// nvprof name where one exists (`achieved_occupancy`), else warpscope's own (`eff_bandwidth`).
    pub name: String,
    /// The value in `unit`.
    pub value: f64,
    /// `GB/s`, `%`, `ratio` (0-1), `ms`, `count`, ...
    pub unit: String,
    /// Measured, estimated, mock or imported.
    pub source: Source,
}

/// Kernel time over the timed iterations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeStats {
    /// Median of the per-iteration times.
    pub median: Millis,
    /// Fastest iteration.
    pub min: Millis,
    /// Slowest iteration.
    pub max: Millis,
    /// Number of timed iterations.
    #[serde(default)]
    pub iters: usize,
    /// Mean of the per-iteration times.
    #[serde(default)]
    pub mean: Millis,
    /// Sample standard deviation (0 for one iteration).
    #[serde(default)]
    pub stdev: Millis,
    /// First quartile (linear interpolation between order statistics).
    #[serde(default)]
    pub q1: Millis,
    /// Third quartile.
    #[serde(default)]
    pub q3: Millis,
    /// Every timed iteration, in launch order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<Millis>,
}

impl TimeStats {
    /// Summary of per-iteration samples (kept in the record); `None` when there are none.
    pub fn from_samples(samples: &[f64]) -> Option<Self> {
        if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
            return None;
        }
        let mut v = samples.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let quantile = |q: f64| crate::stats::quantile_sorted(&v, q);
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 { v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
        Some(TimeStats {
            median: quantile(0.5),
            min: v[0],
            max: v[n - 1],
            iters: n,
            mean,
            stdev: var.sqrt(),
            q1: quantile(0.25),
            q3: quantile(0.75),
            samples: samples.to_vec(),
        })
    }

    /// Interquartile range relative to the median, percent: the spread `--until-noise` and `compare
    /// --baseline` judge by.
    pub fn iqr_pct(&self) -> f64 {
        if self.median > 0.0 { 100.0 * (self.q3 - self.q1) / self.median } else { 0.0 }
    }
}

/// What the comparison against the CPU reference found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    /// Elements compared.
    pub checked: u64,
    /// Elements outside the tolerance (NaN counts: the output was poisoned with NaN before the launch).
    pub mismatches: u64,
    /// Largest |gpu - cpu| over the finite elements.
    pub max_abs_error: f64,
    /// The first mismatch, for the error message.
    pub first_mismatch: Option<Mismatch>,
}

/// One element that did not match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Output buffer name.
    pub buffer: String,
    /// Element index in that buffer.
    pub index: u64,
    /// What the GPU wrote (NaN: never written).
    pub got: f32,
    /// What the CPU reference says.
    pub expected: f32,
}

impl Verification {
    /// Whether every element matched.
    pub fn passed(&self) -> bool {
        self.mismatches == 0 && self.checked > 0
    }

    /// One-line summary for tables and errors.
    pub fn summary(&self) -> String {
        match &self.first_mismatch {
            None => format!("{} elements match", self.checked),
            Some(m) => format!(
                "{} of {} elements differ; first {}[{}] = {} (expected {})",
                self.mismatches, self.checked, m.buffer, m.index, m.got, m.expected
            ),
        }
    }
}

/// What the GPU's clocks, temperature and power did while a configuration was timed (NVML, sampled
/// every few milliseconds on another thread).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Conditions {
    /// NVML samples taken.
    pub samples: u32,
    /// Lowest and highest SM clock seen, MHz.
    pub sm_clock_mhz: Option<[u32; 2]>,
    /// Lowest memory clock seen, MHz.
    pub mem_clock_mhz: Option<u32>,
    /// Highest GPU temperature, degrees C.
    pub temperature_c: Option<u32>,
    /// Highest power draw, W.
    pub power_w: Option<f64>,
    /// Performance-limiting throttle reasons seen (`sw_power_cap`, `hw_slowdown`, `sw_thermal`,
    /// `hw_thermal`, `hw_power_brake`); idle and clock-setting reasons are not throttling.
    pub throttle: Vec<String>,
}

impl Conditions {
    /// Whether any sample saw the clocks held down.
    pub fn throttled(&self) -> bool {
        !self.throttle.is_empty()
    }

    /// Both observations as one (extremes and reasons of either).
    pub fn merge(a: Option<Conditions>, b: Option<Conditions>) -> Option<Conditions> {
        let (Some(mut a), Some(b)) = (a.clone(), b.clone()) else { return a.or(b) };
        fn pick<T: Copy>(x: Option<T>, y: Option<T>, f: impl Fn(T, T) -> T) -> Option<T> {
            match (x, y) {
                (Some(x), Some(y)) => Some(f(x, y)),
                (x, y) => x.or(y),
            }
        }
        a.samples += b.samples;
        a.sm_clock_mhz = pick(a.sm_clock_mhz, b.sm_clock_mhz, |[l1, h1], [l2, h2]| [l1.min(l2), h1.max(h2)]);
        a.mem_clock_mhz = pick(a.mem_clock_mhz, b.mem_clock_mhz, u32::min);
        a.temperature_c = pick(a.temperature_c, b.temperature_c, u32::max);
        a.power_w = pick(a.power_w, b.power_w, f64::max);
        for t in b.throttle {
            if !a.throttle.contains(&t) {
                a.throttle.push(t);
            }
        }
        Some(a)
    }
}

/// One configuration of one kernel on one problem.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Kernel entry name, as profilers print it (`sumMatrixOnGPU2D`).
    pub kernel: String,
    /// Problem size, e.g. `16384x16384`.
    #[serde(default)]
    pub problem: String,
    /// Grid in blocks; `null` when the source does not say (another profiler's summary rows).
    pub grid: Option<Dim3>,
    /// Block in threads; `null` when the source does not say.
    pub block: Option<Dim3>,
    /// A kernel file's compile-time parameters of this configuration (`{"tile_x": 2}`); absent for
    /// built-in kernels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<std::collections::BTreeMap<String, serde_json::Value>>,
    /// ok, invalid or failed.
    pub status: Status,
    /// Why a config is invalid or failed; `null` when ok.
    pub reason: Option<String>,
    /// Median, min and max kernel time; `null` when not run.
    pub time_ms: Option<TimeStats>,
    /// Metrics in catalogue order, each with its source.
    pub metrics: Vec<Metric>,
    /// The check against the CPU reference; `null` when not run.
    #[serde(default)]
    pub verification: Option<Verification>,
    /// Device ordinal the config ran on; `null` for estimates.
    #[serde(default)]
    pub device: Option<u32>,
    /// What limits the configuration according to the time model (`bandwidth`, `latency`,
    /// `block_issue`, `compute`), where the model ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<String>,
    /// Clocks, temperature, power and throttling while it was timed, where NVML could say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// Position of the configuration in its sweep's block list (kept through `--devices`, `--shard`
    /// and `merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// The kernel's full name as the profiler printed it, demangled (`void transpose<32>(float
    /// const*, float*)`), where it says more than `kernel`: imported records and `warpscope nvprof`'s
    /// (whose `kernel` is the short name, `transpose`). `null` when `kernel` is all there is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Which launch of its kernel (same `signature`, else same `kernel`) in its file or process the
    /// record is, counted from 0 in launch order. nvprof's `--kernels ::NAME:N` counts from 1 (its N
    /// is `invocation + 1`). `null` on summary rows, copies, sets and sweep configurations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<u32>,
    /// On a summary row (nvprof's summary and `--metrics` tables): how many launches it aggregates;
    /// its values are the tool's averages over them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_of: Option<u64>,
    /// Configurations in the whole sweep the record belongs to: with `index`, what `merge` checks the
    /// slices of a sweep against (a missing slice leaves indices unaccounted for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_size: Option<u32>,
    /// Where and when it ran in a profiled program (`warpscope nvprof`): process, stream, start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
}

/// What a GPU activity of a profiled program was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActivityKind {
    /// A kernel launch.
    #[default]
    Kernel,
    /// A memory copy.
    Memcpy,
    /// A memory set.
    Memset,
}

impl ActivityKind {
    /// The name JSON and CSV give it: `kernel`, `memcpy`, `memset`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ActivityKind::Kernel => "kernel",
            ActivityKind::Memcpy => "memcpy",
            ActivityKind::Memset => "memset",
        }
    }
}

/// One GPU activity of a program profiled from outside (`warpscope nvprof`): what a profiler's GPU
/// trace shows beside the launch shape. Its name is the record's (`signature`, else `kernel`:
/// `[CUDA memcpy HtoD]` for a copy), which launch it was the record's `invocation`. Times are
/// nanoseconds; `None` where the activity was not traced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// Kernel, memcpy or memset.
    pub kind: ActivityKind,
    /// Process that issued it.
    pub pid: u32,
    /// Start, ns after the profiled application was launched.
    #[serde(default)]
    pub start_ns: Option<u64>,
    /// GPU duration, ns.
    #[serde(default)]
    pub duration_ns: Option<u64>,
    /// CUDA context (CUPTI's id, 1-based).
    pub context: u32,
    /// Stream (CUPTI's id).
    pub stream: u32,
    /// The API call's correlation id.
    pub correlation: u32,
    /// Registers per thread.
    #[serde(default)]
    pub registers: Option<u32>,
    /// Static shared memory per block, bytes.
    #[serde(default)]
    pub static_smem: Option<u32>,
    /// Dynamic shared memory per block, bytes.
    #[serde(default)]
    pub dynamic_smem: Option<u32>,
    /// Bytes copied or set.
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Source memory of a copy (`Pageable`, `Pinned`, `Device`, ...), or the memory a memset wrote.
    #[serde(default)]
    pub src_kind: Option<String>,
    /// Destination memory of a copy.
    #[serde(default)]
    pub dst_kind: Option<String>,
    /// A kernel's symbol as the driver knows it (mangled for C++: `_Z6vecAddIfEvPT_S1_S1_i`), where it
    /// differs from the demangled name: what nvprof's metric trace CSV prints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// CUPTI's id of the CUDA graph node that launched a kernel (the kernels of one graph launch share
    /// its correlation id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_node: Option<u64>,
}

impl Record {
    /// A configuration with nothing measured, estimated or checked yet; callers fill in the rest with
    /// struct-update syntax.
    pub fn new(kernel: &str, problem: &str, grid: Dim3, block: Dim3, status: Status) -> Self {
        Record { grid: Some(grid), block: Some(block), ..Record::unshaped(kernel, problem, status) }
    }

    /// A record whose launch shape is not known (another profiler's summary rows).
    pub fn unshaped(kernel: &str, problem: &str, status: Status) -> Self {
        Record {
            kernel: kernel.to_string(),
            problem: problem.to_string(),
            grid: None,
            block: None,
            params: None,
            status,
            reason: None,
            time_ms: None,
            metrics: Vec::new(),
            verification: None,
            device: None,
            bound: None,
            conditions: None,
            index: None,
            signature: None,
            invocation: None,
            summary_of: None,
            sweep_size: None,
            trace: None,
        }
    }

    /// A config rejected before launch.
    pub fn invalid(kernel: &str, problem: &str, grid: Dim3, block: Dim3, reason: String) -> Self {
        Record { reason: Some(reason), ..Record::new(kernel, problem, grid, block, Status::Invalid) }
    }

    /// The metric of that name, if present.
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The kernel's name as the profiler printed it: the full signature where there is one.
    pub fn full_name(&self) -> &str {
        self.signature.as_deref().unwrap_or(&self.kernel)
    }

    /// The parameters as `tile_x=2, tile_y=4` (empty without).
    pub fn params_label(&self) -> String {
        let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
        self.params.iter().flatten().map(|(k, v)| format!("{k}={}", text(v))).collect::<Vec<_>>().join(", ")
    }

    /// The launch shape, where known.
    pub fn shape(&self) -> Option<(Dim3, Dim3)> {
        self.grid.zip(self.block)
    }

    /// The course's one-line output per run (the launch line):
    /// `sumMatrixOnGPU2D <<<(512,1024), (32,16)>>> elapsed 1.094 ms`.
    pub fn launch_line(&self) -> String {
        let head = format!("{} <<<{}, {}>>>", self.kernel, paren(self.grid), paren(self.block));
        match (&self.status, &self.time_ms) {
            (Status::Ok, Some(t)) => format!("{head} elapsed {:.3} ms", t.median),
            (Status::Failed, Some(t)) => format!(
                "{head} elapsed {:.3} ms FAILED: {}",
                t.median,
                self.reason.as_deref().unwrap_or("verification failed")
            ),
            _ => format!("{head} {}", self.reason.as_deref().unwrap_or(self.status.as_str())),
        }
    }
}

/// A dim3 as `32x16`, `-` when unknown.
pub fn dims(d: Option<Dim3>) -> String {
    d.map(|d| d.to_string()).unwrap_or_else(|| "-".into())
}

/// A dim3 in the seed's notation, `-` when unknown.
pub fn paren(d: Option<Dim3>) -> String {
    d.map(|d| d.paren()).unwrap_or_else(|| "-".into())
}

/// Measurements that frame the records: the copy bandwidth the records are compared with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Baselines {
    /// Device-to-device cuMemcpy bandwidth, bytes read + written per second, in GB/s.
    pub memcpy_dtod_gbs: Option<Metric>,
    /// The time model's figures for the device (its calibration, `sweep --model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<crate::model::time::Figures>,
}

/// How a run timed its configurations (the report's `timing` object).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Untimed launches before timing.
    pub warmup: u32,
    /// Timed launches per configuration (the first batch, with `until_noise`).
    pub iters: u32,
    /// L2 flushed before every timed launch.
    #[serde(default)]
    pub cold: bool,
    /// Timing went on until the spread (IQR / median) fell under this percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_noise_pct: Option<f64>,
    /// Configurations were timed round-robin, a slice of iterations at a time.
    #[serde(default)]
    pub interleave: bool,
    /// The seed the inputs were drawn from (`--seed`): a kernel file's integer inputs, which its model
    /// reads, are drawn again from it (`model-check --kernel-file`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// A whole run: what every output format serializes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// `warpscope <version>`.
    #[serde(default)]
    pub tool: String,
    /// The device the records come from (or the modelled one).
    pub device: DeviceInfo,
    /// Reference measurements taken in the same run.
    #[serde(default)]
    pub baselines: Baselines,
    /// One record per configuration, in sweep order.
    pub records: Vec<Record>,
    /// How well the time model ranked and predicted the measured configurations (`sweep --model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_fit: Option<ModelFit>,
    /// How the records were timed (absent for estimates and imports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// Every device of a run spread over several (`--devices`, `merge`); each record names its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<DeviceInfo>,
}

/// The time model against the measurements of one sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelFit {
    /// Configurations with both a measured and a predicted time.
    pub configs: usize,
    /// Median of |predicted - measured| / measured, percent.
    pub median_abs_error_pct: f64,
    /// Spearman's rank correlation of predicted and measured times.
    pub spearman: Option<f64>,
    /// Measured time of the shape the model predicts fastest over the measured fastest, less one,
    /// percent (one kernel and problem in the sweep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regret_pct: Option<f64>,
}

impl ModelFit {
    /// The fit over every record carrying a measured time and a `predicted_time` metric.
    pub fn of(records: &[Record]) -> Option<Self> {
        let pairs: Vec<(f64, f64)> = records
            .iter()
            .filter_map(|r| Some((r.time_ms.as_ref()?.median, r.metric(crate::metrics::PREDICTED_TIME)?.value)))
            .collect();
        let errors: Vec<f64> = pairs.iter().map(|(m, p)| 100.0 * (p - m).abs() / m).collect();
        let (measured, predicted): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
        let predictions: Vec<Option<f64>> =
            records.iter().map(|r| r.metric(crate::metrics::PREDICTED_TIME).map(|m| m.value)).collect();
        let per_kernel = crate::model::check::fits(records, &predictions);
        Some(ModelFit {
            configs: pairs.len(),
            median_abs_error_pct: crate::stats::median(&errors)?,
            spearman: crate::stats::spearman(&measured, &predicted),
            regret_pct: match per_kernel.as_slice() {
                [one] => Some(one.regret_pct),
                _ => None,
            },
        })
    }
}

impl Report {
    /// An empty report for a device.
    pub fn new(device: DeviceInfo) -> Self {
        Report {
            schema_version: SCHEMA_VERSION,
            tool: format!("warpscope {}", env!("CARGO_PKG_VERSION")),
            device,
            baselines: Baselines::default(),
            records: Vec::new(),
            model_fit: None,
            timing: None,
            devices: Vec::new(),
        }
    }

    /// Whether any record failed verification (the command then exits 1).
    pub fn any_failed(&self) -> bool {
        self.records.iter().any(|r| r.status == Status::Failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_median_min_max() {
        let t = TimeStats::from_samples(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((t.median, t.min, t.max, t.iters), (2.0, 1.0, 3.0, 3));
        let t = TimeStats::from_samples(&[4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(t.median, 2.5);
        assert!(TimeStats::from_samples(&[]).is_none());
        let t = TimeStats::from_samples(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!((t.q1, t.q3, t.mean), (2.0, 4.0, 3.0));
        assert!((t.stdev - 2.5f64.sqrt()).abs() < 1e-12);
        assert!((t.iqr_pct() - 200.0 / 3.0).abs() < 1e-9);
        assert_eq!(t.samples, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(TimeStats::from_samples(&[2.0]).unwrap().stdev, 0.0);
        assert!(TimeStats::from_samples(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn conditions_merge_to_their_extremes() {
        let a = Conditions {
            samples: 2,
            sm_clock_mhz: Some([1900, 1980]),
            mem_clock_mhz: Some(2619),
            temperature_c: Some(40),
            power_w: Some(300.0),
            throttle: vec![],
        };
        let b = Conditions {
            samples: 1,
            sm_clock_mhz: Some([1400, 1500]),
            mem_clock_mhz: None,
            temperature_c: Some(60),
            power_w: Some(200.0),
            throttle: vec!["sw_power_cap".into()],
        };
        let m = Conditions::merge(Some(a.clone()), Some(b)).unwrap();
        assert_eq!(m.samples, 3);
        assert_eq!(m.sm_clock_mhz, Some([1400, 1980]));
        assert_eq!((m.mem_clock_mhz, m.temperature_c, m.power_w), (Some(2619), Some(60), Some(300.0)));
        assert!(m.throttled());
        assert_eq!(Conditions::merge(None, Some(a.clone())), Some(a));
        assert_eq!(Conditions::merge(None, None), None);
    }

    #[test]
    fn launch_line_is_the_courses_output() {
        let mut r = Record::invalid(
            "sumMatrixOnGPU2D",
            "16384x16384",
            Dim3::new(512, 1024, 1),
            Dim3::new(32, 16, 1),
            String::new(),
        );
        r.status = Status::Ok;
        r.reason = None;
        r.time_ms = TimeStats::from_samples(&[1.094]);
        assert_eq!(r.launch_line(), "sumMatrixOnGPU2D <<<(512,1024), (32,16)>>> elapsed 1.094 ms");
    }
}
