//! `warpscope run-spec FILE.toml`: runs an experiment file's steps, each as its own warpscope process
//! (a failing step does not end the others, and Ctrl-C reaches the step in progress), keeps every output
//! in one results folder, and writes `summary.md` with each step's table and figure.

use std::path::PathBuf;

use clap::{Args, Parser};

use warpscope::runspec::run::{CommandLines, Request};
use warpscope::{Outcome, Result};

use super::{Cli, Context, DeviceArg, usage};

/// Arguments of `run-spec`.
#[derive(Args, Debug)]
pub struct RunSpecArgs {
    /// The experiment file (TOML; see experiments/).
    file: PathBuf,
    /// Results folder (default: results/<the experiment's name>).
    #[arg(short = 'o', long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Run only these steps (comma-separated names).
    #[arg(long, value_name = "NAMES")]
    only: Option<String>,
    /// Print and check the command lines without running them.
    #[arg(long)]
    dry_run: bool,
    /// Also write one self-contained HTML report of every step to FILE: each step's command line, its
    /// figures and records (sortable, filterable), or its printed output.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    gpu: DeviceArg,
}

pub fn run(ctx: &Context, a: &RunSpecArgs) -> Result<Outcome> {
    if a.html.as_deref().is_some_and(warpscope::output::is_stdout) {
        return Err(usage("run-spec --html -: standard output carries the steps' outcomes; give a file name"));
    }
    if a.output.as_deref().is_some_and(warpscope::output::is_stdout) {
        return Err(usage("run-spec -o -: the results are a folder of files, not standard output"));
    }
    Request {
        file: &a.file,
        output: a.output.clone(),
        only: a.only.as_deref(),
        dry_run: a.dry_run,
        html: a.html.as_deref(),
        device: a.gpu.device,
        backend: ctx.backend,
        lines: &Lines,
    }
    .run()
}

/// The command line as run-spec's steps see it: which commands run on a GPU, and the real parser.
struct Lines;

impl CommandLines for Lines {
    fn uses_gpu(&self, command: &str) -> bool {
        super::uses_gpu(command)
    }

    fn check(&self, argv: &[String]) -> std::result::Result<(), String> {
        let line = std::iter::once("warpscope".to_string()).chain(argv.iter().cloned());
        Cli::try_parse_from(line).map(drop).map_err(|e| super::one_line(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpscope::runspec::shell_line;

    #[test]
    fn shell_lines_quote_what_needs_it() {
        let argv = vec!["sweep".to_string(), "a b".into(), "it's".into(), "32x8".into()];
        assert_eq!(shell_line(&argv), r"warpscope sweep 'a b' 'it'\''s' 32x8");
    }

    #[test]
    fn the_parser_is_the_cli() {
        assert!(Cli::try_parse_from(["warpscope", "sweep", "sum-matrix", "--block", "32x8"]).is_ok());
    }
}
