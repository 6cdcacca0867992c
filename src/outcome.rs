//! How a command ended when it did not end with an [`crate::Error`]: `main` alone turns an outcome
//! (or an error) into the process's exit code.

/// How a command that ran to its end (or was stopped in order) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Outcome {
    /// Everything ran and every result passed its check.
    Ok,
    /// A result failed what it was checked against (a configuration's verification, `compare
    /// --fail-above`, `model-check --strict`, the driver disagreeing with `occupancy`); the report
    /// says which and was written.
    CheckFailed,
    /// A configuration ran past `--timeout`; what finished was written.
    TimedOut,
    /// A stop signal (its number) ended the work early; what finished was written.
    Interrupted(i32),
    /// The command line was incomplete and its help was shown instead.
    HelpShown,
    /// A program run for the command (the one `nvprof` profiles, a run-spec step) ended with this code,
    /// which the command passes on.
    Program(u8),
}

impl Outcome {
    /// The worse of two outcomes of parts of one command (a failed check outranks success, a stop
    /// outranks both).
    pub fn and(self, other: Outcome) -> Outcome {
        let rank = |o: &Outcome| match o {
            Outcome::Ok => 0,
            Outcome::CheckFailed => 1,
            Outcome::HelpShown | Outcome::Program(_) => 2,
            Outcome::TimedOut => 3,
            Outcome::Interrupted(_) => 4,
        };
        if rank(&other) > rank(&self) { other } else { self }
    }

    /// [`Outcome::CheckFailed`] when `failed`, else [`Outcome::Ok`].
    pub fn checked(failed: bool) -> Outcome {
        if failed { Outcome::CheckFailed } else { Outcome::Ok }
    }
}
