//! A kernel file's sweep end to end, as `sweep`/`run --kernel-file` run it: the run's part (shard,
//! resume), its devices opened and its modules built, a thread per device taking configurations from
//! one queue, records printed and streamed as they finish, the `--timeout` watchdog, the report written.

use std::io::Write;
use std::sync::Arc;

use super::compile::{Built, CompileError};
use super::expand::Config;
use super::expr::Value;
use super::file::{Expected, KernelFile};
use super::sweep::{Inputs, Queue, UserSweep, record_of};
use crate::error::{Error, Input, Result};
use crate::gpu::{self, BackendKind};
use crate::record::{Record, Report, Status};
use crate::sweep::Options;

/// One build result per module (the modules a run does not use stand as [`super::compile::NOT_BUILT`]).
type Builds = Vec<std::result::Result<Built, CompileError>>;

/// What the thread sweeping a kernel file tells the session as it goes.
enum Said {
    Record(Box<Record>),
    Note(String),
    Done(Box<Result<Report>>),
}

/// The sweep threads' next message; `None` once a device's configuration in progress has kept it busy
/// (its watch) for more than `timeout` seconds.
fn heard(
    rx: &std::sync::mpsc::Receiver<Said>,
    watches: &[Arc<crate::watch::Watch>],
    timeout: Option<f64>,
) -> Result<Option<Said>> {
    use std::sync::mpsc::RecvTimeoutError;
    loop {
        match rx.recv_timeout(crate::session::TICK) {
            Ok(said) => return Ok(Some(said)),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::internal("the kernel file's sweep ended without its report"));
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        if crate::watch::any_past(watches, timeout) {
            return Ok(None);
        }
    }
}

/// `sweep`/`run --kernel-file`: a kernel file over `blocks` (or its own lists) and `defines`, on one
/// device or several: built for each compute capability among them (NVRTC, cached), swept, written and
/// drawn.
pub struct FileSession<'a> {
    /// The kernel file, loaded with its sizes.
    pub file: &'a KernelFile,
    /// Block shapes (`None`: the file's).
    pub blocks: Option<&'a [crate::spec::Dim3]>,
    /// `--define` values.
    pub defines: &'a [(String, Vec<Value>)],
    /// Which backend and device.
    pub device: (BackendKind, u32),
    /// How to measure.
    pub options: &'a Options,
    /// Where the report goes.
    pub to: &'a crate::report::Destination,
    /// Figures and the HTML page.
    pub visuals: &'a crate::report::Visuals,
    /// `run`: exactly one configuration.
    pub single: bool,
    /// Only these configurations (`--configs`, how a sweep continues in a new process after a fault).
    pub only: Option<&'a [usize]>,
    /// The command line that reruns this sweep (see [`UserSweep::rerun`]).
    pub rerun: Option<Vec<String>>,
    /// Seconds of GPU work a configuration may take before the session gives up (`--timeout`).
    pub timeout: Option<f64>,
    /// This host's slice of the sweep (`--shard K/N`).
    pub shard: Option<crate::session::Shard>,
    /// An earlier run's results whose configurations are skipped (`--resume`).
    pub resume: Option<&'a std::path::Path>,
    /// The GPUs to spread the configurations over (`--devices all|0,1`); `device`'s alone when `None`.
    pub devices: Option<String>,
    /// The front end's names of the inputs, for the messages that name them.
    pub names: crate::error::Names,
}

impl FileSession<'_> {
    /// Runs the session; the outcome says whether a configuration failed.
    pub fn run(&self) -> Result<crate::Outcome> {
        let began = std::time::Instant::now();
        let ex = self.file.expand(self.blocks, self.defines, self.names)?;
        if ex.configs.is_empty() {
            return Err(Error::usage(format!(
                "nothing to run: {} (the restrictions of {} remove every one; change the sizes, --define values or block shapes)",
                ex.summary(),
                self.file.path.display()
            )));
        }
        if self.single && ex.configs.len() != 1 {
            let (blocks, define) =
                ((self.names)(crate::error::Input::Blocks), (self.names)(crate::error::Input::Define));
            return Err(Error::usage(format!(
                "run takes exactly one configuration ({}): give one block shape ({blocks}) and one value per {define}, or use sweep",
                ex.summary()
            )));
        }
        if let Some(i) = self.only.and_then(|o| o.iter().find(|&&i| i >= ex.configs.len())) {
            return Err(Error::input(
                Input::Configs,
                Some(i.to_string()),
                format!(
                    "the sweep has {} configuration{}",
                    ex.configs.len(),
                    if ex.configs.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        let (kind, ordinal) = self.device;
        let devices = match &self.devices {
            Some(list) => crate::session::Devices::Listed(list.clone()).resolve(kind)?,
            None => vec![ordinal],
        };
        let planned = crate::session::Planned {
            to: self.to,
            visuals: self.visuals,
            shard: self.shard,
            resume: self.resume,
            candidates: match self.only {
                Some(list) => list.iter().map(|&i| i as u32).collect(),
                None => (0..ex.configs.len() as u32).collect(),
            },
            total: ex.configs.len(),
        };
        let (entry, problem) = (&self.file.name, self.file.problem_label());
        let part = crate::session::Part::plan(
            planned,
            |path| crate::session::resumed(path, kind, entry, &problem, &devices),
            // `resumed` checked that every record is of this kernel file and problem.
            |r| (r.block, r.params_label()),
            |i| {
                let want = record_of(self.file, &ex.configs[i as usize], Status::Ok);
                (want.block, want.params_label())
            },
        )?;
        let mut stream = part.stream(self.to)?;
        if part.todo.is_empty() {
            return part.already_done(self.to, self.visuals, stream.is_some());
        }
        let todo: Vec<usize> = part.todo.iter().map(|&i| i as usize).collect();
        let resumed = part.resumed;
        // Each device opened in turn, as a built-in sweep opens them.
        let mut backends = Vec::new();
        for &d in &devices {
            backends.push(gpu::open(kind, d)?);
        }
        let info = backends[0].info().clone();
        let driver = gpu::probe::driver().map(|v| v.to_string()).unwrap_or_else(|_| "none".into());
        let nvrtc = super::compile::Nvrtc::load();
        let stub = super::compile::Stub { file: self.file };
        let compiler = match (&nvrtc, kind) {
            (Ok(n), _) => Some(n as &dyn super::compile::Compiler),
            (Err(_), BackendKind::Mock) => Some(&stub as &dyn super::compile::Compiler),
            (Err(_), BackendKind::Cuda) => None,
        };
        let start = std::time::Instant::now();
        // The mock's stub modules are not cached: nothing of a mock run lands in the user's cache.
        let cache =
            if kind == BackendKind::Mock { super::compile::Cache::none() } else { super::compile::Cache::user() };
        // A process that goes on after a fault (`--configs`) is given the configuration whose outputs
        // were the expected ones first.
        let anchor = matches!(self.file.verify.expected, Expected::SameAsFirst)
            .then(|| match self.only {
                Some(list) => list.first().copied(),
                None => ex.configs.iter().position(|c| c.invalid.is_none()),
            })
            .flatten();
        // Only the modules this run's valid configurations, the reference and the anchor use: a shard or
        // a resumed run of a sweep over many parameter sets does not compile the others' modules, nor
        // does any run compile a module only invalid configurations (rows with their reasons) name.
        let anchor_config = anchor.map(|a| &ex.configs[a]);
        let used: Vec<&Config> =
            todo.iter().map(|&i| &ex.configs[i]).chain(ex.reference.as_ref()).chain(anchor_config).collect();
        // Built once per compute capability among the devices.
        let mut builds: Vec<((u32, u32), Arc<Builds>)> = Vec::new();
        for cc in backends.iter().map(|b| b.info().cc()) {
            if builds.iter().any(|(c, _)| *c == cc) {
                continue;
            }
            let target = super::compile::Target { cc, driver: driver.clone() };
            let built =
                super::compile::build_used(self.file, &ex.modules, used.iter().copied(), &target, compiler, &cache);
            super::describe::check_built(self.file, &ex, &built)?;
            builds.push((cc, Arc::new(built)));
        }
        let say = |s: &str| {
            if !self.to.quiet {
                crate::output::note(s);
            }
        };
        let specs = builds.first().map_or(0, |(_, b)| b.iter().filter(|b| !super::compile::not_built(b)).count());
        let cached: usize =
            builds.iter().map(|(_, b)| b.iter().filter(|b| b.as_ref().is_ok_and(|b| b.cached)).count()).sum();
        let ccs: Vec<String> = builds.iter().map(|((major, minor), _)| format!("compute_{major}{minor}")).collect();
        let on: Vec<String> = backends.iter().map(|b| format!("{} ({})", b.info().ordinal, b.info().name)).collect();
        say(&format!(
            "{} {}: {}{}; built {}for {} in {:.2} s ({cached} from the cache), on device{} {}; ready {:.2} s after start",
            self.file.name,
            self.file.problem_label(),
            ex.summary(),
            if todo.len() < ex.configs.len() { format!("; {} of them in this run", todo.len()) } else { String::new() },
            if specs < ex.modules.len() { format!("{specs} of the modules ") } else { String::new() },
            ccs.join(" and "),
            start.elapsed().as_secs_f64(),
            if on.len() == 1 { "" } else { "s" },
            on.join(", "),
            began.elapsed().as_secs_f64()
        ));
        if self.to.verbose {
            for (_, built) in &builds {
                for e in built.iter().filter_map(|b| b.as_ref().err()).filter(|e| !e.log.is_empty()) {
                    crate::output::note(&format!("{}\n{}", e.summary, e.log.trim_end()));
                }
            }
        }
        let bar = self.to.progress(todo.len());
        let mut streamed = Ok(());
        // Each device sweeps on a thread of its own, taking the next configuration when it is free, so
        // that a kernel that hangs can be given up on (`--timeout`): its thread is then left blocked in
        // the driver, and ends with the process.
        let multi = backends.len() > 1;
        let anchor_first = anchor.is_some() && (multi || todo.first() != anchor.as_ref());
        let queue = Arc::new(Queue::new(&todo));
        let host_inputs = Arc::new(std::sync::Mutex::new(Inputs::new()));
        let ex = Arc::new(ex);
        let (tx, rx) = std::sync::mpsc::channel::<Said>();
        let mut watches = Vec::new();
        for backend in backends {
            let ordinal = backend.info().ordinal;
            let cc = backend.info().cc();
            let built = builds.iter().find(|(c, _)| *c == cc).map(|(_, b)| b.clone()).unwrap_or_default();
            let watch = Arc::new(crate::watch::Watch::default());
            watches.push(watch.clone());
            let options = Options { watch: self.timeout.is_some().then_some(watch), ..self.options.clone() };
            let (file, ex, queue, host_inputs, rerun, verbose) = (
                self.file.clone(),
                ex.clone(),
                queue.clone(),
                host_inputs.clone(),
                self.rerun.clone(),
                self.to.verbose,
            );
            let tx = tx.clone();
            std::thread::spawn(move || {
                let sweep = UserSweep {
                    file: &file,
                    ex: &ex,
                    built: &built,
                    options: &options,
                    queue: &queue,
                    host_inputs: &host_inputs,
                    anchor,
                    anchor_first,
                    rerun,
                    verbose,
                };
                let (records, notes) = (tx.clone(), tx.clone());
                let report = sweep.run(
                    backend,
                    ordinal,
                    &mut |r| {
                        let _ = records.send(Said::Record(Box::new(r.clone())));
                    },
                    &mut |n| {
                        let n = if multi { format!("device {ordinal}: {n}") } else { n.to_string() };
                        let _ = notes.send(Said::Note(n));
                    },
                );
                let _ = tx.send(Said::Done(Box::new(report)));
            });
        }
        drop(tx);
        let mut partial = Report::new(info);
        partial.timing = Some(self.options.timing());
        partial.records = resumed.clone();
        let mut reports = Vec::new();
        while reports.len() < watches.len() {
            let Some(said) = heard(&rx, &watches, self.timeout)? else {
                bar.finish_and_clear();
                let unwritten = stream.is_none().then_some(&partial);
                let secs = self.timeout.unwrap_or_default();
                let done = partial.records.len() - resumed.len();
                return Ok(crate::session::gave_up(self.to, self.names, secs, done, unwritten));
            };
            match said {
                Said::Record(r) => {
                    bar.inc(1);
                    if let (Some(w), Ok(())) = (stream.as_mut(), &streamed) {
                        streamed = crate::report::jsonl::line(&r).and_then(|l| {
                            w.write_all(l.as_bytes()).and_then(|()| w.flush()).map_err(|e| Error::Output(e.to_string()))
                        });
                    }
                    partial.records.push(*r);
                }
                Said::Note(n) => bar.suspend(|| say(&n)),
                Said::Done(report) => reports.push((*report)?),
            }
        }
        streamed?;
        bar.finish_and_clear();
        // Several devices' records in the sweep's order; one device's as it ran them.
        let mut report = if reports.len() == 1 { reports.remove(0) } else { crate::merge::merge(reports)? };
        let ran = report.records.len();
        report.records.splice(0..0, resumed);
        if stream.is_none() {
            self.to.emit(&report)?;
        }
        self.visuals.emit(&report)?;
        Ok(crate::session::interrupted(self.to, ran, todo.len())
            .unwrap_or(crate::Outcome::checked(report.any_failed())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    #[test]
    fn the_session_gives_up_on_a_configuration_that_keeps_the_gpu_busy_past_the_timeout() {
        let (tx, rx) = mpsc::channel();
        let watch = Arc::new(crate::watch::Watch::default());
        tx.send(Said::Note("first".into())).unwrap();
        assert!(matches!(heard(&rx, std::slice::from_ref(&watch), Some(0.2)), Ok(Some(Said::Note(n))) if n == "first"));
        // The sweep thread enters a GPU call that never returns (a hung kernel), its sender kept alive.
        let busy = watch.clone();
        std::thread::spawn(move || {
            let _keep = tx;
            busy.busy(|| std::thread::sleep(Duration::from_secs(3600)));
        });
        let t = Instant::now();
        assert!(matches!(heard(&rx, std::slice::from_ref(&watch), Some(0.2)), Ok(None)));
        let waited = t.elapsed().as_secs_f64();
        assert!((0.2..2.0).contains(&waited), "gave up after {waited} s");
    }

    #[test]
    fn without_a_timeout_a_long_call_is_waited_for_and_a_lost_thread_is_an_error() {
        let (tx, rx) = mpsc::channel();
        let watch = Arc::new(crate::watch::Watch::default());
        let busy = watch.clone();
        std::thread::spawn(move || {
            busy.busy(|| std::thread::sleep(Duration::from_millis(300)));
            tx.send(Said::Note("done".into())).unwrap();
        });
        assert!(matches!(heard(&rx, std::slice::from_ref(&watch), None), Ok(Some(Said::Note(_)))));
        // The thread ended without its report.
        assert!(matches!(heard(&rx, std::slice::from_ref(&watch), None), Err(Error::Internal(_))));
    }
}
