//! One kernel launch at a time across the program's threads while counters are collected: a window's
//! ranges are the launches between its start and its stop, so two threads launching at once would put
//! each other's kernels into their windows (Nsight Compute serializes launches the same way). A thread
//! passes from its launch call's entry to its exit; another waits, at most [`PATIENCE`].

use std::sync::{Condvar, Mutex};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

/// How long a launch waits for another thread's before it goes ahead anyway (a launch that never
/// returns must not hang the whole program).
const PATIENCE: Duration = Duration::from_secs(60);

/// The gate: which thread is inside a launch call (and how deep, for calls made inside a launch).
pub(super) struct Gate {
    inside: Mutex<(Option<ThreadId>, u32)>,
    free: Condvar,
}

impl Gate {
    pub(super) const fn new() -> Self {
        Gate { inside: Mutex::new((None, 0)), free: Condvar::new() }
    }

    /// Waits until no other thread is inside a launch call, then goes in.
    pub(super) fn enter(&self) {
        let me = thread::current().id();
        let deadline = Instant::now() + PATIENCE;
        let mut g = self.inside.lock().unwrap_or_else(|e| e.into_inner());
        while g.0.is_some_and(|t| t != me) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                // Go ahead without the gate rather than hang; this call does not own it.
                return;
            }
            g = self.free.wait_timeout(g, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        *g = (Some(me), g.1 + 1);
    }

    /// Leaves after the launch call (a thread that went ahead without the gate leaves nothing).
    pub(super) fn leave(&self) {
        let me = thread::current().id();
        let mut g = self.inside.lock().unwrap_or_else(|e| e.into_inner());
        if g.0 == Some(me) {
            g.1 -= 1;
            if g.1 == 0 {
                g.0 = None;
                self.free.notify_one();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn one_thread_at_a_time_is_inside_and_a_thread_may_go_in_again() {
        let gate = Arc::new(Gate::new());
        let inside = Arc::new(AtomicU32::new(0));
        let most = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                thread::spawn(move || {
                    for _ in 0..50 {
                        gate.enter();
                        gate.enter(); // a call inside a launch call: same thread, no wait
                        let n = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        thread::sleep(Duration::from_micros(50));
                        inside.fetch_sub(1, Ordering::SeqCst);
                        gate.leave();
                        gate.leave();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert_eq!(*gate.inside.lock().unwrap(), (None, 0));
    }
}
