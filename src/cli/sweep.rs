//! `warpscope sweep` and `warpscope run`: block lists in, verified and timed records out.

use std::io::Write;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use warpscope::gpu::BackendKind;
use warpscope::kernels::{self, Kernel, Problem};
use warpscope::profile::Unavailable;
use warpscope::record::{Metric, Record, Report, Status};
use warpscope::spec::Dim3;
use warpscope::sweep::{self, Event, Options};
use warpscope::{Error, Result, gpu, report, spec};

use warpscope::output::{self, Named};

use super::{Context, DeviceArg, OutputArgs, exit_for, ranges, usage};

/// What to run: a kernel, its problem size and the block shapes (shared by `sweep`, `run`, `estimate`).
#[derive(Args, Debug)]
pub struct Shapes {
    /// Kernel to run (`warpscope kernels` lists them).
    kernel: String,
    /// Block shapes, `BXxBY[xBZ]`, comma-separated: `32x32,32x16,16x32`.
    #[arg(long, value_name = "LIST")]
    block: Option<String>,
    /// block.x values for a cartesian sweep: `64,128,256` or `32..1024:32`.
    #[arg(long, value_name = "LIST")]
    bx: Option<String>,
    /// block.y values for a cartesian sweep.
    #[arg(long, value_name = "LIST")]
    by: Option<String>,
    /// block.z values for a cartesian sweep.
    #[arg(long, value_name = "LIST")]
    bz: Option<String>,
    #[arg(long, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help(
        "Problem width: matrix columns or frame width (default: the kernel's, see `warpscope kernels`)"
    ))]
    nx: Option<u32>,
    #[arg(long, value_parser = ranges::SIDE.parser(), help = ranges::SIDE.help("Problem height: matrix rows or frame height"))]
    ny: Option<u32>,
    #[arg(long, value_parser = ranges::FRAMES.parser(), help = ranges::FRAMES.help("Frames per launch, for the image kernels"))]
    frames: Option<u32>,
    #[arg(long, value_parser = ranges::MAD_N.parser(), help = ranges::MAD_N.help(
        "The kernel's own parameter: multiply-adds per element for `mad` (0, 3, 6, 12, 24, 48, 96)"
    ))]
    n: Option<u32>,
    #[arg(long, value_parser = ranges::SIGMA.parser(), help = ranges::SIGMA.help("Gaussian sigma, for the blur kernels"))]
    sigma: Option<f32>,
}

impl Shapes {
    /// The kernel bound to its problem, and the block list.
    pub fn resolve(&self) -> Result<(Box<dyn kernels::Kernel>, Vec<spec::Dim3>)> {
        let blocks =
            spec::blocks_from(self.block.as_deref(), self.bx.as_deref(), self.by.as_deref(), self.bz.as_deref())?;
        let kernel = kernels::lookup(
            &self.kernel,
            Problem { nx: self.nx, ny: self.ny, frames: self.frames, n: self.n, sigma: self.sigma },
        )?;
        Ok((kernel, blocks))
    }
}

/// Arguments of `sweep` and `run`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    #[command(flatten)]
    shapes: Shapes,
    #[command(flatten)]
    gpu: DeviceArg,
    #[arg(long, default_value_t = 2, value_parser = ranges::WARMUP.parser(), help = ranges::WARMUP.help(
        "Untimed launches before timing (the verified launch is the first)"
    ))]
    warmup: u32,
    #[arg(long, default_value_t = 20, value_parser = ranges::ITERS.parser(), help = ranges::ITERS.help(
        "Timed launches per configuration"
    ))]
    iters: u32,
    /// Flush L2 before every timed launch (a scratch buffer of twice the L2 is overwritten outside the
    /// timed events): cold-cache times instead of warm ones.
    #[arg(long)]
    cold: bool,
    #[arg(long, value_name = "PCT", conflicts_with = "iters", value_parser = ranges::NOISE_PCT.parser(),
        help = ranges::NOISE_PCT.help(
            "Instead of a fixed --iters, time in batches until the spread (IQR / median) is at most PCT percent, \
             within --min-iters, --max-iters and --max-time"
        ))]
    until_noise: Option<f64>,
    #[arg(long, default_value_t = 10, requires = "until_noise", value_parser = ranges::NOISE_ITERS.parser(),
        help = ranges::NOISE_ITERS.help("With --until-noise: the first batch (and each further batch) of timed launches"))]
    min_iters: u32,
    #[arg(long, default_value_t = 1000, requires = "until_noise", value_parser = ranges::NOISE_ITERS.parser(),
        help = ranges::NOISE_ITERS.help("With --until-noise: timed launches at most per configuration"))]
    max_iters: u32,
    #[arg(long, value_name = "SECS", default_value_t = 10.0, requires = "until_noise",
        value_parser = ranges::MAX_TIME.parser(),
        help = ranges::MAX_TIME.help("With --until-noise: seconds of timing at most per configuration"))]
    max_time: f64,
    /// Time the configurations round-robin (five slices of --iters each) so that clock and temperature
    /// drift does not favour the first ones; records are reported when all are timed.
    #[arg(long, conflicts_with = "until_noise")]
    interleave: bool,
    #[arg(long, value_parser = ranges::SEED.parser(), help = ranges::SEED.help("Seed of the random inputs (default: fresh each run)"))]
    seed: Option<u64>,
    /// Put the time model's prediction and its error beside every measured time, and report the
    /// model's median absolute error and Spearman rank correlation over the sweep.
    #[arg(long)]
    model: bool,
    /// Measure these with hardware counters (CUPTI), beside the estimates: nvprof names
    /// (`warpscope metrics`), Nsight Compute metric names, or `all`.
    #[arg(long, value_name = "LIST")]
    metrics: Option<String>,
    /// Skip the configurations already in FILE (a JSON report or JSON Lines; failed ones run again) and
    /// keep its records: with `--format jsonl -o FILE` the new records are appended to it.
    #[arg(long, value_name = "FILE")]
    resume: Option<std::path::PathBuf>,
    /// Draw the sweep's figure to FILE (.svg or .png): time and every metric per configuration,
    /// measured beside estimated, occupancy against block size, and a block.x x block.y heatmap.
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    /// Spread the configurations over these GPUs of this host (`all` or `0,1`), a thread and context
    /// each; every record names its device.
    #[arg(long, value_name = "LIST", conflicts_with = "device")]
    devices: Option<String>,
    /// Run the Kth of N deterministic slices of the sweep (1-based: `--shard 2/4`), for multi-host
    /// runs; `warpscope merge` joins the slices' result files.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    #[arg(long, value_name = "SECS", value_parser = ranges::TIMEOUT.parser(), help = ranges::TIMEOUT.help(
        "Give up when one configuration takes longer than SECS (a hung kernel cannot be stopped any other way): \
         exit 124, the finished configurations written"
    ))]
    timeout: Option<f64>,
    #[command(flatten)]
    out: OutputArgs,
}

/// The same configuration: kernel entry, problem and block.
fn same_config(r: &Record, kernel: &dyn Kernel, block: Dim3) -> bool {
    r.kernel == kernel.entry() && r.problem == kernel.problem() && r.block == Some(block) && r.status != Status::Failed
}

fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    output::resolve(a) == output::resolve(b)
}

/// The measuring options, checked.
fn options(a: &SweepArgs) -> Result<Options> {
    let seed = a
        .seed
        .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1));
    let metrics = a.metrics.as_deref().map(warpscope::metrics::parse_requested).transpose()?.unwrap_or_default();
    // Each value's own range is checked by the parser (ranges.rs); what is left is how they combine.
    let until_noise = match a.until_noise {
        None => None,
        Some(_) if a.max_iters < a.min_iters => {
            return Err(usage(format!("--max-iters {} is under --min-iters {}", a.max_iters, a.min_iters)));
        }
        Some(pct) => Some(sweep::Noise { pct, min_iters: a.min_iters, max_iters: a.max_iters, max_secs: a.max_time }),
    };
    Ok(Options {
        warmup: a.warmup,
        iters: a.iters,
        seed,
        model: a.model,
        metrics,
        cold: a.cold,
        until_noise,
        interleave: a.interleave,
        // --timeout judges each configuration alone: its counters are measured before the next one runs.
        counter_window: if a.timeout.is_some() { 1 } else { sweep::COUNTER_WINDOW },
    })
}

/// `--devices all|0,1` (or the one `--device`).
fn devices(ctx: &Context, a: &SweepArgs) -> Result<Vec<u32>> {
    let Some(list) = a.devices.as_deref() else { return Ok(vec![a.gpu.device]) };
    let count = gpu::device_count(ctx.backend)?;
    let devices: Vec<u32> = if list == "all" {
        (0..count).collect()
    } else {
        spec::parse_int_list(list).map_err(|e| usage(format!("--devices: {e}")))?
    };
    if devices.is_empty() {
        return Err(usage("--devices: no device"));
    }
    if let Some(d) = devices.iter().find(|&&d| d >= count) {
        return Err(usage(format!(
            "--devices: no CUDA device {d}: this machine has {count} (0..{})",
            count.max(1) - 1
        )));
    }
    if let Some(d) = devices.iter().enumerate().find(|(i, d)| devices[..*i].contains(d)).map(|(_, d)| d) {
        return Err(usage(format!("--devices: device {d} is listed twice")));
    }
    Ok(devices)
}

/// `--shard K/N`, 1 <= K <= N.
fn shard(text: &str) -> Result<(u32, u32)> {
    let bad = || usage(format!("--shard {text}: K/N with 1 <= K <= N, e.g. 2/4"));
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u32, u32) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// What the command line prints and streams as a sweep goes (from any device's thread, in turn).
struct Printer<'a> {
    out: &'a OutputArgs,
    opts: &'a Options,
    kernel: &'a dyn Kernel,
    stream: Option<Box<dyn Write + Send>>,
    bar: indicatif::ProgressBar,
    /// Several devices: lines name theirs.
    multi: bool,
    /// When the last configuration finished (or the set-up ended), for `--timeout`.
    progress: std::sync::Arc<std::sync::Mutex<Option<std::time::Instant>>>,
    /// Configurations finished.
    done: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// The report so far (resumed and finished records), for `--timeout` to write.
    partial: std::sync::Arc<std::sync::Mutex<Report>>,
}

impl Printer<'_> {
    fn event(&mut self, device: u32, name: &str, e: Event<'_>) {
        let (out, opts, kernel, multi) = (self.out, self.opts, self.kernel, self.multi);
        if let Event::Record(r) = e {
            self.bar.inc(1);
            self.done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if let Ok(mut p) = self.partial.lock() {
                p.records.push(r.clone());
            }
        }
        if let (Event::Baseline(m), Ok(mut p)) = (&e, self.partial.lock())
            && p.baselines.memcpy_dtod_gbs.is_none()
        {
            p.baselines.memcpy_dtod_gbs = Some((*m).clone());
        }
        if let Event::Record(_) | Event::Baseline(_) = e
            && let Ok(mut t) = self.progress.lock()
        {
            *t = Some(std::time::Instant::now());
        }
        let stream = &mut self.stream;
        self.bar.suspend(|| match e {
            Event::Planned { total, invalid } => {
                if !out.quiet {
                    errln!(
                        "{} {}: {total} config{} ({invalid} invalid), {} warm-up + {} timed launches each, on device {device} ({name}), seed {}",
                        kernel.name(),
                        kernel.problem(),
                        if total == 1 { "" } else { "s" },
                        opts.warmup,
                        opts.iters,
                        opts.seed,
                    );
                }
            }
            Event::Baseline(m) => {
                if !out.quiet {
                    let on = if multi { format!(" on device {device}") } else { String::new() };
                    errln!("device-to-device memcpy{on}: {:.1} GB/s ({})", m.value, m.source.as_str());
                }
            }
            Event::Record(r) => {
                out.line(&r.seed_line());
                if let Some(c) = r.conditions.as_ref().filter(|c| c.throttled()) {
                    let clock = c.sm_clock_mhz.map(|[lo, hi]| format!(", SM clock {lo}-{hi} MHz")).unwrap_or_default();
                    errln!(
                        "warning: {} {} was timed while the GPU throttled ({}){clock}: its time is not comparable",
                        r.kernel,
                        warpscope::record::dims(r.block),
                        c.throttle.join(", ")
                    );
                }
                if let (Some(n), Some(t)) = (opts.until_noise, &r.time_ms)
                    && t.iqr_pct() > n.pct
                    && !out.quiet
                {
                    errln!(
                        "note: {} {}: spread {:.2}% still above {}% after {} timed launches (a cap was reached)",
                        r.kernel,
                        warpscope::record::dims(r.block),
                        t.iqr_pct(),
                        n.pct,
                        t.iters
                    );
                }
                if let Some(w) = stream.as_mut() {
                    // Each line is flushed as its configuration finishes: a killed run loses nothing done.
                    // A failed write stops the sweep, which then ends with the error.
                    let written = report::jsonl::line(r).and_then(|l| {
                        w.write_all(l.as_bytes())
                            .and_then(|()| w.flush())
                            .map_err(|e| output::write_error(&out.dest_name(), &e))
                    });
                    if let Err(e) = written {
                        output::fail(e);
                    }
                }
            }
            Event::Counters(passes) => {
                if !out.quiet {
                    errln!(
                        "hardware counters: {} metric{} through CUPTI, {passes} replay pass{} per config",
                        opts.metrics.len(),
                        if opts.metrics.len() == 1 { "" } else { "s" },
                        if passes == 1 { "" } else { "es" }
                    );
                }
            }
            Event::NoCounters(why) => errln!("warning: measured metrics unavailable: {why}; showing estimates"),
            Event::Warning(why) => errln!("warning: {why}"),
            Event::Phase(phase) => {
                if out.verbose && !out.quiet {
                    errln!("{phase}");
                }
            }
        });
    }
}

/// An event sent from a device's thread.
enum Owned {
    Planned { total: usize, invalid: usize },
    Baseline(Metric),
    Record(Box<Record>),
    Phase(sweep::Phase),
    Counters(usize),
    NoCounters(Unavailable),
    Warning(String),
}

impl Owned {
    fn of(e: Event<'_>) -> Owned {
        match e {
            Event::Planned { total, invalid } => Owned::Planned { total, invalid },
            Event::Baseline(m) => Owned::Baseline(m.clone()),
            Event::Record(r) => Owned::Record(Box::new(r.clone())),
            Event::Phase(p) => Owned::Phase(p),
            Event::Counters(p) => Owned::Counters(p),
            Event::NoCounters(u) => Owned::NoCounters(u.clone()),
            Event::Warning(w) => Owned::Warning(w),
        }
    }

    fn event(&self) -> Event<'_> {
        match self {
            Owned::Planned { total, invalid } => Event::Planned { total: *total, invalid: *invalid },
            Owned::Baseline(m) => Event::Baseline(m),
            Owned::Record(r) => Event::Record(r),
            Owned::Phase(p) => Event::Phase(*p),
            Owned::Counters(p) => Event::Counters(*p),
            Owned::NoCounters(u) => Event::NoCounters(u),
            Owned::Warning(w) => Event::Warning(w.clone()),
        }
    }
}

/// `--timeout`: a thread that ends the process (exit 124) when no configuration has finished for
/// `secs` since the set-up ended or the last one did. The finished configurations are kept: streamed
/// already (`--format jsonl`), or written now in the chosen format.
fn watchdog(secs: f64, printer: &Printer<'_>, out: &OutputArgs, jsonl: Option<String>) {
    let (progress, done, partial, out) =
        (printer.progress.clone(), printer.done.clone(), printer.partial.clone(), out.clone());
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let since = progress.lock().ok().and_then(|t| *t).map(|t| t.elapsed().as_secs_f64());
            if since.is_some_and(|s| s > secs) {
                break;
            }
        }
        let n = done.load(std::sync::atomic::Ordering::SeqCst);
        let kept = match (&jsonl, out.output()) {
            (Some(w), _) => format!("kept in {w}"),
            (None, target) => match partial.lock().map_err(|_| ()).and_then(|r| out.emit(&r).map_err(|_| ())) {
                Ok(()) => target.map_or("printed above".to_string(), |p| format!("written to {}", p.display())),
                Err(()) => "lost: they could not be written".to_string(),
            },
        };
        let (s, are) = if n == 1 { ("", "is") } else { ("s", "are") };
        errln!("error: a configuration ran past --timeout {secs} s; the {n} finished configuration{s} {are} {kept}");
        std::process::exit(124);
    });
}

/// Runs `todo` spread round-robin over `devices`, a thread and a context each, and merges the slices.
fn on_devices(
    kind: BackendKind,
    devices: &[u32],
    kernel: &dyn Kernel,
    todo: &[(u32, Dim3)],
    sweep_size: u32,
    opts: &Options,
    printer: &mut Printer<'_>,
) -> Result<Report> {
    let (tx, rx) = mpsc::channel::<(u32, String, Owned)>();
    let reports = std::thread::scope(|s| {
        let handles: Vec<_> = devices
            .iter()
            .enumerate()
            .map(|(k, &d)| {
                let mine: Vec<(u32, Dim3)> = todo.iter().copied().skip(k).step_by(devices.len()).collect();
                let tx = tx.clone();
                s.spawn(move || -> Result<Report> {
                    let mut backend = gpu::open(kind, d)?;
                    let name = backend.info().name.clone();
                    sweep::run_indexed(backend.as_mut(), kernel, &mine, sweep_size, opts, &mut |e| {
                        let _ = tx.send((d, name.clone(), Owned::of(e)));
                    })
                })
            })
            .collect();
        drop(tx);
        for (d, name, e) in rx {
            printer.event(d, &name, e.event());
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Output("a device thread panicked".into()))))
            .collect::<Result<Vec<_>>>()
    })?;
    warpscope::merge::merge(reports)
}

pub fn sweep(ctx: &Context, a: &SweepArgs, single: bool) -> Result<ExitCode> {
    let (kernel, blocks) = a.shapes.resolve()?;
    if single && blocks.len() != 1 {
        return Err(usage(format!("run takes exactly one block (got {}): use sweep for lists", blocks.len())));
    }
    let opts = options(a)?;
    let devices = devices(ctx, a)?;
    let shard = a.shard.as_deref().map(shard).transpose()?;
    // Resuming into the file resumed from (JSON Lines appended, a report rewritten whole) is the one
    // way an input may be an output.
    let append = matches!((&a.resume, a.out.output()), (Some(r), Some(o)) if same_file(r, o));
    let resume_input: Vec<Named<'_>> =
        a.resume.iter().filter(|_| !append).map(|p| Named { what: "--resume", path: p }).collect();
    let mut outputs = vec![Named { what: "-o", path: a.out.dest() }];
    outputs.extend(a.plot.as_deref().map(|p| Named { what: "--plot", path: p }));
    output::check_distinct(&resume_input, &outputs)?;
    let earlier = match &a.resume {
        Some(path) if path.exists() => {
            let r = report::read(path)?;
            warpscope::resume::check_sweep(&r, path, kernel.entry(), &kernel.problem())?;
            Some((path.as_path(), r))
        }
        Some(path) => return Err(usage(format!("--resume {}: no such file", path.display()))),
        None => None,
    };
    // A file that names its devices is resumed on the same kind.
    if let Some((path, r)) = earlier.as_ref().filter(|(_, r)| !warpscope::resume::measured_on(r).is_empty()) {
        for d in gpu::list(ctx.backend)?.iter().filter(|d| devices.contains(&d.ordinal)) {
            warpscope::resume::check_device(r, path, d)?;
        }
    }
    let resumed = earlier.as_ref().map(|(_, r)| r.records.clone()).unwrap_or_default();
    super::check_plot(a.plot.as_deref())?;
    if !append {
        a.out.check()?;
    }
    // The configurations to run: this shard's, less those already done; each keeps its index in the
    // whole list.
    let mine: Vec<(u32, Dim3)> =
        (0u32..).zip(blocks.iter().copied()).filter(|(i, _)| shard.is_none_or(|(k, n)| i % n == k - 1)).collect();
    let todo: Vec<(u32, Dim3)> =
        mine.iter().copied().filter(|&(_, b)| !resumed.iter().any(|r| same_config(r, kernel.as_ref(), b))).collect();
    if let (Some((k, n)), false) = (shard, a.out.quiet) {
        errln!("shard {k}/{n}: {} of {} configurations", mine.len(), blocks.len());
    }
    if !resumed.is_empty() && !a.out.quiet {
        errln!(
            "resuming: {} of {} configurations already done, {} to run",
            mine.len() - todo.len(),
            mine.len(),
            todo.len()
        );
    }
    let mut stream = a.out.stream(append)?;
    if let Some(w) = stream.as_mut().filter(|_| !append) {
        for r in &resumed {
            w.write_all(report::jsonl::line(r)?.as_bytes()).map_err(|e| output::write_error(&a.out.dest_name(), &e))?;
        }
    }
    if todo.is_empty() {
        let mut report = Report::new(warpscope::gpu::DeviceInfo::unknown());
        report.records = resumed;
        if stream.is_none() {
            a.out.emit(&report)?;
        }
        return Ok(exit_for(&report));
    }
    let mut printer = Printer {
        out: &a.out,
        opts: &opts,
        kernel: kernel.as_ref(),
        stream,
        bar: a.out.progress(todo.len()),
        multi: devices.len() > 1,
        progress: Default::default(),
        done: Default::default(),
        partial: std::sync::Arc::new(std::sync::Mutex::new(Report {
            records: resumed.clone(),
            timing: Some(opts.timing()),
            ..Report::new(warpscope::gpu::DeviceInfo::unknown())
        })),
    };
    if let Some(secs) = a.timeout {
        let jsonl = printer.stream.is_some().then(|| {
            a.out.output().map_or("the JSON Lines on standard output".to_string(), |p| p.display().to_string())
        });
        watchdog(secs, &printer, &a.out, jsonl);
    }
    let size = blocks.len() as u32;
    let report = if devices.len() == 1 {
        let mut backend = gpu::open(ctx.backend, devices[0])?;
        let name = backend.info().name.clone();
        if let Ok(mut p) = printer.partial.lock() {
            p.device = backend.info().clone();
        }
        sweep::run_indexed(backend.as_mut(), kernel.as_ref(), &todo, size, &opts, &mut |e| {
            printer.event(devices[0], &name, e)
        })
    } else {
        on_devices(ctx.backend, &devices, kernel.as_ref(), &todo, size, &opts, &mut printer)
    };
    printer.bar.finish_and_clear();
    // The sweep is over: --timeout no longer applies (writing and plotting may take their time).
    if let Ok(mut t) = printer.progress.lock() {
        *t = None;
    }
    let mut report = report.map_err(|e| e.or_smaller("choose a smaller problem (--nx/--ny/--frames)"))?;
    let ran = report.records.len();
    report.records.splice(0..0, resumed);
    if printer.stream.is_none() {
        a.out.emit(&report)?;
    }
    super::plot_report(a.plot.as_deref(), &report)?;
    if super::signals::exit_code().is_some() {
        errln!(
            "interrupted: {ran} of {} configurations finished and kept{}",
            todo.len(),
            a.out.output().map(|p| format!(" in {}", p.display())).unwrap_or_default()
        );
    }
    Ok(exit_for(&report))
}
