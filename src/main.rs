//! The `warpscope` command: parse the command line, run the command, print one error line and exit
//! 2 on bad input or environment, 1 when a result failed verification.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Like other Unix filters: a closed pipe (`warpscope ... | head`) ends the process quietly.
    // SAFETY: restoring the default action of one signal before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            if let Some(hint) = e.hint() {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
