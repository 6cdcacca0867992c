//! Command-line parsing (clap) and dispatch. Each subcommand turns its arguments into library values in
//! its own file and calls the library; no clap type reaches measurement code.

/// `eprintln!` through [`warpscope::output::note`]: a closed standard error loses the line, nothing else.
macro_rules! errln {
    ($($t:tt)*) => { warpscope::output::note(&format!($($t)*)) };
}

mod archs;
mod blur;
mod compare;
mod devices;
mod estimate;
mod kernels;
mod merge;
mod metrics;
mod model_check;
mod nvprof;
mod occupancy;
mod peak;
mod ranges;
mod report;
mod runspec;
mod selftest;
mod sweep;
mod transpose;

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use warpscope::gpu::BackendKind;
use warpscope::output::{self, note};
use warpscope::report::{Destination, Format};
use warpscope::{Error, Result};
use warpscope::{Outcome, signals};

/// Sweep CUDA thread-block shapes on a real GPU; nvprof-style metrics, measured and estimated.
#[derive(Parser, Debug)]
#[command(name = "warpscope", version, about, long_about = None)]
pub struct Cli {
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
    Selftest(selftest::SelftestArgs),
    /// Every metric of the sweep table from the models alone, for an arch or a named card (no GPU).
    Estimate(estimate::EstimateArgs),
    /// The time model against measured sweeps, per kernel: median |error|, Spearman, and the regret of
    /// the model's pick of block shape.
    ModelCheck(model_check::ModelCheckArgs),
    /// Theoretical occupancy: blocks and warps per SM, the limiting resource, for any arch (no GPU).
    Occupancy(occupancy::OccupancyArgs),
    /// The architecture database: compute capabilities and named cards with their limits.
    Archs(archs::ArchsArgs),
    /// The kernels warpscope can run; with --kernel-file, what your kernel file declares, checked.
    Kernels(kernels::KernelsArgs),
    /// The metric catalogue: nvprof name, Nsight Compute metric, unit, description.
    Metrics(metrics::MetricsArgs),
    /// Two result files side by side: warpscope, Nsight Compute or nvprof output (text or CSV), any pair.
    Compare(compare::CompareArgs),
    /// Read nvprof or Nsight Compute output (text or CSV, any page) into warpscope's records.
    Import(compare::ImportArgs),
    /// Peak benchmarks: memcpy, copy kernels and the MAD curve (memory against compute bound).
    Peak(peak::PeakArgs),
    /// Transpose benchmark: every variant over sizes, against the fastest copy.
    Transpose(transpose::TransposeArgs),
    /// Gaussian blur: an image on the GPU, the algorithms' benchmark, or the seed's estimates offline.
    Blur(blur::BlurArgs),
    /// Profile any CUDA program with nvprof's command line and output: `warpscope nvprof --metrics
    /// achieved_occupancy ./app args`.
    Nvprof(nvprof::NvprofArgs),
    /// Join result files of one sweep's slices (--shard, --devices) into one report, in the sweep's order.
    Merge(merge::MergeArgs),
    /// Run an experiment file (TOML): its steps' outputs, tables, figures and a summary in one folder.
    RunSpec(runspec::RunSpecArgs),
    /// A self-contained HTML report (figures, sortable and filterable records) of any results file.
    Report(report::ReportArgs),
    /// Shell completions on standard output: `warpscope completions bash > /etc/bash_completion.d/warpscope`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The man page (roff) on standard output: `warpscope man > warpscope.1`, `warpscope man sweep >
    /// warpscope-sweep.1`.
    Man {
        /// A command's own page (`warpscope-sweep(1)`) instead of the main one.
        command: Option<String>,
    },
}

/// The GPU a command runs on (only the commands that use one take `--device`).
#[derive(Args, Debug, Clone, Copy)]
pub struct DeviceArg {
    #[arg(long, default_value_t = 0, value_parser = ranges::DEVICE.parser(), help = ranges::DEVICE.help("CUDA device ordinal"))]
    device: u32,
}

/// Output options shared by the commands that emit records.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: FormatArg,
    /// Write the report to FILE instead of standard output (`-o -`: standard output).
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
    /// Where the report goes, as the library takes it.
    fn to(&self) -> Destination {
        let format = match self.format {
            FormatArg::Table => Format::Table,
            FormatArg::Csv => Format::Csv,
            FormatArg::Json => Format::Json,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Jsonl => Format::Jsonl,
        };
        Destination { format, path: self.output.clone(), quiet: self.quiet, verbose: self.verbose }
    }
}

/// Global settings every command may need.
pub struct Context {
    backend: BackendKind,
}

/// The command line as clap sees it (for parsing, completions, man pages and run-spec's checks).
pub fn command() -> clap::Command {
    Cli::command()
}

/// A clap error as one line: the message and any tip, without the usage block.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .collect();
    let mut line = String::new();
    for p in parts {
        if !line.is_empty() {
            line += if line.ends_with(':') { " " } else { "; " };
        }
        line += p;
    }
    line.trim_start_matches("error: ").to_string()
}

/// Parses the command line and runs it.
pub fn run() -> Result<Outcome> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind::{DisplayHelp, DisplayHelpOnMissingArgumentOrSubcommand, DisplayVersion};
            return match e.kind() {
                DisplayHelp | DisplayVersion => output::print(&e.render().to_string()).map(|()| Outcome::Ok),
                DisplayHelpOnMissingArgumentOrSubcommand => {
                    note(e.render().to_string().trim_end());
                    Ok(Outcome::HelpShown)
                }
                _ => Err(usage(one_line(&e))),
            };
        }
    };
    if matches!(cli.command, Command::Nvprof(_)) {
        // The stop signals are the profiled program's: warpscope stays to report what was collected.
        signals::leave_to_program();
    } else {
        signals::install();
    }
    let ctx = Context {
        backend: match cli.backend {
            BackendArg::Cuda => BackendKind::Cuda,
            BackendArg::Mock => BackendKind::Mock,
        },
    };
    let code = match cli.command {
        Command::Sweep(a) => sweep::sweep(&ctx, &a, false),
        Command::Run(a) => sweep::sweep(&ctx, &a, true),
        Command::Devices(a) => devices::devices(&ctx, &a),
        Command::Selftest(a) => selftest::selftest(&ctx, &a),
        Command::Estimate(a) => estimate::run(&a),
        Command::ModelCheck(a) => model_check::run(&a),
        Command::Occupancy(a) => occupancy::run(&ctx, &a),
        Command::Archs(a) => archs::run(&a),
        Command::Kernels(a) => kernels::run(&a),
        Command::Metrics(a) => metrics::run(&a),
        Command::Compare(a) => compare::compare(&a),
        Command::Import(a) => compare::import(&a),
        Command::Peak(a) => peak::run(&ctx, &a),
        Command::Transpose(a) => transpose::run(&ctx, &a),
        Command::Blur(a) => blur::run(&ctx, &a),
        Command::RunSpec(a) => runspec::run(&ctx, &a),
        Command::Merge(a) => merge::run(&a),
        Command::Report(a) => report::run(&a),
        Command::Nvprof(a) => nvprof::run(&ctx, &a),
        Command::Completions { shell } => {
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut command(), "warpscope", &mut text);
            output::emit(Path::new(output::STDOUT), &text).map(|()| Outcome::Ok)
        }
        Command::Man { command: name } => man(name.as_deref()),
    };
    // A write that failed inside the work (standard output closed, a full disk under a stream) ends
    // the command with its error once what finished has been written.
    if let Some(e) = output::take_failure() {
        return Err(e);
    }
    let outcome = code?;
    Ok(signals::first().map_or(outcome, |signal| outcome.and(Outcome::Interrupted(signal))))
}

/// `warpscope man [COMMAND]`: the main page, listing `warpscope-COMMAND(1)` for each command, or the
/// page of one command.
fn man(name: Option<&str>) -> Result<Outcome> {
    let mut cmd = command();
    cmd.build();
    let page = match name {
        None => cmd,
        Some(name) => {
            let known: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
            let sub = cmd
                .find_subcommand(name)
                .cloned()
                .ok_or_else(|| usage(format!("man: no command '{name}' (commands: {})", known.join(", "))))?;
            sub.name(format!("warpscope-{name}"))
                .bin_name(format!("warpscope {name}"))
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff).map_err(|e| Error::Output(e.to_string()))?;
    output::emit(Path::new(output::STDOUT), &roff)?;
    Ok(Outcome::Ok)
}

/// The outcome of a finished report: a failed check when anything failed verification.
fn exit_for(report: &warpscope::record::Report) -> Outcome {
    Outcome::checked(report.any_failed())
}

/// Whether the command `name` runs on a GPU (takes `--device`; `occupancy` only with --against-driver).
fn uses_gpu(name: &str) -> bool {
    name != "occupancy"
        && command().find_subcommand(name).is_some_and(|c| c.get_arguments().any(|a| a.get_id() == "device"))
}

/// Refuses, before any work, a run whose outputs — the report (`-o`, standard output when absent) and
/// `others` (`--plot`, ...) — are one of its `inputs` or one another ([`output::check_distinct`]).
fn check_outputs(inputs: &[(&str, &Path)], out: &OutputArgs, others: &[(&str, Option<&Path>)]) -> Result<()> {
    let inputs: Vec<output::Named<'_>> = inputs.iter().map(|&(what, path)| output::Named { what, path }).collect();
    let to = out.to();
    let mut outputs = vec![output::Named { what: "-o", path: to.dest() }];
    outputs.extend(others.iter().filter_map(|&(what, path)| Some(output::Named { what, path: path? })));
    output::check_distinct(&inputs, &outputs)
}

/// How a study (`peak`, `transpose --bench`) measures and where its report (`to`) and figure go, once
/// those are checked distinct.
fn study<'a>(
    ctx: &Context,
    gpu: &DeviceArg,
    (warmup, iters): (u32, u32),
    out: &OutputArgs,
    to: &'a Destination,
    plot: Option<&'a Path>,
) -> Result<warpscope::studies::Study<'a>> {
    check_outputs(&[], out, &[("--plot", plot)])?;
    Ok(warpscope::studies::Study { device: (ctx.backend, gpu.device), warmup, iters, to, plot })
}

/// A usage error.
pub fn usage(msg: impl Into<String>) -> Error {
    Error::usage(msg)
}

/// Output format of the commands that print a listing (`report::listing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
// (No doc comments on the variants: clap would list them one per line instead of `[possible values: ...]`.)
pub enum ListFormat {
    Table,
    Csv,
    Json,
    Markdown,
}

impl From<ListFormat> for warpscope::report::listing::ListingFormat {
    fn from(f: ListFormat) -> Self {
        match f {
            ListFormat::Table => Self::Table,
            ListFormat::Csv => Self::Csv,
            ListFormat::Json => Self::Json,
            ListFormat::Markdown => Self::Markdown,
        }
    }
}

/// Prints `listing` in `format` to standard output.
pub fn print_listing(listing: &dyn warpscope::report::listing::Listing, format: ListFormat) -> Result<()> {
    warpscope::report::listing::print(listing, format.into())
}

/// The command line's name for each input the library checks ([`warpscope::Input`]).
pub fn flag(input: warpscope::Input) -> &'static str {
    use warpscope::Input;
    match input {
        Input::Iters => "--iters",
        Input::Interleave => "--interleave",
        Input::Devices => "--devices",
        Input::Shard => "--shard",
        Input::Resume => "--resume",
        Input::Blocks => "--block/--bx/--by/--bz",
        Input::Metrics => "--metrics",
        Input::Define => "--define",
        Input::Configs => "--configs",
        Input::Timeout => "--timeout",
        Input::FailAbove => "--fail-above",
        Input::Size => "--size",
        Input::Arch => "--arch",
        Input::Gpu => "--gpu",
        Input::Only => "--only",
        Input::KernelFile => "--kernel-file",
        Input::UntilNoise => "--until-noise",
        Input::MinIters => "--min-iters",
        Input::MaxIters => "--max-iters",
        Input::Cold => "--cold",
        Input::Plot => "--plot",
    }
}
