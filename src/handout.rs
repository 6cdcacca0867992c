//! What the device threads of one sweep share: the configurations, handed out one at a time to
//! whichever device is free (longest first when their times can be predicted), and the host's set-up
//! (random inputs and CPU reference), made once for every device instead of once per device.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::gpu::Reference;
use crate::spec::Dim3;

/// The host's copy of the inputs and the CPU reference computed from them.
pub struct Host {
    /// The inputs, as the device generates them from the seed.
    pub inputs: Vec<Vec<f32>>,
    /// The reference outputs.
    pub reference: Reference,
    /// Seconds the host took to make them.
    pub secs: f64,
}

/// The configurations of a sweep (each with its index in the whole sweep) and the host set-up, shared
/// by `devices` device threads.
pub struct Handout {
    list: Vec<(u32, Dim3)>,
    queue: Mutex<Queue>,
    host: Mutex<HostState>,
    devices: usize,
    host_made: AtomicUsize,
    /// Device threads done with the sweep, and the signal that the last one is.
    left: Mutex<usize>,
    all_left: Condvar,
}

struct Queue {
    /// Positions in `list` not handed out yet, in hand-out order.
    left: VecDeque<usize>,
    /// Whether the order was settled (by the first device thread to ask).
    ordered: bool,
}

#[derive(Default)]
struct HostState {
    host: Option<Arc<Host>>,
    /// Devices that have checked their inputs against the host's copy (when all have, it is freed).
    checked: usize,
}

impl Handout {
    /// The configurations `list`, in sweep order, for `devices` device threads.
    pub fn new(list: Vec<(u32, Dim3)>, devices: usize) -> Self {
        Handout {
            queue: Mutex::new(Queue { left: (0..list.len()).collect(), ordered: devices <= 1 }),
            list,
            host: Mutex::new(HostState::default()),
            devices: devices.max(1),
            host_made: AtomicUsize::new(0),
            left: Mutex::new(0),
            all_left: Condvar::new(),
        }
    }

    /// Every configuration, in sweep order.
    pub fn list(&self) -> &[(u32, Dim3)] {
        &self.list
    }

    /// Orders the configurations longest first by `cost` (a predicted time per position in [`list`];
    /// `None` where none can be predicted keeps the sweep's order for all), once: the first device
    /// thread to ask decides, the others find it done. With one device the sweep's order is kept.
    ///
    /// [`list`]: Handout::list
    pub fn order(&self, cost: impl FnOnce() -> Option<Vec<f64>>) {
        let mut q = lock(&self.queue);
        if q.ordered {
            return;
        }
        q.ordered = true;
        if let Some(cost) = cost().filter(|c| c.len() == self.list.len() && c.iter().all(|t| t.is_finite())) {
            let mut left: Vec<usize> = q.left.drain(..).collect();
            // Stable: equal predictions keep the sweep's order.
            left.sort_by(|&a, &b| cost[b].total_cmp(&cost[a]));
            q.left = left.into();
        }
    }

    /// How many configurations are still to be handed out, where other devices share them; `None`
    /// with one device (nobody waits for it at the end).
    pub fn left_to_share(&self) -> Option<usize> {
        (self.devices > 1).then(|| lock(&self.queue).left.len())
    }

    /// The next configuration for a free device: its position in [`Handout::list`].
    pub fn next(&self) -> Option<usize> {
        lock(&self.queue).left.pop_front()
    }

    /// The host's inputs and reference, made by `make` on the first call and shared by the later ones
    /// (which wait while it is being made).
    pub fn host(&self, make: impl FnOnce() -> Host) -> Arc<Host> {
        let mut state = lock(&self.host);
        if let Some(h) = &state.host {
            return h.clone();
        }
        self.host_made.fetch_add(1, Ordering::Relaxed);
        let h = Arc::new(make());
        state.host = Some(h.clone());
        h
    }

    /// Starts making the host's set-up on a thread of its own, so that it overlaps what comes before the
    /// first device asks for it (opening the devices: a third of a second, about as long as the inputs
    /// and reference of the seed's problem take). A device that asks meanwhile waits for it; once every
    /// device has checked its inputs it is not made again.
    pub fn prepare(self: &Arc<Self>, make: impl FnOnce() -> Host + Send + 'static) -> std::thread::JoinHandle<()> {
        let me = self.clone();
        std::thread::spawn(move || {
            let mut state = lock(&me.host);
            if state.host.is_none() && state.checked == 0 {
                me.host_made.fetch_add(1, Ordering::Relaxed);
                state.host = Some(Arc::new(make()));
            }
        })
    }

    /// Called by a device once its inputs were checked: when every device has, the host's copy is let
    /// go (gigabytes for a large problem), freed on another thread since returning the pages takes time.
    pub fn checked(&self, mine: Arc<Host>) {
        let last = {
            let mut state = lock(&self.host);
            state.checked += 1;
            if state.checked >= self.devices { state.host.take() } else { None }
        };
        std::thread::spawn(move || drop((mine, last)));
    }

    /// A device thread's place in the sweep's ending: [`Leaving::wait`] once its report is sent, so that
    /// no device tears down its context (and profiler) while another still works. On 2 x H200 the
    /// device that finished first and dropped its CUPTI range profiler made the other lose the ranges of
    /// its next counter windows ("0 profiled range(s) for 9 kernel launch(es)"). Dropped without
    /// waiting (an early error, a panic), it still counts the thread as gone, so nobody waits forever.
    pub fn leaving(&self) -> Leaving<'_> {
        Leaving { handout: self, counted: false }
    }

    fn leave(&self) {
        *lock(&self.left) += 1;
        self.all_left.notify_all();
    }

    /// How many times the host set-up was made (once per sweep, however many devices).
    pub fn host_made(&self) -> usize {
        self.host_made.load(Ordering::Relaxed)
    }
}

/// See [`Handout::leaving`].
pub struct Leaving<'a> {
    handout: &'a Handout,
    counted: bool,
}

impl Leaving<'_> {
    /// Counts this device thread as done and waits until every device thread is.
    pub fn wait(mut self) {
        self.counted = true;
        let h = self.handout;
        h.leave();
        let mut left = lock(&h.left);
        while *left < h.devices {
            left = h.all_left.wait(left).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        if !self.counted {
            self.handout.leave();
        }
    }
}

/// A poisoned lock (a device thread panicked) still holds consistent data here: every update is one
/// assignment.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: u32) -> Vec<(u32, Dim3)> {
        (0..n).map(|i| (i * 2, Dim3::new(32 * (i + 1), 1, 1))).collect()
    }

    fn drain(h: &Handout) -> Vec<usize> {
        std::iter::from_fn(|| h.next()).collect()
    }

    #[test]
    fn one_device_keeps_the_sweep_order() {
        let h = Handout::new(list(4), 1);
        h.order(|| Some(vec![1.0, 4.0, 2.0, 3.0]));
        assert_eq!(drain(&h), [0, 1, 2, 3]);
        assert_eq!(h.list()[3], (6, Dim3::new(128, 1, 1)));
    }

    #[test]
    fn several_devices_take_the_longest_first_and_order_once() {
        let h = Handout::new(list(5), 2);
        h.order(|| Some(vec![1.0, 4.0, 2.0, 4.0, 0.5]));
        h.order(|| panic!("the order is settled by the first device thread"));
        // Equal predictions keep the sweep's order.
        assert_eq!(drain(&h), [1, 3, 2, 0, 4]);
        assert_eq!(h.next(), None);
    }

    #[test]
    fn without_predictions_the_sweep_order_stays() {
        for cost in [None, Some(vec![1.0, 2.0]), Some(vec![1.0, f64::NAN, 2.0])] {
            let h = Handout::new(list(3), 2);
            h.order(|| cost);
            assert_eq!(drain(&h), [0, 1, 2]);
        }
    }

    #[test]
    fn threads_share_out_every_configuration_once() {
        let h = Arc::new(Handout::new(list(200), 4));
        let taken: Vec<Vec<usize>> = (0..4)
            .map(|_| {
                let h = h.clone();
                std::thread::spawn(move || std::iter::from_fn(|| h.next()).collect::<Vec<_>>())
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        let mut all: Vec<usize> = taken.concat();
        all.sort_unstable();
        assert_eq!(all, (0..200).collect::<Vec<_>>());
    }

    #[test]
    fn the_host_set_up_is_made_once_and_let_go_after_every_device_checked() {
        let h = Arc::new(Handout::new(list(2), 3));
        let made = AtomicUsize::new(0);
        let hosts: Vec<Arc<Host>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..3)
                .map(|_| {
                    s.spawn(|| {
                        h.host(|| {
                            made.fetch_add(1, Ordering::Relaxed);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            Host { inputs: vec![vec![1.0; 4]], reference: Arc::new(vec![vec![2.0; 4]]), secs: 0.02 }
                        })
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert_eq!((made.load(Ordering::Relaxed), h.host_made()), (1, 1));
        assert!(hosts.iter().all(|x| Arc::ptr_eq(x, &hosts[0])));
        let weak = Arc::downgrade(&hosts[0]);
        for x in hosts {
            h.checked(x);
        }
        // Freed on another thread: wait for it.
        let t = std::time::Instant::now();
        while weak.upgrade().is_some() {
            assert!(t.elapsed().as_secs() < 5, "the host's copy is still held after every device checked");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    #[test]
    fn a_prepared_host_set_up_is_the_one_every_device_gets_and_is_not_made_again() {
        let made = Arc::new(AtomicUsize::new(0));
        let make = |made: Arc<AtomicUsize>| {
            move || {
                made.fetch_add(1, Ordering::Relaxed);
                Host { inputs: vec![vec![3.0; 2]], reference: Arc::new(vec![vec![6.0; 2]]), secs: 0.01 }
            }
        };
        let h = Arc::new(Handout::new(list(2), 2));
        h.prepare(make(made.clone())).join().unwrap();
        let a = h.host(|| panic!("the prepared set-up is used"));
        let b = h.host(|| panic!("the prepared set-up is used"));
        assert!(Arc::ptr_eq(&a, &b) && a.inputs[0] == [3.0; 2]);
        h.checked(a);
        h.checked(b);
        // Once every device has checked, a late preparation makes nothing.
        h.prepare(make(made.clone())).join().unwrap();
        assert_eq!((made.load(Ordering::Relaxed), h.host_made()), (1, 1));
        // A device that asks first makes it itself; the preparation then finds it made.
        let h = Arc::new(Handout::new(list(2), 1));
        let mine = h.host(make(made.clone()));
        h.prepare(make(made.clone())).join().unwrap();
        assert!(Arc::ptr_eq(&mine, &h.host(|| panic!("made once"))));
        assert_eq!((made.load(Ordering::Relaxed), h.host_made()), (2, 1));
    }

    #[test]
    fn no_device_leaves_before_the_others_and_an_early_exit_still_counts() {
        use std::sync::atomic::AtomicBool;
        use std::time::Duration;
        let h = Arc::new(Handout::new(list(4), 3));
        let slow_done = Arc::new(AtomicBool::new(false));
        // One device thread fails at once (its Leaving dropped, never waited on).
        drop(h.leaving());
        let fast = {
            let (h, slow_done) = (h.clone(), slow_done.clone());
            std::thread::spawn(move || {
                h.leaving().wait();
                slow_done.load(Ordering::SeqCst)
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        assert!(!fast.is_finished(), "the first device to finish waits for the one still working");
        slow_done.store(true, Ordering::SeqCst);
        h.leaving().wait();
        assert!(fast.join().unwrap(), "it went on only after the last device was done");
    }
}
