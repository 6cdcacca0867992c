//! Command-line parsing (clap) and dispatch. Each subcommand turns its arguments into library values in
//! its own file and calls the library; no clap type reaches measurement code.

mod archs;
mod blur;
mod compare;
mod devices;
mod estimate;
mod kernels;
mod merge;
mod metrics;
mod model_check;
mod occupancy;
mod peak;
mod runspec;
mod selftest;
mod sweep;
mod transpose;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use warpscope::gpu::BackendKind;
use warpscope::report::Format;
use warpscope::{Error, Result};

/// Sweep CUDA thread-block shapes on a real GPU; nvprof-style metrics, measured and estimated.
#[derive(Parser, Debug)]
#[command(name = "warpscope", version, about, long_about = None)]
pub struct Cli {
    /// CUDA device ordinal.
    #[arg(long, global = true, default_value_t = 0)]
    device: u32,
    /// Backend: the real GPU, or a deterministic mock for tests (values marked `mock`).
    #[arg(long, global = true, hide = true, value_enum, env = "WARPSCOPE_BACKEND", default_value = "cuda")]
    backend: BackendArg,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BackendArg {
    Cuda,
    Mock,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a kernel over a list of block shapes: time, verify and report each.
    Sweep(sweep::SweepArgs),
    /// Run one configuration and print the seed's one-line result and its table row.
    Run(sweep::SweepArgs),
    /// List CUDA devices with the limits configurations are validated against.
    Devices(devices::DevicesArgs),
    /// Run every kernel once at a small size and verify it: the first check that the setup works.
    Selftest(OutputArgs),
    /// Every metric of the sweep table from the models alone, for an arch or a named card (no GPU).
    Estimate(estimate::EstimateArgs),
    /// The time model against measured sweeps, per kernel: median |error|, Spearman, and the regret of
    /// the model's pick of block shape.
    ModelCheck(model_check::ModelCheckArgs),
    /// Theoretical occupancy: blocks and warps per SM, the limiting resource, for any arch (no GPU).
    Occupancy(occupancy::OccupancyArgs),
    /// The architecture database: compute capabilities and named cards with their limits.
    Archs(archs::ArchsArgs),
    /// The kernels warpscope can run.
    Kernels,
    /// The metric catalogue: nvprof name, Nsight Compute metric, unit, description.
    Metrics(metrics::MetricsArgs),
    /// warpscope's results beside Nsight Compute's or nvprof's CSV (or another warpscope run).
    Compare(compare::CompareArgs),
    /// Read ncu or nvprof CSV output into warpscope's records (`--format json`).
    Import(compare::ImportArgs),
    /// Peak benchmarks: memcpy, copy kernels and the MAD curve (memory against compute bound).
    Peak(peak::PeakArgs),
    /// Transpose benchmark: every variant over sizes, against the fastest copy.
    Transpose(transpose::TransposeArgs),
    /// Gaussian blur: an image on the GPU, the algorithms' benchmark, or the seed's estimates offline.
    Blur(blur::BlurArgs),
    /// Join result files of one sweep's slices (--shard, --devices) into one report, in the sweep's order.
    Merge(merge::MergeArgs),
    /// Run an experiment file (TOML): its steps' outputs, tables, figures and a summary in one folder.
    RunSpec(runspec::RunSpecArgs),
    /// Shell completions on standard output: `warpscope completions bash > /etc/bash_completion.d/warpscope`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The man page (roff) on standard output: `warpscope man > warpscope.1`.
    Man,
}

/// Output options shared by the commands that emit records.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: FormatArg,
    /// Write the report to FILE instead of standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print nothing but the report (no progress or per-config lines).
    #[arg(short, long)]
    quiet: bool,
    /// Also print how long each set-up step took.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Table,
    Csv,
    Json,
    Markdown,
    Jsonl,
}

impl OutputArgs {
    fn format(&self) -> Format {
        match self.format {
            FormatArg::Table => Format::Table,
            FormatArg::Csv => Format::Csv,
            FormatArg::Json => Format::Json,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Jsonl => Format::Jsonl,
        }
    }

    /// Where JSON Lines go as records finish (`--format jsonl`): the output file — appended to when
    /// `append` (resuming into the same file), else created — or standard output. `None` for the
    /// formats written once at the end.
    fn stream(&self, append: bool) -> Result<Option<Box<dyn std::io::Write>>> {
        if self.format != FormatArg::Jsonl {
            return Ok(None);
        }
        Ok(Some(match &self.output {
            Some(path) => {
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(append)
                    .write(true)
                    .truncate(!append)
                    .open(path)
                    .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
                Box::new(f)
            }
            None => Box::new(std::io::stdout()),
        }))
    }

    /// Whether per-config lines may go to standard output (they go to standard error when stdout
    /// carries a machine-readable report).
    fn lines_to_stdout(&self) -> bool {
        self.output.is_some() || self.format == FormatArg::Table
    }

    /// Prints a progress line unless quiet.
    fn line(&self, s: &str) {
        if self.quiet {
            return;
        }
        if self.lines_to_stdout() {
            println!("{s}");
        } else {
            eprintln!("{s}");
        }
    }

    /// A progress bar on standard error for `total` configurations (see [`progress_bar`]).
    fn progress(&self, total: usize) -> indicatif::ProgressBar {
        progress_bar(self.quiet, total)
    }

    /// The file the report goes to (`None`: standard output).
    fn output(&self) -> Option<&std::path::Path> {
        self.output.as_deref()
    }

    /// Checks, before any work, that the report can be written where asked.
    fn check(&self) -> Result<()> {
        self.output.as_deref().map(warpscope::report::check_writable).unwrap_or(Ok(()))
    }

    /// Writes the report where asked.
    fn emit(&self, report: &warpscope::record::Report) -> Result<()> {
        match &self.output {
            Some(path) => {
                warpscope::report::write_file(report, self.format(), path)?;
                if !self.quiet {
                    eprintln!("wrote {}", path.display());
                }
                Ok(())
            }
            None => warpscope::report::write(report, self.format(), &mut std::io::stdout().lock()),
        }
    }
}

/// Global settings every command may need.
pub struct Context {
    backend: BackendKind,
    device: u32,
}

/// Ctrl-C: the first asks running sweeps to stop after the configuration in progress (what finished is
/// written and the command exits 130); a second one exits at once.
fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        if warpscope::sweep::interrupted() {
            std::process::exit(130);
        }
        warpscope::sweep::interrupt();
        eprintln!("interrupted: finishing the configuration in progress (Ctrl-C again to stop now)");
    });
}

/// Parses the command line and runs it.
pub fn run() -> Result<ExitCode> {
    let cli = Cli::parse();
    install_interrupt_handler();
    let ctx = Context {
        backend: match cli.backend {
            BackendArg::Cuda => BackendKind::Cuda,
            BackendArg::Mock => BackendKind::Mock,
        },
        device: cli.device,
    };
    let code = match cli.command {
        Command::Sweep(a) => sweep::sweep(&ctx, &a, false),
        Command::Run(a) => sweep::sweep(&ctx, &a, true),
        Command::Devices(a) => devices::devices(&ctx, &a),
        Command::Selftest(o) => selftest::selftest(&ctx, &o),
        Command::Estimate(a) => estimate::run(&a),
        Command::ModelCheck(a) => model_check::run(&a),
        Command::Occupancy(a) => occupancy::run(&ctx, &a),
        Command::Archs(a) => archs::run(&a),
        Command::Kernels => kernels::run(),
        Command::Metrics(a) => metrics::run(&a),
        Command::Compare(a) => compare::compare(&a),
        Command::Import(a) => compare::import(&a),
        Command::Peak(a) => peak::run(&ctx, &a),
        Command::Transpose(a) => transpose::run(&ctx, &a),
        Command::Blur(a) => blur::run(&ctx, &a),
        Command::RunSpec(a) => runspec::run(&ctx, &a),
        Command::Merge(a) => merge::run(&a),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "warpscope",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
                .render(&mut std::io::stdout())
                .map_err(|e| Error::Output(e.to_string()))?;
            Ok(ExitCode::SUCCESS)
        }
    }?;
    Ok(if warpscope::sweep::interrupted() { ExitCode::from(130) } else { code })
}

/// A progress bar on standard error (configurations done, elapsed, ETA); hidden when quiet or when
/// standard error is not a terminal.
fn progress_bar(quiet: bool, total: usize) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(total as u64), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} configs, {elapsed} elapsed, ETA {eta}")
    {
        bar.set_style(style);
    }
    bar
}

/// Exit code of a finished report: 1 when anything failed verification.
fn exit_for(report: &warpscope::record::Report) -> ExitCode {
    if report.any_failed() { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// Fails now, before any measuring, if `--plot FILE` could not be drawn later (extension, folder).
fn check_plot(path: Option<&std::path::Path>) -> Result<()> {
    let Some(path) = path else { return Ok(()) };
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("svg" | "png") => warpscope::report::check_writable(path),
        _ => Err(usage(format!("cannot plot to {}: use a .svg or .png file name", path.display()))),
    }
}

/// Draws a report's figure where `--plot` asks.
fn plot_report(path: Option<&std::path::Path>, report: &warpscope::record::Report) -> Result<()> {
    if let Some(path) = path {
        warpscope::report::figures::draw(report, path)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// A usage error.
pub fn usage(msg: impl Into<String>) -> Error {
    Error::usage(msg)
}
