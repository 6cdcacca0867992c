//! Stop signals, all handled alike: SIGINT (Ctrl-C), SIGTERM (a batch scheduler's stop) and SIGHUP (a
//! closed terminal). The first asks running work to stop after the configuration in progress; what
//! finished is written and the command ends [`crate::Outcome::Interrupted`] (exit 128 + the signal's
//! number: 130, 143, 129). A second signal ends the process at once, by that signal's default action. A child process being waited for (a run-spec step, in its own
//! process group) is sent every signal too, so it stops the same way. `nvprof` leaves them to the
//! program it profiles ([`leave_to_program`]).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::output::note;

/// Whether running work was asked to stop after the configuration in progress.
static STOP: AtomicBool = AtomicBool::new(false);

/// Asks running work (sweeps, benchmarks, estimates) to stop after the configuration in progress: a
/// stop signal does, and so does a write that failed inside the work ([`crate::output::fail`]).
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether [`request_stop`] was called: work that returns early because of it says so by this.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// The first stop signal received (0: none).
static FIRST: AtomicI32 = AtomicI32::new(0);
/// The child process that gets every signal too (0: none).
static CHILD: AtomicU32 = AtomicU32::new(0);

/// Starts the thread that handles the stop signals.
pub fn install() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        note("warning: cannot handle stop signals: Ctrl-C will lose what has not been written");
        return;
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if let Ok(pid) = i32::try_from(CHILD.load(Ordering::SeqCst))
                && pid > 0
            {
                // SAFETY: kill(2) with a live child's pid and a valid signal number.
                unsafe { libc::kill(pid, sig) };
            }
            if FIRST.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst).is_err() {
                // The second signal: the process ends by the signal itself, as if unhandled.
                let _ = signal_hook::low_level::emulate_default_handler(sig);
            }
            request_stop();
            note(&format!("{}: finishing the configuration in progress (again to stop now)", name(sig)));
        }
    });
}

/// For `nvprof`: the stop signals are the profiled program's, and warpscope stays to report what was
/// collected once the program has ended (its exit code is then the program's). Ctrl-C (SIGINT) reaches
/// the whole foreground process group, the program included, so it is left to the program; SIGTERM and
/// SIGHUP, often sent to warpscope alone, are passed on to the program ([`forward_to`]).
pub fn leave_to_program() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        note("warning: cannot handle stop signals: Ctrl-C will end warpscope before it reports");
        return;
    };
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if let Ok(pid) = i32::try_from(CHILD.load(Ordering::SeqCst))
                && pid > 0
                && sig != SIGINT
            {
                // SAFETY: kill(2) with a child's pid and a valid signal number.
                unsafe { libc::kill(pid, sig) };
            }
        }
    });
}

/// The first stop signal received, if any.
pub fn first() -> Option<i32> {
    match FIRST.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig),
    }
}

/// Whether `code` is the exit code of a warpscope process stopped by one of the stop signals.
pub fn is_stop_code(code: i32) -> bool {
    [SIGINT, SIGTERM, SIGHUP].iter().any(|s| code == 128 + s)
}

/// Sends every stop signal from now on to `pid` as well (`None`: to no child).
pub fn forward_to(pid: Option<u32>) {
    CHILD.store(pid.unwrap_or(0), Ordering::SeqCst);
}

fn name(sig: i32) -> &'static str {
    match sig {
        SIGTERM => "terminated (SIGTERM)",
        SIGHUP => "hung up (SIGHUP)",
        _ => "interrupted",
    }
}
