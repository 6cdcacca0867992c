//! The `warpscope` command: parse the command line, run the command, print one error line, and turn
//! how it ended into the exit code — here and nowhere else (see [`exit_code`] and [`error_code`]).

mod cli;

use std::process::ExitCode;

use warpscope::{Error, Outcome, output};

fn main() -> ExitCode {
    output::started();
    // SIGPIPE stays ignored (Rust's default): a write to a closed pipe fails with EPIPE and ends the
    // command through `Error::BrokenPipe`, after what finished has been written where it was asked to go.
    // Returning from here ends the process, device threads included: a sweep that gave up on a hung
    // kernel (`--timeout`) leaves its device thread blocked in the driver, and that thread ends here.
    match cli::run() {
        Ok(outcome) => ExitCode::from(exit_code(outcome)),
        Err(e) => {
            // The library names its inputs in its own words; here they are the command line's flags.
            let e = e.named_by(cli::flag);
            if !e.is_quiet() {
                output::note(&format!("error: {e}"));
                if let Some(hint) = e.hint() {
                    output::note(&format!("hint: {hint}"));
                }
            }
            ExitCode::from(error_code(&e))
        }
    }
}

/// 0 when all is well; 1 when a result failed its check (verification, `--fail-above`, ...); 2 when
/// help was shown for an incomplete command line; 124 past `--timeout` (as timeout(1) exits); 128 + N
/// when stop signal N ended the work; a profiled program's or a run-spec step's own code, passed on.
fn exit_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Ok => 0,
        Outcome::CheckFailed => 1,
        Outcome::HelpShown => 2,
        Outcome::TimedOut => 124,
        Outcome::Interrupted(signal) => u8::try_from(128 + signal).unwrap_or(u8::MAX),
        Outcome::Program(code) => code,
    }
}

/// 2 for the user's and the environment's errors (bad input, no driver, CUDA failures); 70 (sysexits'
/// EX_SOFTWARE) for a bug of warpscope's; 141 (128 + SIGPIPE) for a closed pipe.
fn error_code(e: &Error) -> u8 {
    match e {
        Error::BrokenPipe => 141,
        Error::Internal(_) => 70,
        _ => 2,
    }
}
