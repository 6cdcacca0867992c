//! What a sweep session prints and streams as it goes: the plan, the copy yardstick, each record's
//! launch line (and its JSON Lines line, flushed as it finishes), warnings and, with `--verbose`, the
//! set-up steps' times. Events from every device's thread arrive here in turn.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::output::{self, note};
use crate::profile::Unavailable;
use crate::record::{self, Metric, Record, Report};
use crate::report::{self, Destination};
use crate::sweep::{Event, Options};

/// What an early end (past `--timeout`, a stop signal) needs to know of the session so far.
pub(super) struct Progress {
    /// The report so far (resumed and finished records, the device, the copy yardstick).
    pub partial: Report,
    /// Configurations finished in this run.
    pub done: usize,
}

/// Prints a session's events.
pub(super) struct Printer<'a> {
    pub to: &'a Destination,
    pub opts: &'a Options,
    /// `sum-matrix 16384x16384`: what the plan line names.
    pub what: String,
    /// JSON Lines written as records finish (`--format jsonl`).
    pub stream: Option<Box<dyn Write + Send>>,
    pub bar: indicatif::ProgressBar,
    /// Several devices: lines name theirs.
    pub multi: bool,
    pub progress: Arc<Mutex<Progress>>,
}

impl Printer<'_> {
    /// Shows one event of device `device` (called `name`).
    pub fn event(&mut self, device: u32, name: &str, e: Event<'_>) {
        let (to, opts, multi) = (self.to, self.opts, self.multi);
        if let Ok(mut p) = self.progress.lock() {
            match &e {
                Event::Record(r) => {
                    p.done += 1;
                    p.partial.records.push((*r).clone());
                }
                Event::Baseline(m) if p.partial.baselines.memcpy_dtod_gbs.is_none() => {
                    p.partial.baselines.memcpy_dtod_gbs = Some((*m).clone());
                }
                _ => {}
            }
        }
        if let Event::Record(_) = e {
            self.bar.inc(1);
        }
        let (stream, what) = (&mut self.stream, &self.what);
        self.bar.suspend(|| match e {
            Event::Planned { total, invalid } => {
                if !to.quiet && multi {
                    note(&format!(
                        "{what} on device {device} ({name}): takes the next of {total} config{} ({invalid} invalid) whenever it is free, {} warm-up + {} timed launches each, seed {}",
                        if total == 1 { "" } else { "s" },
                        opts.warmup,
                        opts.iters,
                        opts.seed,
                    ));
                } else if !to.quiet {
                    note(&format!(
                        "{what}: {total} config{} ({invalid} invalid), {} warm-up + {} timed launches each, on device {device} ({name}), seed {}",
                        if total == 1 { "" } else { "s" },
                        opts.warmup,
                        opts.iters,
                        opts.seed,
                    ));
                }
            }
            Event::Baseline(m) => {
                if !to.quiet {
                    let on = if multi { format!(" on device {device}") } else { String::new() };
                    note(&format!("device-to-device memcpy{on}: {:.1} GB/s ({})", m.value, m.source.as_str()));
                }
            }
            Event::Record(r) => {
                to.line(&r.launch_line());
                if let Some(c) = r.conditions.as_ref().filter(|c| c.throttled()) {
                    let clock = c.sm_clock_mhz.map(|[lo, hi]| format!(", SM clock {lo}-{hi} MHz")).unwrap_or_default();
                    note(&format!(
                        "warning: {} {} was timed while the GPU throttled ({}){clock}: its time is not comparable",
                        r.kernel,
                        record::dims(r.block),
                        c.throttle.join(", ")
                    ));
                }
                if let (Some(n), Some(t)) = (opts.until_noise, &r.time_ms)
                    && t.iqr_pct() > n.pct
                    && !to.quiet
                {
                    note(&format!(
                        "note: {} {}: spread {:.2}% still above {}% after {} timed launches (a cap was reached)",
                        r.kernel,
                        record::dims(r.block),
                        t.iqr_pct(),
                        n.pct,
                        t.iters
                    ));
                }
                if let Some(w) = stream.as_mut() {
                    // Each line is flushed as its configuration finishes: a killed run loses nothing done.
                    // A failed write stops the sweep, which then ends with the error.
                    let written = report::jsonl::line(r).and_then(|l| {
                        w.write_all(l.as_bytes())
                            .and_then(|()| w.flush())
                            .map_err(|e| output::write_error(&to.dest_name(), &e))
                    });
                    if let Err(e) = written {
                        output::fail(e);
                    }
                }
            }
            Event::Counters(passes) => {
                if !to.quiet {
                    note(&format!(
                        "hardware counters: {} metric{} through CUPTI, {passes} replay pass{} per config",
                        opts.metrics.len(),
                        if opts.metrics.len() == 1 { "" } else { "s" },
                        if passes == 1 { "" } else { "es" }
                    ));
                }
            }
            Event::NoCounters(why) => note(&format!("warning: measured metrics unavailable: {why}; showing estimates")),
            Event::Warning(why) => note(&format!("warning: {why}")),
            Event::Phase(phase) if to.verbose && !to.quiet => match multi {
                true => note(&format!("device {device}: {phase}")),
                false => note(&phase.to_string()),
            },
            Event::Phase(_) => {}
        });
    }
}

/// When each device reached each stage of its sweep, in seconds since the process started: what
/// `--verbose` shows at the end, so that the fixed part of a sweep (opening, set-up, tear-down) can be
/// told from the work, device by device.
#[derive(Default)]
pub(super) struct Timeline(Vec<(u32, Stages)>);

#[derive(Default)]
struct Stages {
    opened: Option<f64>,
    set_up: Option<f64>,
    first: Option<f64>,
    last: Option<f64>,
    records: usize,
    finished: Option<f64>,
}

impl Timeline {
    /// Notes the time `message` from `device` arrived.
    pub fn saw(&mut self, device: u32, message: &Message) {
        let now = output::since_start();
        let at = match self.0.iter().position(|(d, _)| *d == device) {
            Some(at) => at,
            None => {
                self.0.push((device, Stages::default()));
                self.0.len() - 1
            }
        };
        let s = &mut self.0[at].1;
        match message {
            Message::Opened(_) => s.opened = Some(now),
            Message::Baseline(_) => s.set_up = Some(now),
            Message::Record(_) => {
                s.first.get_or_insert(now);
                s.last = Some(now);
                s.records += 1;
            }
            Message::Finished(_) => s.finished = Some(now),
            _ => {}
        }
    }

    /// One line per device: `device 0: open at 0.41 s, set up at 0.93 s, 32 records 0.95-3.40 s,
    /// done at 3.41 s`.
    pub fn lines(&self) -> Vec<String> {
        let at = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{t:.2} s"));
        self.0
            .iter()
            .map(|(d, s)| {
                let records = match (s.first, s.last) {
                    (Some(a), Some(b)) => {
                        format!("{} record{} {a:.2}-{b:.2} s", s.records, if s.records == 1 { "" } else { "s" })
                    }
                    _ => "no records".to_string(),
                };
                format!(
                    "device {d}: open at {}, set up at {}, {records}, done at {} (since the process started)",
                    at(s.opened),
                    at(s.set_up),
                    at(s.finished)
                )
            })
            .collect()
    }
}

/// An event as a device's thread sends it to the printer (owning what [`Event`] borrows).
pub(super) enum Message {
    /// The device is open.
    Opened(Box<crate::gpu::DeviceInfo>),
    Planned {
        total: usize,
        invalid: usize,
    },
    Baseline(Metric),
    Record(Box<Record>),
    Phase(crate::sweep::Phase),
    Counters(usize),
    NoCounters(Unavailable),
    Warning(String),
    /// The device's slice of the sweep is over.
    Finished(Box<crate::Result<Report>>),
}

impl Message {
    /// The message of an event.
    pub fn of(e: Event<'_>) -> Message {
        match e {
            Event::Planned { total, invalid } => Message::Planned { total, invalid },
            Event::Baseline(m) => Message::Baseline(m.clone()),
            Event::Record(r) => Message::Record(Box::new(r.clone())),
            Event::Phase(p) => Message::Phase(p),
            Event::Counters(p) => Message::Counters(p),
            Event::NoCounters(u) => Message::NoCounters(u.clone()),
            Event::Warning(w) => Message::Warning(w),
        }
    }

    /// The event it carries, if it carries one.
    pub fn event(&self) -> Option<Event<'_>> {
        Some(match self {
            Message::Planned { total, invalid } => Event::Planned { total: *total, invalid: *invalid },
            Message::Baseline(m) => Event::Baseline(m),
            Message::Record(r) => Event::Record(r),
            Message::Phase(p) => Event::Phase(*p),
            Message::Counters(p) => Event::Counters(*p),
            Message::NoCounters(u) => Event::NoCounters(u),
            Message::Warning(w) => Event::Warning(w.clone()),
            Message::Opened(_) | Message::Finished(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Status;
    use crate::spec::Dim3;

    #[test]
    fn the_timeline_gives_each_device_its_stages_in_the_order_they_came() {
        let mut t = Timeline::default();
        let record =
            || Message::Record(Box::new(Record::new("k", "p", Dim3::new(1, 1, 1), Dim3::new(32, 1, 1), Status::Ok)));
        let metric =
            Metric { name: "m".into(), value: 1.0, unit: "GB/s".into(), source: crate::record::Source::Measured };
        t.saw(1, &Message::Opened(Box::new(crate::gpu::DeviceInfo::unknown())));
        t.saw(0, &Message::Warning("seen, not timed".into()));
        t.saw(1, &Message::Baseline(metric));
        t.saw(1, &record());
        t.saw(1, &record());
        t.saw(1, &Message::Finished(Box::new(Err(crate::Error::internal("x")))));
        let lines = t.lines();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("device 1: open at "), "{}", lines[0]);
        assert!(lines[0].contains(", set up at ") && lines[0].contains(" s, 2 records "), "{}", lines[0]);
        let times: Vec<f64> =
            lines[0].split(|c: char| !(c.is_ascii_digit() || c == '.')).filter_map(|w| w.parse().ok()).collect();
        // The device, open, set up, the records' count, first and last record, done: the times in order.
        assert_eq!(times.len(), 7, "{times:?}");
        let order = [times[1], times[2], times[4], times[5], times[6]];
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        assert_eq!(lines[1], "device 0: open at -, set up at -, no records, done at - (since the process started)");
    }
}
