//! The `warpscope` command: parse the command line, run the command, print one error line and exit
//! 2 on bad input or environment, 1 when a result failed verification, 141 when standard output is a
//! pipe that was closed (`warpscope ... | head`).

mod cli;

use std::process::ExitCode;

use warpscope::output;

fn main() -> ExitCode {
    // SIGPIPE stays ignored (Rust's default): a write to a closed pipe fails with EPIPE and ends the
    // command through `Error::BrokenPipe`, after what finished has been written where it was asked to go.
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            if !e.is_quiet() {
                output::note(&format!("error: {e}"));
                if let Some(hint) = e.hint() {
                    output::note(&format!("hint: {hint}"));
                }
            }
            ExitCode::from(e.exit_code())
        }
    }
}
