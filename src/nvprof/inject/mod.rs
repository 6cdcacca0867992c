//! The part of `warpscope nvprof` that runs inside the profiled program, loaded by the CUDA driver
//! through the injection library. It reads its [`Config`], records GPU activities and API calls with
//! CUPTI's Activity API, and collects metrics and events of the selected kernel launches with the
//! Range Profiler: a window of consecutive selected launches on one context is profiled as auto ranges
//! (kernel replay, or one pass per run under application replay), then decoded into one record each.
//! Everything goes to this process's JSON Lines file as it is known; the rest at `exit`.

mod gate;
mod launches;
mod share;
mod trace;

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::filter::Filter;
use super::options::{self, Counters};
use super::protocol::{self, CONFIG_VAR, Config, Message};
use super::render;
use crate::gpu::DeviceInfo;
use crate::model::arch;
use crate::profile::cupti::callback::{self, Context, Event, Site};
use crate::profile::cupti::{self, Lib, Replay, activity};
use launches::{Ctx, Prof, Timing, close, enter, exit, give_turn, graph_launch, graphs_ahead, instantiated};
use trace::{Act, on_activity};

static STATE: OnceLock<State> = OnceLock::new();
/// Launch calls one thread at a time while counters are collected.
static GATE: gate::Gate = gate::Gate::new();
/// Set once the results have been flushed (at exit, or on a fatal signal).
static FINISHED: AtomicBool = AtomicBool::new(false);
/// Whether the program is being profiled now: from the start, or (`--profile-from-start off`) between its
/// `cudaProfilerStart` and `cudaProfilerStop`.
static RECORDING: AtomicBool = AtomicBool::new(true);

fn recording() -> bool {
    RECORDING.load(Ordering::SeqCst)
}

struct State {
    cfg: Config,
    /// The activity kinds recorded.
    kinds: Vec<activity::Kind>,
    pid: u32,
    lib: &'static Lib,
    counters: Counters,
    /// CUPTI's clock at start-up, and the wall clock then minus the application's launch.
    t0: u64,
    offset_ns: i64,
    out: Mutex<Option<BufWriter<File>>>,
    prof: Mutex<Prof>,
    act: Mutex<Act>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// The program's command line as nvprof printed it.
fn command_line() -> String {
    std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn open(cfg: &Config, pid: u32) -> Option<BufWriter<File>> {
    OpenOptions::new().create(true).append(true).open(protocol::file_for(&cfg.dir, pid)).ok().map(BufWriter::new)
}

fn write_now(out: &mut Option<BufWriter<File>>, msgs: &[Message]) {
    if let Some(w) = out.as_mut() {
        for m in msgs {
            let _ = w.write_all(protocol::line(m).as_bytes());
        }
        let _ = w.flush();
    }
}

/// Called once by the driver at the program's first CUDA call: decides whether this process is
/// profiled, then starts CUPTI. Never fails the program: problems are reported to `warpscope`.
pub fn initialize() {
    let Ok(text) = std::env::var(CONFIG_VAR) else { return };
    let Ok(cfg) = serde_json::from_str::<Config>(&text) else { return };
    let pid = std::process::id();
    let ppid = nix::unistd::getppid().as_raw() as u32;
    if !cfg.children && ppid != cfg.parent {
        return;
    }
    let mut out = open(&cfg, pid);
    let command = command_line();
    write_now(&mut out, &[Message::Start { pid, ppid, command: command.clone() }]);
    if cfg.banner {
        say(&render::banner(pid, &command));
    }
    let fail = |out: &mut Option<BufWriter<File>>, why: String| {
        if cfg.banner {
            say(&render::error(pid, &why));
        }
        write_now(out, &[Message::Error(why)]);
    };
    let lib = match cupti::lib() {
        Ok(l) => l,
        Err(e) => return fail(&mut out, e.to_string()),
    };
    let counters = match options::counters(cfg.metrics.as_deref(), cfg.events.as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(&mut out, e.to_string()),
    };
    let filter = match Filter::new(&cfg.filter) {
        Ok(f) => f,
        Err(e) => return fail(&mut out, e.to_string()),
    };
    let t0 = activity::timestamp(lib).unwrap_or(0);
    let offset_ns = unix_ns() as i64 - cfg.origin_unix_ns as i64;
    let (gpu, api, profile) = (cfg.gpu, cfg.api, counters.any());
    let mut kinds = Vec::new();
    if gpu {
        let kernels = if cfg.serial_kernels { activity::Kind::SerialKernel } else { activity::Kind::Kernel };
        kinds.extend([kernels, activity::Kind::Memcpy, activity::Kind::Memset]);
    }
    if api {
        kinds.extend([activity::Kind::Runtime, activity::Kind::Driver]);
    }
    RECORDING.store(cfg.from_start, Ordering::SeqCst);
    // Other processes of the run may profile too: they take turns with the counters.
    let turns = (profile && cfg.children).then(|| share::Turn::new(&cfg.dir, pid));
    let watch = turns.is_some();
    let state = State {
        kinds: kinds.clone(),
        lib,
        pid,
        t0,
        offset_ns,
        counters,
        out: Mutex::new(out),
        prof: Mutex::new(Prof {
            filter,
            contexts: HashMap::new(),
            invocations: HashMap::new(),
            names: HashMap::new(),
            active: None,
            disabled: false,
            replay_noted: Vec::new(),
            availability: HashMap::new(),
            counters: None,
            replay: Replay::Kernel,
            graphs: HashMap::new(),
            graphs_missed: false,
            graphs_unordered: false,
            graph_mode: false,
            captured: Vec::new(),
            turn: turns,
            timing: Timing::default(),
        }),
        act: Mutex::new(Act {
            names: HashMap::new(),
            api: HashMap::new(),
            api_names: HashMap::new(),
            devices: Vec::new(),
            dropped: 0,
        }),
        cfg,
    };
    if STATE.set(state).is_err() {
        return;
    }
    let Some(st) = STATE.get() else { return };
    if let Err(e) = callback::subscribe(lib, profile, true, on_event) {
        return st.error(e.to_string());
    }
    if !kinds.is_empty() {
        match activity::enable(lib, &kinds, on_activity) {
            Err(e) => st.error(e.to_string()),
            Ok(()) if !recording() => st.set_recording(false),
            Ok(()) => {}
        }
    }
    // SAFETY: registers a plain function, run once at exit on the exiting thread.
    unsafe { libc::atexit(at_exit) };
    catch_fatal_signals();
    if watch {
        watch_turns();
    }
}

/// A thread that gives the counters up when another process of the run waits for them: the program's
/// own threads may be busy elsewhere (a parent waiting for its child) and launch nothing for a while.
fn watch_turns() {
    let watcher = || {
        while !FINISHED.load(Ordering::SeqCst) {
            std::thread::sleep(4 * share::POLL);
            let Some(st) = STATE.get() else { return };
            // A launch in progress holds the lock: its window is not to be disturbed; try again later.
            if let Ok(mut prof) = st.prof.try_lock()
                && !FINISHED.load(Ordering::SeqCst)
            {
                give_turn(st, &mut prof);
            }
        }
    };
    if let Err(e) = std::thread::Builder::new().name("warpscope-turns".into()).spawn(watcher)
        && let Some(st) = STATE.get()
    {
        st.notice(format!("cannot share the counters with other processes ({e}): a child process may get none"));
    }
}

/// A program killed by a signal never reaches `exit`: for the signals whose default is to end the
/// process, and that the program has not taken over, flush the results first, then die of the signal
/// as the program would have. Best effort: what runs here is not async-signal-safe, and locks held by
/// the interrupted thread are skipped rather than waited for.
fn catch_fatal_signals() {
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL, libc::SIGABRT, libc::SIGINT, libc::SIGTERM] {
        // SAFETY: reads the current action; installs ours only over the default one.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL {
                continue;
            }
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_fatal_signal as *const () as usize;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_fatal_signal(sig: libc::c_int) {
    let _ = std::panic::catch_unwind(|| finish(false));
    // SAFETY: back to the default action, then the same signal again: the process ends as it would have.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

impl State {
    fn emit(&self, msgs: &[Message]) {
        write_now(&mut lock(&self.out), msgs);
    }

    fn notice(&self, text: String) {
        if self.cfg.banner {
            say(&render::notice(self.pid, &text));
        }
        self.emit(&[Message::Notice(text)]);
    }

    fn error(&self, text: String) {
        if self.cfg.banner {
            say(&render::error(self.pid, &text));
        }
        self.emit(&[Message::Error(text)]);
    }

    /// Runs warpscope's own driver calls, kept out of the program's "API calls".
    fn own_driver_calls<T>(&self, f: impl FnOnce() -> T) -> T {
        let quiet = self.cfg.api && recording();
        if quiet {
            activity::pause(self.lib, activity::Kind::Driver);
        }
        let out = f();
        if quiet {
            activity::resume(self.lib, activity::Kind::Driver);
        }
        out
    }

    /// Starts or stops recording activities (`cudaProfilerStart`/`Stop` under `--profile-from-start off`).
    fn set_recording(&self, on: bool) {
        RECORDING.store(on, Ordering::SeqCst);
        for k in &self.kinds {
            if on {
                activity::resume(self.lib, *k);
            } else {
                activity::pause(self.lib, *k);
            }
        }
    }

    /// ns since the application was launched, of a CUPTI timestamp.
    fn since_launch(&self, t: u64) -> u64 {
        (t as i64 - self.t0 as i64 + self.offset_ns).max(0) as u64
    }
}

/// A launch call's callback (`site`), run with the profiler's state: the gate lets one thread at a time
/// from a launch call's entry to its exit.
fn launch_call(st: &State, site: Site, f: impl FnOnce(&mut Prof)) {
    if site == Site::Enter {
        GATE.enter();
    }
    {
        let mut prof = lock(&st.prof);
        if !prof.disabled {
            f(&mut prof);
        }
    }
    if site == Site::Exit {
        GATE.leave();
    }
}

fn on_event(e: Event) {
    let Some(st) = STATE.get() else { return };
    match e {
        Event::Launch(l) => launch_call(st, l.site, |prof| match l.site {
            Site::Enter => enter(st, prof, l),
            Site::Exit => exit(st, prof, l),
        }),
        Event::GraphLaunch(g) => launch_call(st, g.site, |prof| graph_launch(st, prof, g)),
        Event::GraphBuilding { context, context_id } => {
            let mut prof = lock(&st.prof);
            if !prof.disabled {
                graphs_ahead(st, &mut prof, context, context_id, 1);
            }
        }
        Event::GraphInstantiate { site: Site::Enter, context, context_id, kernels, .. } => {
            let mut prof = lock(&st.prof);
            if !prof.disabled {
                graphs_ahead(st, &mut prof, context, context_id, kernels.len());
            }
        }
        Event::GraphInstantiate { site: Site::Exit, context, exec, kernels, ordered, .. } => {
            let mut prof = lock(&st.prof);
            if let Some(exec) = exec {
                instantiated(&mut prof, context, exec, kernels, ordered);
            }
        }
        Event::ProfilerStart => st.set_recording(true),
        Event::ProfilerStop => {
            let mut prof = lock(&st.prof);
            let contexts: Vec<Context> = prof.contexts.keys().copied().collect();
            for c in contexts {
                close(st, &mut prof, c);
            }
            drop(prof);
            st.set_recording(false);
        }
        Event::ContextCreated { context, context_id, device } => {
            lock(&st.prof).contexts.insert(context, Ctx::new(context_id, device));
            announce(st, device);
        }
        Event::ContextDestroying { context, .. } => {
            let mut prof = lock(&st.prof);
            close(st, &mut prof, context);
            if let Some(c) = prof.contexts.get_mut(&context) {
                c.session = None;
            }
            prof.contexts.remove(&context);
        }
    }
}

/// Reports a device the first time the program uses it (and, the first time of all, a driver older
/// than the CUPTI loaded, which can profile nothing).
fn announce(st: &State, device: u32) {
    {
        let mut act = lock(&st.act);
        if act.devices.contains(&device) {
            return;
        }
        act.devices.push(device);
        if act.devices.len() == 1 {
            drop(act);
            if let Some(why) = too_old_driver(st) {
                lock(&st.prof).disabled = true;
                st.error(why);
            }
        }
    }
    let props = st.own_driver_calls(|| callback::device_props(device));
    if let Some(p) = props {
        let cc = format!("{}.{}", p.major, p.minor);
        let a = arch::parse_arch(&cc).unwrap_or(&arch::ARCHS[0]);
        let info = DeviceInfo {
            ordinal: device,
            sms: Some(p.sms.max(0) as u32),
            memory_bytes: Some(p.memory),
            ..DeviceInfo::offline(p.name, cc, crate::gpu::Origin::Cuda, a)
        };
        st.emit(&[Message::Device(Box::new(info))]);
    }
}

/// Why the driver cannot serve the CUPTI that was loaded, if it cannot.
fn too_old_driver(st: &State) -> Option<String> {
    let driver = callback::driver_version()?;
    let cupti = Lib::cuda_major(st.lib.version().ok()?);
    let major = (driver / 1000) as u32;
    (major < cupti).then(|| {
        format!(
            "the NVIDIA driver supports CUDA {major}.{}, older than the CUPTI loaded ({}, from CUDA {cupti}): update the driver, or set WARPSCOPE_CUPTI to a CUPTI of CUDA {major}",
            (driver % 1000) / 10,
            st.lib.path().display()
        )
    })
}

extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(|| finish(true));
}

/// A lock, or (`wait` false, in a signal handler) `None` when another thread holds it.
fn grab<T>(m: &Mutex<T>, wait: bool) -> Option<MutexGuard<'_, T>> {
    if wait {
        return Some(lock(m));
    }
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// At exit (or on a fatal signal, `wait` false): decode open windows, flush activity, report API calls
/// and the end. Runs once.
fn finish(wait: bool) {
    let Some(st) = STATE.get() else { return };
    if FINISHED.swap(true, Ordering::SeqCst) {
        return;
    }
    if let Some(mut prof) = grab(&st.prof, wait) {
        let contexts: Vec<Context> = prof.contexts.keys().copied().collect();
        for c in contexts {
            close(st, &mut prof, c);
        }
        if wait {
            for c in prof.contexts.values_mut() {
                c.session = None;
            }
        }
        if std::env::var_os("WARPSCOPE_NVPROF_DEBUG").is_some() {
            let t = &prof.timing;
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            st.notice(format!(
                "timing: {} launches in {} windows; {} counters in {} passes, {:?} replay; setup {:.1} ms, enter {:.1} ms, launch {:.1} ms, stop {:.1} ms, decode {:.1} ms, configure {:.1} ms; waited {:.1} ms for the counters, gave them up {} times",
                t.launches,
                t.windows,
                t.counters,
                t.passes,
                prof.replay,
                ms(t.setup),
                ms(t.enter),
                ms(t.launch),
                ms(t.stop),
                ms(t.decode),
                ms(t.reconfigure),
                ms(t.waited),
                t.handovers
            ));
        }
    }
    if st.cfg.gpu || st.cfg.api {
        flush_activity(st.lib, wait);
    }
    let Some(act) = grab(&st.act, wait) else { return };
    let mut msgs: Vec<Message> = act.api.values().cloned().map(Message::Api).collect();
    msgs.push(Message::End { dropped: act.dropped });
    drop(act);
    if let Some(mut out) = grab(&st.out, wait) {
        write_now(&mut out, &msgs);
    }
}

/// Hands CUPTI's activity buffers over. In a signal handler (`wait` false) the interrupted thread may be
/// inside a CUDA call holding the driver's or CUPTI's lock, and a flush on it never returned (a traced
/// program stopped mid-synchronization hung until SIGKILL): there the flush runs on a thread of its own
/// and is given up after a second, keeping the buffers already handed over.
fn flush_activity(lib: &'static Lib, wait: bool) {
    if wait {
        let _ = activity::flush(lib);
        return;
    }
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let flusher = std::thread::Builder::new().name("warpscope-flush".into()).spawn(move || {
        let _ = activity::flush(lib);
        flag.store(true, Ordering::SeqCst);
    });
    if flusher.is_ok() {
        let t0 = std::time::Instant::now();
        while !done.load(Ordering::SeqCst) && t0.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Writes nvprof's `==PID==` lines to the program's standard error; a closed one loses them and nothing
/// else (`eprint!` would panic inside the program).
fn say(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
