//! `warpscope report RESULTS -o report.html`, and the figure options every command that reports records
//! shares (`--plot`, `--html`, `--plot-order`, `--heatmap`).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use warpscope::report::Visuals;
use warpscope::report::figures::{self, Order};
use warpscope::{Outcome, Result, output};

/// How the figures arrange the configurations.
#[derive(Args, Debug, Clone)]
pub struct FigureOptions {
    /// Order of the configurations along the figures' axes: as swept, or fastest first.
    #[arg(long, value_enum, default_value = "sweep")]
    plot_order: OrderArg,
    /// Metrics drawn as block.x x block.y heatmaps when the sweep is a cartesian grid (comma-separated;
    /// `time` is the kernel time): `--heatmap time,achieved_occupancy`.
    #[arg(long, value_name = "LIST", default_value = figures::TIME)]
    heatmap: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OrderArg {
    Sweep,
    Time,
}

impl FigureOptions {
    fn options(&self) -> figures::Options {
        figures::Options {
            order: match self.plot_order {
                OrderArg::Sweep => Order::Sweep,
                OrderArg::Time => Order::Time,
            },
            heatmaps: self.heatmap.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect(),
        }
    }
}

/// The figure and HTML report of a command that reports records.
#[derive(Args, Debug, Clone)]
pub struct FigureArgs {
    /// Draw the figure to FILE (.svg or .png): kernel time and every metric per configuration (measured
    /// and estimated in one panel, the fastest starred), occupancy against block size, and block.x x
    /// block.y heatmaps of a cartesian sweep.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Write a self-contained HTML report to FILE: device and settings, the figures, every record in a
    /// sortable, filterable table with each value's provenance, the invalid and failed configurations
    /// with their reasons, and each configuration's raw samples.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    #[command(flatten)]
    options: FigureOptions,
}

impl FigureArgs {
    /// The files asked for, named by their flag (for the checks that outputs are distinct).
    pub fn outputs(&self) -> [(&'static str, Option<&Path>); 2] {
        [("--plot", self.plot.as_deref()), ("--html", self.html.as_deref())]
    }

    /// What the library draws: the files asked for and how.
    pub fn visuals(&self) -> Visuals {
        Visuals {
            plot: self.plot.clone(),
            html: self.html.clone(),
            options: self.options.options(),
            command_line: command_line(),
        }
    }
}

/// This process's command line, as a shell would take it back.
pub fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    warpscope::runspec::shell_line(&args)
}

/// Arguments of `report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results: a warpscope JSON report or JSON Lines, `ncu --csv` or `nvprof --csv` output, or a folder
    /// of warpscope results (a run-spec results folder: every .json and .jsonl in it).
    results: PathBuf,
    /// Where the HTML report goes (`-`: standard output).
    #[arg(short = 'o', long, value_name = "FILE", default_value = output::STDOUT)]
    output: PathBuf,
    /// Also draw the figure to FILE (.svg or .png).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    options: FigureOptions,
}

pub fn run(a: &ReportArgs) -> Result<Outcome> {
    let inputs = [output::Named { what: "RESULTS", path: &a.results }];
    let fig = Visuals {
        plot: a.plot.clone(),
        html: Some(a.output.clone()),
        options: a.options.options(),
        command_line: command_line(),
    };
    output::check_distinct(&inputs, &fig.outputs())?;
    warpscope::report::results_page(&a.results, &fig, super::flag)
}
