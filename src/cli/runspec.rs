//! `warpscope run-spec FILE.toml`: runs an experiment file's steps, each as its own warpscope process
//! (a failing step does not end the others, and Ctrl-C reaches the step in progress), keeps every output
//! in one results folder, and writes `summary.md` with each step's table and figure.

use std::fs::{self, File};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

use clap::{Args, Parser};

use warpscope::Outcome;
use warpscope::gpu::BackendKind;
use warpscope::report::html;
use warpscope::report::{self, Format};
use warpscope::runspec::{Spec, Step, StepRun, results, shell_line};
use warpscope::{Error, Result};

use super::{Cli, Context, DeviceArg, signals, usage};

/// Arguments of `run-spec`.
#[derive(Args, Debug)]
pub struct RunSpecArgs {
    /// The experiment file (TOML; see experiments/).
    file: PathBuf,
    /// Results folder (default: results/<the experiment's name>).
    #[arg(short = 'o', long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Run only these steps (comma-separated names).
    #[arg(long, value_name = "NAMES")]
    only: Option<String>,
    /// Print and check the command lines without running them.
    #[arg(long)]
    dry_run: bool,
    /// Also write one self-contained HTML report of every step to FILE: each step's command line, its
    /// figures and records (sortable, filterable), or its printed output.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    gpu: DeviceArg,
}

pub fn run(ctx: &Context, a: &RunSpecArgs) -> Result<Outcome> {
    if a.html.as_deref().is_some_and(warpscope::output::is_stdout) {
        return Err(usage("run-spec --html -: standard output carries the steps' outcomes; give a file name"));
    }
    if a.output.as_deref().is_some_and(warpscope::output::is_stdout) {
        return Err(usage("run-spec -o -: the results are a folder of files, not standard output"));
    }
    let spec = Spec::read(&a.file)?;
    let dir = a.output.clone().unwrap_or_else(|| PathBuf::from("results").join(&spec.name));
    let steps: Vec<&Step> = match &a.only {
        None => spec.steps.iter().collect(),
        Some(list) => {
            let names: Vec<&str> = list.split(',').map(str::trim).collect();
            if let Some(n) = names.iter().find(|n| !spec.steps.iter().any(|s| s.name == **n)) {
                let known: Vec<&str> = spec.steps.iter().map(|s| s.name.as_str()).collect();
                return Err(usage(format!("--only: no step '{n}' (steps: {})", known.join(", "))));
            }
            spec.steps.iter().filter(|s| names.contains(&s.name.as_str())).collect()
        }
    };
    // Every command line goes through the real parser before anything runs. The steps that run on a
    // GPU run on run-spec's --device.
    let lines: Vec<Vec<String>> = steps
        .iter()
        .map(|s| {
            let mut argv = s.argv(&dir);
            if super::uses_gpu(&s.command) {
                argv.extend(["--device".to_string(), a.gpu.device.to_string()]);
            }
            if ctx.backend == BackendKind::Mock {
                argv.extend(["--backend".into(), "mock".into()]);
            }
            argv
        })
        .collect();
    for (s, argv) in steps.iter().zip(&lines) {
        if let Err(e) = Cli::try_parse_from(std::iter::once("warpscope".to_string()).chain(argv.iter().cloned())) {
            return Err(usage(format!("{}: step '{}': {}", a.file.display(), s.name, super::one_line(&e))));
        }
    }
    if a.dry_run {
        for argv in &lines {
            outln!("{}", shell_line(argv))?;
        }
        return Ok(Outcome::Ok);
    }
    fs::create_dir_all(&dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
    if let Some(h) = &a.html {
        warpscope::output::check_writable(h)?;
    }
    let exe = std::env::current_exe().map_err(|e| Error::Output(format!("cannot find warpscope's own binary: {e}")))?;
    let started = SystemTime::now();
    let mut outcomes = Vec::new();
    for (i, (step, argv)) in steps.iter().zip(lines).enumerate() {
        errln!("[{}/{}] {}: {}", i + 1, steps.len(), step.name, shell_line(&argv));
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
        errln!("      exit {code}, {secs:.1} s (log: {})", file("log").display());
        if step.reports() && file("json").exists() {
            let r = report::read(&file("json"))?;
            for (ext, format) in [("csv", Format::Csv), ("md", Format::Markdown), ("txt", Format::Table)] {
                report::write_file(&r, format, &file(ext))?;
            }
        }
        outcomes.push(StepRun { step, argv, code, secs });
        if signals::is_stop_code(code) || signals::stop_requested() {
            errln!("interrupted: the remaining steps were not run");
            break;
        }
    }
    let summary = results::summary(&spec, &a.file, &dir, &outcomes, started)?;
    let path = dir.join("summary.md");
    warpscope::output::emit(&path, summary.as_bytes())?;
    if let Some(h) = &a.html {
        let reports = results::step_reports(&dir, &outcomes)?;
        html::write(&results::page(&spec, &a.file, &dir, &outcomes, reports, started)?, h)?;
        errln!("wrote {}", h.display());
    }
    for o in &outcomes {
        outln!("{:<24} exit {:<3} {:>8.1} s", o.step.name, o.code, o.secs)?;
    }
    outln!("results in {} (summary.md)", dir.display())?;
    let failed = outcomes.iter().filter(|o| o.code != 0).count();
    // The exit code says the worst that happened: stopped by a signal, a step that could not run
    // (bad input, no GPU: 2), a result that failed verification (1).
    let stopped = outcomes.iter().map(|o| o.code).find(|&c| signals::is_stop_code(c));
    let stopped_by = signals::first().and_then(|s| u8::try_from(128 + s).ok());
    Ok(match stopped_by.or(stopped.and_then(|c| u8::try_from(c).ok())) {
        Some(code) => Outcome::Program(code),
        None if failed > 0 => {
            errln!("{failed} of {} steps failed", outcomes.len());
            let worst = outcomes.iter().any(|o| o.code != 0 && o.code != 1);
            if worst { Outcome::Program(2) } else { Outcome::CheckFailed }
        }
        None => Outcome::Ok,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_lines_quote_what_needs_it() {
        let argv = vec!["sweep".to_string(), "a b".into(), "it's".into(), "32x8".into()];
        assert_eq!(shell_line(&argv), r"warpscope sweep 'a b' 'it'\''s' 32x8");
    }

    #[test]
    fn the_parser_is_the_cli() {
        assert!(Cli::try_parse_from(["warpscope", "sweep", "sum-matrix", "--block", "32x8"]).is_ok());
    }
}
