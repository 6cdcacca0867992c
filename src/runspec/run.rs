//! `warpscope run-spec` once its arguments are checked: each step run as its own warpscope process (a
//! failing step does not end the others, and a stop signal reaches the step in progress), every output
//! kept in one results folder, `summary.md` (and the page) written, and the outcome the worst step's.

use std::fs::{self, File};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

use super::{ExperimentFile, Step, StepRun, results, shell_line};
use crate::error::{Error, Input, Result};
use crate::gpu::BackendKind;
use crate::output::{self, note};
use crate::report::{self, Format, html};
use crate::{Outcome, signals};

/// What the front end knows of its own command lines: the library builds the steps' command lines, the
/// front end says which run on a GPU and whether each one parses.
pub trait CommandLines {
    /// Whether `command` runs on a GPU (takes a device).
    fn uses_gpu(&self, command: &str) -> bool;
    /// Why `argv` (without `warpscope`) is not a command line of warpscope's, in one line, if it is not.
    fn check(&self, argv: &[String]) -> std::result::Result<(), String>;
}

/// An experiment file to run, and how.
pub struct Request<'a> {
    /// The experiment file.
    pub file: &'a Path,
    /// The results folder (`None`: results/<the experiment's name>).
    pub output: Option<PathBuf>,
    /// Only these steps (comma-separated names).
    pub only: Option<&'a str>,
    /// Print and check the command lines without running them.
    pub dry_run: bool,
    /// Where to write one page of every step.
    pub html: Option<&'a Path>,
    /// The device the steps that run on a GPU run on.
    pub device: u32,
    /// The backend the steps run on.
    pub backend: BackendKind,
    /// The front end's command lines.
    pub lines: &'a dyn CommandLines,
}

impl Request<'_> {
    /// Runs the steps; the outcome is the worst of theirs (a stop signal, a step that could not run,
    /// a failed check).
    pub fn run(&self) -> Result<Outcome> {
        let spec = ExperimentFile::read(self.file)?;
        let dir = self.output.clone().unwrap_or_else(|| PathBuf::from("results").join(&spec.name));
        let steps = self.steps(&spec)?;
        // Every command line goes through the real parser before anything runs. The steps that run on a
        // GPU run on run-spec's device.
        let lines: Vec<Vec<String>> = steps
            .iter()
            .map(|s| {
                let mut argv = s.argv(&dir);
                if self.lines.uses_gpu(&s.command) {
                    argv.extend(["--device".to_string(), self.device.to_string()]);
                }
                if self.backend == BackendKind::Mock {
                    argv.extend(["--backend".into(), "mock".into()]);
                }
                argv
            })
            .collect();
        for (s, argv) in steps.iter().zip(&lines) {
            if let Err(e) = self.lines.check(argv) {
                return Err(Error::usage(format!("{}: step '{}': {e}", self.file.display(), s.name)));
            }
        }
        if self.dry_run {
            for argv in &lines {
                output::println(&shell_line(argv))?;
            }
            return Ok(Outcome::Ok);
        }
        fs::create_dir_all(&dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
        if let Some(h) = self.html {
            output::check_writable(h)?;
        }
        let started = SystemTime::now();
        let outcomes = run_steps(&steps, lines, &dir)?;
        let summary = results::summary(&spec, self.file, &dir, &outcomes, started)?;
        output::emit(&dir.join("summary.md"), summary.as_bytes())?;
        if let Some(h) = self.html {
            let reports = results::step_reports(&dir, &outcomes)?;
            html::write(&results::page(&spec, self.file, &dir, &outcomes, reports, started)?, h)?;
            note(&format!("wrote {}", h.display()));
        }
        for o in &outcomes {
            output::println(&format!("{:<24} exit {:<3} {:>8.1} s", o.step.name, o.code, o.secs))?;
        }
        output::println(&format!("results in {} (summary.md)", dir.display()))?;
        Ok(worst(&outcomes))
    }

    /// The steps to run: all, or those named.
    fn steps<'s>(&self, spec: &'s ExperimentFile) -> Result<Vec<&'s Step>> {
        let Some(list) = self.only else { return Ok(spec.steps.iter().collect()) };
        let names: Vec<&str> = list.split(',').map(str::trim).collect();
        if let Some(n) = names.iter().find(|n| !spec.steps.iter().any(|s| s.name == **n)) {
            let known: Vec<&str> = spec.steps.iter().map(|s| s.name.as_str()).collect();
            return Err(Error::input(Input::Only, None, format!("no step '{n}' (steps: {})", known.join(", "))));
        }
        Ok(spec.steps.iter().filter(|s| names.contains(&s.name.as_str())).collect())
    }
}

/// Runs each step in its own process, its output in `dir`, until one is stopped by a signal.
fn run_steps<'s>(steps: &[&'s Step], lines: Vec<Vec<String>>, dir: &Path) -> Result<Vec<StepRun<'s>>> {
    let exe = std::env::current_exe().map_err(|e| Error::Output(format!("cannot find warpscope's own binary: {e}")))?;
    let mut outcomes = Vec::new();
    for (i, (step, argv)) in steps.iter().zip(lines).enumerate() {
        note(&format!("[{}/{}] {}: {}", i + 1, steps.len(), step.name, shell_line(&argv)));
        let file = |ext: &str| dir.join(format!("{}.{ext}", step.name));
        let create =
            |p: PathBuf| File::create(&p).map_err(|source| Error::Io { path: p.display().to_string(), source });
        let log = create(file("log"))?;
        let stdout = if step.reports() {
            Stdio::from(log.try_clone().map_err(|e| Error::Output(e.to_string()))?)
        } else {
            Stdio::from(create(file("txt"))?)
        };
        let t = Instant::now();
        // The step runs in its own process group: a stop signal reaches it once, through run-spec,
        // whether it came from the terminal or from a batch scheduler.
        let mut child = Command::new(&exe)
            .args(&argv)
            .stdout(stdout)
            .stderr(log)
            .process_group(0)
            .spawn()
            .map_err(|e| Error::Output(format!("cannot run {}: {e}", exe.display())))?;
        signals::forward_to(Some(child.id()));
        let status = child.wait();
        signals::forward_to(None);
        let status = status.map_err(|e| Error::Output(format!("cannot run {}: {e}", exe.display())))?;
        let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
        let secs = t.elapsed().as_secs_f64();
        note(&format!("      exit {code}, {secs:.1} s (log: {})", file("log").display()));
        if step.reports() && file("json").exists() {
            let r = report::read(&file("json"))?;
            for (ext, format) in [("csv", Format::Csv), ("md", Format::Markdown), ("txt", Format::Table)] {
                report::write_file(&r, format, &file(ext))?;
            }
        }
        outcomes.push(StepRun { step, argv, code, secs });
        if signals::is_stop_code(code) || signals::stop_requested() {
            note("interrupted: the remaining steps were not run");
            break;
        }
    }
    Ok(outcomes)
}

/// The exit code says the worst that happened: stopped by a signal, a step that could not run (bad
/// input, no GPU: 2), a result that failed verification (1).
fn worst(outcomes: &[StepRun<'_>]) -> Outcome {
    let failed = outcomes.iter().filter(|o| o.code != 0).count();
    let stopped = outcomes.iter().map(|o| o.code).find(|&c| signals::is_stop_code(c));
    let stopped_by = signals::first().and_then(|s| u8::try_from(128 + s).ok());
    match stopped_by.or(stopped.and_then(|c| u8::try_from(c).ok())) {
        Some(code) => Outcome::Program(code),
        None if failed > 0 => {
            note(&format!("{failed} of {} steps failed", outcomes.len()));
            let worst = outcomes.iter().any(|o| o.code != 0 && o.code != 1);
            if worst { Outcome::Program(2) } else { Outcome::CheckFailed }
        }
        None => Outcome::Ok,
    }
}
