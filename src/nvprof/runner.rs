//! Runs the program under `warpscope nvprof`: finds the program and the injection library, starts the
//! program with the library named in `CUDA_INJECTION64_PATH` and the configuration beside it, waits for
//! it (and, with `--profile-child-processes`, for every descendant, `warpscope` being their subreaper),
//! and reads back what each profiled process wrote. Application replay runs the program once per group
//! of metrics and merges the runs.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::errno::Errno;
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::Pid;

use super::options::{Counters, Options};
use super::process::Process;
use super::protocol::{self, CONFIG_VAR, Config, ReplayMode};
use crate::error::{Error, Result};

/// The injection library's file name.
pub const LIBRARY: &str = "libwarpscope_inject.so";

/// How the program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// `exit(code)`.
    Code(i32),
    /// Killed by this signal.
    Signal(i32),
}

impl Exit {
    /// The exit code a shell would report: the code, or 128 + the signal.
    pub fn code(self) -> u8 {
        match self {
            Exit::Code(c) => (c & 0xff) as u8,
            Exit::Signal(s) => (128 + s).clamp(0, 255) as u8,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The root process's pid.
    pub root: u32,
    /// Every profiled process, in pid order.
    pub processes: Vec<Process>,
    /// How the program ended (the first run's, with application replay).
    pub exit: Exit,
    /// Times the program ran.
    pub runs: usize,
    /// Problems met while merging application-replay runs.
    pub warnings: Vec<String>,
}

/// The injection library: `WARPSCOPE_INJECTION`, else next to the `warpscope` binary (or in
/// `../lib`, `../lib/warpscope` from it).
pub fn injection_library() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("WARPSCOPE_INJECTION") {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(Error::usage(format!("WARPSCOPE_INJECTION={}: no such file", p.display())))
        };
    }
    let exe = std::env::current_exe().map_err(|source| Error::Io { path: "warpscope".into(), source })?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join(LIBRARY), dir.join("../lib").join(LIBRARY), dir.join("../lib/warpscope").join(LIBRARY)];
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| {
        Error::usage(format!(
            "the injection library {LIBRARY} is not next to warpscope ({}): `cargo build --release` builds both; or set WARPSCOPE_INJECTION=/path/to/{LIBRARY}",
            dir.display()
        ))
    })
}

/// The program to run: a path (with a `/`), else found on `PATH` like a shell would.
pub fn resolve_program(program: &str) -> Result<PathBuf> {
    let check = |p: &Path| -> Result<PathBuf> {
        let meta = fs::metadata(p).map_err(|_| Error::usage(format!("{program}: program not found")))?;
        if meta.is_dir() {
            return Err(Error::usage(format!("{program}: is a directory, not a program")));
        }
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(Error::usage(format!("{program}: not executable (chmod +x {program})")));
        }
        Ok(p.to_path_buf())
    };
    if program.contains('/') {
        return check(Path::new(program));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).map(|d| d.join(program)).find(|p| p.is_file());
    match found {
        Some(p) => check(&p),
        None => Err(Error::usage(format!("{program}: program not found (not a path, and not on PATH)"))),
    }
}

fn now_unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// Runs the program once per metric group (once, without application replay) and gathers the results.
/// `live` lets the injection print nvprof's `==PID==` notices to the program's standard error as they
/// happen (no `--log-file`). `started` is told each run's process id as it starts, and `None` when it
/// has ended (the command line passes stop signals on to it).
pub fn run(
    opts: &Options,
    counters: &Counters,
    injection: &Path,
    live: bool,
    started: &dyn Fn(Option<u32>),
) -> Result<Outcome> {
    let program = resolve_program(&opts.program)?;
    let root_dir = tempfile::Builder::new()
        .prefix("warpscope-nvprof-")
        .tempdir()
        .map_err(|source| Error::Io { path: std::env::temp_dir().display().to_string(), source })?;
    let mut outcome: Option<Outcome> = None;
    let mut groups = 1;
    let mut run = 0;
    while run < groups {
        let dir = root_dir.path().join(format!("run{run}"));
        fs::create_dir(&dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
        let first = run == 0;
        let cfg = Config {
            dir: dir.clone(),
            parent: std::process::id(),
            children: opts.children,
            // The API trace names each launch's kernel: from the kernel's activity record.
            gpu: first && (opts.show.gpu_summary || opts.show.gpu_trace || opts.show.api_trace),
            api: first && (opts.show.api_summary || opts.show.api_trace),
            api_trace: first && opts.show.api_trace,
            metrics: opts.metric_spec.clone(),
            events: opts.event_spec.clone(),
            filter: opts.filter.clone(),
            devices: opts.devices.clone(),
            replay: opts.replay,
            group: run,
            origin_unix_ns: now_unix_ns(),
            banner: live && first && !opts.quiet,
            ranges: ranges(),
            from_start: opts.from_start,
            serial_kernels: !opts.concurrent_kernels,
        };
        let (root, exit, timed_out) = spawn(&program, opts, &cfg, injection, started)?;
        let processes = collect(&dir)?;
        keep(&dir, run);
        match outcome.as_mut() {
            None => {
                if opts.replay == ReplayMode::Application && counters.any() {
                    groups = processes.iter().map(|p| p.groups).max().unwrap_or(1).max(1);
                }
                outcome = Some(Outcome { root, processes, exit, runs: 1, warnings: Vec::new() });
            }
            Some(o) => {
                o.runs += 1;
                if exit != o.exit {
                    o.warnings.push(format!(
                        "application replay run {}: the program ended differently ({exit:?} after {:?})",
                        run + 1,
                        o.exit
                    ));
                }
                if processes.len() != o.processes.len() {
                    o.warnings.push(format!(
                        "application replay run {}: {} profiled processes, the first run had {}",
                        run + 1,
                        processes.len(),
                        o.processes.len()
                    ));
                }
                for (mine, theirs) in o.processes.iter_mut().zip(&processes) {
                    let lost = mine.merge_run(theirs);
                    if lost > 0 {
                        o.warnings.push(format!(
                            "application replay run {}: {lost} launch(es) of process {} did not match the first run's; their metrics from this run are left out",
                            run + 1,
                            mine.pid
                        ));
                    }
                    mine.errors
                        .extend(theirs.errors.iter().filter(|e| !mine.errors.contains(e)).cloned().collect::<Vec<_>>());
                }
            }
        }
        if let (true, Some(o), Some(secs)) = (timed_out, outcome.as_mut(), opts.timeout) {
            o.warnings.push(format!("the program ran past --timeout {secs} s and was stopped (run {})", run + 1));
        }
        run += 1;
    }
    outcome.ok_or_else(|| Error::Output("the program never ran".into()))
}

/// Kernels profiled between decodes of the counters (`WARPSCOPE_NVPROF_RANGES`, default 1): fewer
/// lose less when a program crashes, more decode less often.
fn ranges() -> usize {
    std::env::var("WARPSCOPE_NVPROF_RANGES").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(1)
}

/// Starts the program and waits for it (and its descendants, when they are profiled).
fn spawn(
    program: &Path,
    opts: &Options,
    cfg: &Config,
    injection: &Path,
    started: &dyn Fn(Option<u32>),
) -> Result<(u32, Exit, bool)> {
    if opts.children {
        // Orphaned descendants become warpscope's children, so their ends can be waited for.
        let _ = nix::sys::prctl::set_child_subreaper(true);
    }
    let config = serde_json::to_string(cfg).map_err(|e| Error::Output(e.to_string()))?;
    let child = Command::new(program)
        .arg0(&opts.program)
        .args(&opts.args)
        .env(CONFIG_VAR, config)
        .env("CUDA_INJECTION64_PATH", injection)
        .spawn()
        .map_err(|e| Error::usage(format!("{}: cannot run: {e}", opts.program)))?;
    let root = Pid::from_raw(child.id() as i32);
    started(Some(child.id()));
    let (ended, done) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let fired = opts.timeout.map(|secs| watchdog(root, Duration::from_secs_f64(secs), ended.clone(), done.clone()));
    let exit = wait(root, opts, &ended);
    ended.store(true, Ordering::SeqCst);
    done.store(true, Ordering::SeqCst);
    started(None);
    let exit = exit?.ok_or_else(|| Error::Output(format!("{}: lost track of the program", opts.program)))?;
    Ok((root.as_raw() as u32, exit, fired.is_some_and(|f| f.load(Ordering::SeqCst))))
}

/// nvprof's `--timeout`: once the program has run `limit`, SIGTERM to it and every process it started
/// (the injection library flushes what it collected, then each dies of it), and SIGKILL 5 s later to
/// whatever still runs of them (children left behind become warpscope's own when their parent dies).
/// Nothing is sent once `done` (everything waited for was reaped) is set, nor to the program itself
/// once `ended` (it was reaped: its pid may be reused). Returns whether the limit was reached.
fn watchdog(root: Pid, limit: Duration, ended: Arc<AtomicBool>, done: Arc<AtomicBool>) -> Arc<AtomicBool> {
    use nix::sys::signal::{Signal, kill};
    let fired = Arc::new(AtomicBool::new(false));
    let flag = fired.clone();
    // Sleeps in short steps so that nothing is signalled once the run is over.
    let until = move |t: Instant| {
        while Instant::now() < t {
            if done.load(Ordering::SeqCst) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20).min(t.saturating_duration_since(Instant::now())));
        }
        !done.load(Ordering::SeqCst)
    };
    std::thread::spawn(move || {
        if !until(Instant::now() + limit) {
            return;
        }
        flag.store(true, Ordering::SeqCst);
        let me = Pid::this();
        if !ended.load(Ordering::SeqCst) {
            let _ = kill(root, Signal::SIGTERM);
        }
        for pid in descendants(me).into_iter().filter(|&p| p != root) {
            let _ = kill(pid, Signal::SIGTERM);
        }
        if until(Instant::now() + Duration::from_secs(5)) {
            for pid in descendants(me) {
                let _ = kill(pid, Signal::SIGKILL);
            }
        }
    });
    fired
}

/// Every process below `top` (children, theirs, ...), from /proc; empty where /proc cannot be read.
fn descendants(top: Pid) -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    // (pid, parent) of every process: /proc/PID/stat is "pid (comm) state ppid ...", comm may hold spaces.
    let parents: Vec<(i32, i32)> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![top.as_raw()];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|&&(_, pp)| pp == p).map(|&(c, _)| c));
        i += 1;
    }
    found.into_iter().skip(1).map(Pid::from_raw).collect()
}

/// Waits for the program `root` (and, profiling children, for every descendant): how it ended. Sets
/// `ended` when the root has been reaped.
fn wait(root: Pid, opts: &Options, ended: &AtomicBool) -> Result<Option<Exit>> {
    let mut exit = None;
    loop {
        let status = waitpid(None::<Pid>, None);
        if matches!(status, Ok(WaitStatus::Exited(pid, _) | WaitStatus::Signaled(pid, _, _)) if pid == root) {
            ended.store(true, Ordering::SeqCst);
        }
        match status {
            Ok(WaitStatus::Exited(pid, code)) if pid == root => exit = Some(Exit::Code(code)),
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == root => exit = Some(Exit::Signal(sig as i32)),
            Ok(_) | Err(Errno::EINTR) => {}
            Err(Errno::ECHILD) => break,
            Err(e) => return Err(Error::Output(format!("waiting for {}: {e}", opts.program))),
        }
        if exit.is_some() && !opts.children {
            break;
        }
    }
    Ok(exit)
}

/// With `WARPSCOPE_NVPROF_KEEP=DIR`, copies what the processes wrote to DIR (`run<N>-<pid>.jsonl`): the
/// raw results, for tests and for looking into a run.
fn keep(dir: &Path, run: usize) {
    let Some(dest) = std::env::var_os("WARPSCOPE_NVPROF_KEEP").map(PathBuf::from) else { return };
    if fs::create_dir_all(&dest).is_err() {
        return;
    }
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".jsonl") {
            continue;
        }
        let _ = fs::copy(e.path(), dest.join(format!("run{run}-{name}")));
    }
}

/// Every process that reported in `dir`, by pid.
fn collect(dir: &Path) -> Result<Vec<Process>> {
    let mut out = Vec::new();
    let entries = fs::read_dir(dir).map_err(|source| Error::Io { path: dir.display().to_string(), source })?;
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("jsonl") {
            continue;
        }
        let text = fs::read(&path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        let (messages, bad) = protocol::parse(&String::from_utf8_lossy(&text));
        if let Some(p) = Process::from_messages(messages, bad) {
            out.push(p);
        }
    }
    out.sort_by_key(|p| p.pid);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_or_say_why_not() {
        assert!(resolve_program("sh").unwrap().is_absolute());
        let e = resolve_program("./surely/not/here").unwrap_err().to_string();
        assert_eq!(e, "./surely/not/here: program not found");
        let e = resolve_program("surely-not-a-command-anywhere").unwrap_err().to_string();
        assert!(e.contains("not on PATH"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("data.txt");
        fs::write(&f, "x").unwrap();
        let e = resolve_program(f.to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("not executable"), "{e}");
        assert!(resolve_program(dir.path().to_str().unwrap()).unwrap_err().to_string().contains("directory"));
    }

    #[test]
    fn exit_codes_follow_the_shell() {
        assert_eq!(Exit::Code(3).code(), 3);
        assert_eq!(Exit::Signal(11).code(), 139);
    }
}
