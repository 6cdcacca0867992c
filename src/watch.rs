//! How long the configuration in progress has kept its device busy: what `--timeout` judges, so that
//! the host's work between GPU calls (the models, the output, a window's records coming out together)
//! never counts against a configuration, and a kernel that hangs still does.

use std::sync::Mutex;
use std::time::Instant;

/// One device's busy clock for its configuration in progress.
#[derive(Debug, Default)]
pub struct Watch(Mutex<Busy>);

#[derive(Debug, Default)]
struct Busy {
    /// Seconds of finished GPU calls of this configuration.
    done: f64,
    /// When the GPU call in progress began.
    since: Option<Instant>,
}

impl Watch {
    /// A new configuration begins: its busy time starts from zero.
    pub fn next(&self) {
        if let Ok(mut b) = self.0.lock() {
            *b = Busy::default();
        }
    }

    /// Runs `f`, a call that keeps the GPU busy, counting its time to the configuration in progress.
    pub fn busy<T>(&self, f: impl FnOnce() -> T) -> T {
        if let Ok(mut b) = self.0.lock() {
            b.since = Some(Instant::now());
        }
        let out = f();
        if let Ok(mut b) = self.0.lock()
            && let Some(t) = b.since.take()
        {
            b.done += t.elapsed().as_secs_f64();
        }
        out
    }

    /// Seconds the configuration in progress has kept the GPU busy, its call in progress included.
    pub fn secs(&self) -> f64 {
        self.0.lock().map(|b| b.done + b.since.map_or(0.0, |t| t.elapsed().as_secs_f64())).unwrap_or(0.0)
    }
}

/// Whether any of the devices' clocks (`watches`) has passed `limit` seconds (`--timeout`; never
/// without one).
pub fn any_past(watches: &[std::sync::Arc<Watch>], limit: Option<f64>) -> bool {
    limit.is_some_and(|secs| watches.iter().any(|w| w.secs() > secs))
}

/// Two options are the same only when they share their clock (or neither has one).
impl PartialEq for Watch {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, mpsc};
    use std::time::Duration;

    #[test]
    fn only_gpu_calls_count_and_each_configuration_starts_from_zero() {
        let w = Watch::default();
        assert_eq!(w.secs(), 0.0);
        w.busy(|| std::thread::sleep(Duration::from_millis(30)));
        // Host work between the calls is not counted.
        std::thread::sleep(Duration::from_millis(300));
        let one = w.secs();
        assert!((0.03..0.3).contains(&one), "{one}");
        w.busy(|| std::thread::sleep(Duration::from_millis(30)));
        let two = w.secs();
        assert!(two >= one + 0.03 && two < 0.3, "{one} then {two}");
        w.next();
        assert_eq!(w.secs(), 0.0);
    }

    #[test]
    fn a_call_that_never_returns_counts_while_it_runs() {
        let w = Arc::new(Watch::default());
        let (started, on) = mpsc::channel();
        let (release, hung) = mpsc::channel::<()>();
        let in_call = w.clone();
        let h = std::thread::spawn(move || {
            in_call.busy(|| {
                started.send(()).unwrap();
                hung.recv().unwrap();
            })
        });
        on.recv().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        // Still inside the call: nothing finished, yet the clock runs.
        assert!(w.secs() >= 0.05, "{}", w.secs());
        release.send(()).unwrap();
        h.join().unwrap();
        assert!(w.secs() >= 0.05, "{}", w.secs());
    }
}
