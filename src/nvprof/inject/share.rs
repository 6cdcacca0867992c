//! Taking turns with the GPU's counters under `--profile-child-processes`: the Range Profiler holds them
//! for one process at a time (another gets "counters in use"), so a process profiles only while it
//! holds the run's lock file, and gives the counters up between launches when another process of the
//! run is waiting for them (a parent that waits for its child, or two that run side by side).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};

/// The lock file's name in the run's folder.
const LOCK: &str = "counters.lock";
/// A waiting process's file in the run's folder: `want.<pid>`.
const WANT: &str = "want.";
/// How long a process waits for its turn before it tries anyway (and CUPTI says the counters are in use).
const PATIENCE: Duration = Duration::from_secs(120);
/// How long a process keeps its turn at least, so that two busy processes do not hand the counters to
/// each other after every launch (each hand-over costs the profiler's set-up, ~0.1 s).
pub(super) const LEAST_HOLD: Duration = Duration::from_millis(100);
/// How often a waiting process tries the lock, and a holder looks for waiting ones.
pub(super) const POLL: Duration = Duration::from_millis(5);

/// This process's place in the run's queue for the counters.
pub(super) struct Turn {
    dir: PathBuf,
    pid: u32,
    held: Option<Flock<File>>,
    since: Instant,
}

impl Turn {
    /// Turns among the processes whose results go to `dir`.
    pub(super) fn new(dir: &Path, pid: u32) -> Self {
        Turn { dir: dir.to_path_buf(), pid, held: None, since: Instant::now() }
    }

    /// Whether this process holds the counters' lock.
    pub(super) fn held(&self) -> bool {
        self.held.is_some()
    }

    /// How long this process has held the lock.
    pub(super) fn held_for(&self) -> Duration {
        self.since.elapsed()
    }

    /// Takes the lock, waiting (with a `want.<pid>` file that tells the holder) while another process
    /// of the run holds it. Gives up after [`PATIENCE`] or when the lock file cannot be made (the
    /// Range Profiler then says whether the counters are free); returns how long it waited (zero when
    /// the lock was free).
    pub(super) fn take(&mut self) -> Duration {
        let t0 = Instant::now();
        if self.held.is_some() {
            return Duration::ZERO;
        }
        let Ok(file) = OpenOptions::new().create(true).truncate(false).write(true).open(self.dir.join(LOCK)) else {
            return Duration::ZERO;
        };
        let mut file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => {
                self.got(lock);
                return Duration::ZERO;
            }
            Err((file, _)) => file,
        };
        let want = self.dir.join(format!("{WANT}{}", self.pid));
        let _ = File::create(&want);
        while t0.elapsed() < PATIENCE {
            std::thread::sleep(POLL);
            match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(lock) => {
                    let _ = std::fs::remove_file(&want);
                    self.got(lock);
                    return t0.elapsed();
                }
                Err((f, _)) => file = f,
            }
        }
        let _ = std::fs::remove_file(&want);
        t0.elapsed()
    }

    fn got(&mut self, lock: Flock<File>) {
        self.held = Some(lock);
        self.since = Instant::now();
    }

    /// Lets the lock go (the counters must have been given back first).
    pub(super) fn give(&mut self) {
        self.held = None;
    }

    /// Whether another live process of the run waits for the counters (files of processes that are gone
    /// are removed).
    pub(super) fn wanted(&self) -> bool {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return false };
        let mut wanted = false;
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(WANT)).and_then(|p| p.parse::<u32>().ok()) else {
                continue;
            };
            if pid == self.pid {
                continue;
            }
            if alive(pid) {
                wanted = true;
            } else {
                let _ = std::fs::remove_file(e.path());
            }
        }
        wanted
    }
}

/// Whether process `pid` exists (signal 0 checks without sending).
fn alive(pid: u32) -> bool {
    let Ok(raw) = i32::try_from(pid) else { return false };
    !matches!(nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), None), Err(nix::errno::Errno::ESRCH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_process_is_seen_and_gets_the_lock_once_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = Turn::new(dir.path(), std::process::id());
        assert_eq!(a.take(), Duration::ZERO);
        assert!(a.held());
        // Another process of the run (a different pid: this test's parent, which is alive).
        let other = nix::unistd::getppid().as_raw() as u32;
        let b = std::thread::spawn({
            let dir = dir.path().to_path_buf();
            move || {
                let mut b = Turn::new(&dir, other);
                let waited = b.take();
                (b.held(), waited)
            }
        });
        let t0 = Instant::now();
        while !a.wanted() {
            assert!(t0.elapsed() < Duration::from_secs(10), "the waiting process was never seen");
            std::thread::sleep(POLL);
        }
        std::thread::sleep(Duration::from_millis(30));
        a.give();
        let (held, waited) = b.join().unwrap();
        assert!(held, "the lock was not taken after it was given");
        assert!(waited >= Duration::from_millis(30), "waited only {waited:?}");
        assert!(!a.wanted(), "the want file outlived the wait");
    }

    #[test]
    fn want_files_of_dead_processes_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        // A pid above the kernel's limit (4194304) exists nowhere.
        std::fs::write(dir.path().join("want.4194399"), "").unwrap();
        let a = Turn::new(dir.path(), std::process::id());
        assert!(!a.wanted());
        assert!(!dir.path().join("want.4194399").exists());
        std::fs::write(dir.path().join(format!("want.{}", std::process::id())), "").unwrap();
        assert!(!a.wanted(), "a process does not wait for itself");
    }
}
