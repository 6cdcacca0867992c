//! A sweep session, what `sweep` and `run` do end to end: the configurations this host runs (shard,
//! resume), a thread and a context per device, the records printed and streamed as they finish, the
//! watchdog (`--timeout`) and the stop signals, the report written and drawn; it ends with one
//! [`Outcome`], which `main` alone turns into an exit code.

mod printer;
mod request;
mod select;

pub use request::{Measure, Request, What};
pub use select::{Devices, Part, Planned, Shard, resumed};

use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::{Error, Input, Names, Result};
use crate::gpu::{self, BackendKind, DeviceInfo};
use crate::handout::Handout;
use crate::kernels::Kernel;
use crate::output::{self, note};
use crate::record::Report;
use crate::report::Destination;
use crate::spec::Dim3;
use crate::sweep::{self, Options};
use crate::watch::Watch;
use crate::{Outcome, signals};

use printer::{Message, Printer, Progress};

/// Everything a session needs.
pub struct Session {
    /// The backend the devices are opened on.
    pub backend: BackendKind,
    /// The kernel, bound to its problem (shared with the device threads).
    pub kernel: Arc<dyn Kernel>,
    /// The block shapes, in the sweep's order.
    pub blocks: Vec<Dim3>,
    /// How to measure.
    pub options: Options,
    /// The GPUs to spread the configurations over.
    pub devices: Devices,
    /// This host's slice of the sweep.
    pub shard: Option<Shard>,
    /// A result file of an earlier run of the same sweep whose configurations are skipped.
    pub resume: Option<PathBuf>,
    /// Where the report goes.
    pub to: Destination,
    /// The figure and HTML page drawn from the report.
    pub visuals: crate::report::Visuals,
    /// Seconds a configuration may take before the session gives up on it.
    pub timeout: Option<f64>,
    /// The front end's names of the inputs, for the notes that name them.
    pub names: Names,
}

/// How often the session looks at the watchdog while the devices work.
pub(crate) const TICK: Duration = Duration::from_millis(20);

impl Session {
    /// Runs the session: checks everything that can be checked before any GPU work, runs this
    /// host's configurations not done before, and writes the report.
    pub fn run(&self) -> Result<Outcome> {
        let kernel = self.kernel.as_ref();
        let _nvml = gpu::prepare(self.backend);
        let devices = self.devices.resolve(self.backend)?;
        let planned = Planned {
            to: &self.to,
            visuals: &self.visuals,
            shard: self.shard,
            resume: self.resume.as_deref(),
            candidates: (0..self.blocks.len() as u32).collect(),
            total: self.blocks.len(),
        };
        let part = Part::plan(
            planned,
            |path| resumed(path, self.backend, kernel.entry(), &kernel.problem(), &devices),
            // `resumed` checked that every record is of this kernel and problem.
            |r| r.block,
            |i| Some(self.blocks[i as usize]),
        )?;
        let stream = part.stream(&self.to)?;
        if part.todo.is_empty() {
            return part.already_done(&self.to, &self.visuals, stream.is_some());
        }
        let todo: Vec<(u32, Dim3)> = part.todo.iter().map(|&i| (i, self.blocks[i as usize])).collect();
        let resumed = part.resumed;
        let progress = Arc::new(Mutex::new(Progress {
            partial: Report {
                records: resumed.clone(),
                timing: Some(self.options.timing()),
                ..Report::new(DeviceInfo::unknown())
            },
            done: 0,
        }));
        let mut printer = Printer {
            to: &self.to,
            opts: &self.options,
            what: format!("{} {}", kernel.name(), kernel.problem()),
            stream,
            bar: self.to.progress(todo.len()),
            multi: devices.len() > 1,
            progress: progress.clone(),
        };
        let Some(report) = self.on_devices(&devices, &todo, &mut printer)? else {
            return self.give_up(&printer, &progress);
        };
        let mut report = report?;
        let ran = report.records.len();
        report.records.splice(0..0, resumed);
        if printer.stream.is_none() {
            self.to.emit(&report)?;
        }
        self.visuals.emit(&report)?;
        if self.to.verbose && !self.to.quiet {
            note(&format!("results written at {:.2} s", output::since_start()));
        }
        Ok(interrupted(&self.to, ran, todo.len()).unwrap_or(Outcome::checked(report.any_failed())))
    }

    /// Runs `todo` on `devices`, a thread and a context each, every configuration handed to the next
    /// free device (longest first when their times can be predicted) and the host's set-up shared,
    /// printing their events as they come, and merges what each ran; `None` when a configuration ran past the timeout
    /// (the device threads are then left behind: a kernel that hangs cannot be stopped, and they end
    /// with the process).
    fn on_devices(
        &self,
        devices: &[u32],
        todo: &[(u32, Dim3)],
        printer: &mut Printer<'_>,
    ) -> Result<Option<Result<Report>>> {
        let (tx, rx) = mpsc::channel::<(u32, String, Message)>();
        let size = self.blocks.len() as u32;
        let handout = Arc::new(Handout::new(todo.to_vec(), devices.len()));
        // The host draws the inputs and computes the reference while the devices open.
        let (kernel, seed) = (self.kernel.clone(), self.options.seed);
        let _ = handout.prepare(move || sweep::host_set_up(kernel.as_ref(), seed));
        // Each device's busy clock, which `--timeout` reads.
        let watches: Vec<Arc<Watch>> = devices.iter().map(|_| Arc::default()).collect();
        let handles: Vec<_> = devices
            .iter()
            .zip(&watches)
            .map(|(&d, watch)| {
                let (tx, kernel, kind) = (tx.clone(), self.kernel.clone(), self.backend);
                let watch = self.timeout.is_some().then(|| watch.clone());
                let opts = Options { watch, ..self.options.clone() };
                let handout = handout.clone();
                std::thread::spawn(move || {
                    let leaving = handout.leaving();
                    let mut backend = match gpu::open(kind, d) {
                        Ok(b) => b,
                        Err(e) => return tx.send((d, String::new(), Message::Finished(Box::new(Err(e))))),
                    };
                    let name = backend.info().name.clone();
                    let _ = tx.send((d, name.clone(), Message::Opened(Box::new(backend.info().clone()))));
                    let report =
                        sweep::run_indexed(backend.as_mut(), kernel.as_ref(), &handout, size, &opts, &mut |e| {
                            let _ = tx.send((d, name.clone(), Message::of(e)));
                        });
                    let sent = tx.send((d, name, Message::Finished(Box::new(report))));
                    // The context (and its profiler) goes only when every device is done.
                    leaving.wait();
                    sent
                })
            })
            .collect();
        drop(tx);
        let mut reports: Vec<Option<Result<Report>>> = devices.iter().map(|_| None).collect();
        let mut timeline = printer::Timeline::default();
        loop {
            match rx.recv_timeout(TICK) {
                Ok((d, name, message)) => {
                    timeline.saw(d, &message);
                    match message {
                        Message::Opened(info) if devices.len() == 1 => {
                            if let Ok(mut p) = printer.progress.lock() {
                                p.partial.device = *info;
                            }
                        }
                        Message::Finished(report) => {
                            let slot = devices
                                .iter()
                                .position(|&x| x == d)
                                .ok_or_else(|| Error::internal("a report from an unknown device"))?;
                            reports[slot] = Some(*report);
                        }
                        m => {
                            if let Some(e) = m.event() {
                                printer.event(d, &name, e);
                            }
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if self.past_timeout(&watches) {
                printer.bar.finish_and_clear();
                return Ok(None);
            }
        }
        printer.bar.finish_and_clear();
        if self.to.verbose && !self.to.quiet {
            timeline.lines().iter().for_each(|l| note(l));
            note(&format!("every device closed at {:.2} s", output::since_start()));
        }
        for h in handles {
            if h.join().is_err() {
                return Err(Error::internal("a device thread panicked"));
            }
        }
        let reports: Result<Vec<Report>> = reports
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::internal("a device thread ended without its report"))))
            .collect();
        Ok(Some(reports.and_then(crate::merge::merge)))
    }

    /// Whether a device's configuration in progress has kept it busy for more than `--timeout`
    /// seconds (its launches, timed launches and counters; not the host's work between them).
    fn past_timeout(&self, watches: &[Arc<Watch>]) -> bool {
        crate::watch::any_past(watches, self.timeout)
    }

    /// After `--timeout`: the finished configurations are kept (streamed already with `--format
    /// jsonl`, or written now in the chosen format) and the session ends timed out.
    fn give_up(&self, printer: &Printer<'_>, progress: &Mutex<Progress>) -> Result<Outcome> {
        let secs = self.timeout.unwrap_or_default();
        Ok(match progress.lock() {
            Ok(p) => gave_up(&self.to, self.names, secs, p.done, printer.stream.is_none().then_some(&p.partial)),
            Err(_) => gave_up(&self.to, self.names, secs, 0, None),
        })
    }
}

/// After a stop signal ended a sweep early (its report written, `ran` of the `todo` configurations in
/// it): says so, and the outcome that signal gives; `None` when no signal came.
pub(crate) fn interrupted(to: &Destination, ran: usize, todo: usize) -> Option<Outcome> {
    let signal = signals::first()?;
    note(&format!(
        "interrupted: {ran} of {todo} configurations finished and kept{}",
        to.file().map(|p| format!(" in {}", p.display())).unwrap_or_default()
    ));
    Some(Outcome::Interrupted(signal))
}

/// A sweep gave up on a configuration past `--timeout` (`secs`) after `done` finished: `unwritten`,
/// the report of those, is written now (`None`: they were streamed as they finished); says so.
pub(crate) fn gave_up(to: &Destination, names: Names, secs: f64, done: usize, unwritten: Option<&Report>) -> Outcome {
    let kept = match unwritten {
        None => format!(
            "kept in {}",
            to.file().map_or("the JSON Lines on standard output".to_string(), |p| p.display().to_string())
        ),
        Some(report) => match to.emit(report) {
            Ok(()) => to.file().map_or("printed above".to_string(), |p| format!("written to {}", p.display())),
            Err(_) => "lost: they could not be written".to_string(),
        },
    };
    let (s, are) = if done == 1 { ("", "is") } else { ("s", "are") };
    let timeout = names(Input::Timeout);
    note(&format!(
        "error: a configuration ran past {timeout} {secs} s; the {done} finished configuration{s} {are} {kept}"
    ));
    Outcome::TimedOut
}
