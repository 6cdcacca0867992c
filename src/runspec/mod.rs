//! Experiment files (`warpscope run-spec FILE.toml`): a named list of steps, each one warpscope command
//! with its options, turned into command lines whose outputs land in one results folder. Parsing and
//! checking live here, writing the results folder's summary and page ([`results`]), and running the
//! steps ([`run`]), each as its own process of the front end's.
//!
//! ```toml
//! name = "seed-001"
//! about = "sumMatrixOnGPU2D block-dimension sweeps (source 001)"
//!
//! [[step]]
//! name = "sweep1"
//! command = "sweep"
//! kernel = "sum-matrix"
//! block = "32x32,32x16,16x32,16x16"
//! metrics = "achieved_occupancy,gld_throughput,gld_efficiency"
//! model = true
//! plot = true
//! ```
//!
//! Every key other than `name`, `command`, `kernel`, `about` and `plot` is an option of the command:
//! `key = "value"` becomes `--key value`, `key = true` becomes `--key`, a number its decimal form and
//! an array its comma-joined items, except for the repeatable `size` and `define`, whose items each
//! become one option. A user's kernel takes `kernel_file` instead of `kernel` (a path relative to where
//! run-spec runs):
//!
//! ```toml
//! [[step]]
//! name = "conv"
//! command = "sweep"
//! kernel_file = "examples/kernels/conv2d.toml"
//! size = ["w=2048", "h=2048"]
//! define = ["tile_x=1,2,4", "tile_y=1,2"]
//! bx = "16,32"
//! by = "4,8"
//! ```

use std::collections::BTreeMap;
use std::path::Path;

pub mod results;
pub mod run;

/// How one step went.
pub struct StepRun<'a> {
    /// The step.
    pub step: &'a Step,
    /// Its command line (without `warpscope`).
    pub argv: Vec<String>,
    /// Its exit code (128 + N when signal N ended it).
    pub code: i32,
    /// Its wall time, seconds.
    pub secs: f64,
}

/// A command line as a shell would take it back: `warpscope` and `argv`, quoted where needed.
pub fn shell_line(argv: &[String]) -> String {
    let quote = |a: &String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./,:=+%".contains(c)) {
            a.clone()
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    std::iter::once("warpscope".to_string()).chain(argv.iter().map(quote)).collect::<Vec<_>>().join(" ")
}

use serde::Deserialize;

use crate::error::{Error, Result};

/// An experiment file.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    /// Name of the experiment (the results folder's default name).
    pub name: String,
    /// What it reproduces.
    #[serde(default)]
    pub about: String,
    /// The steps, run in order.
    #[serde(rename = "step")]
    pub steps: Vec<Step>,
}

/// One command of an experiment.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Step {
    /// Step name: its output files are `<name>.json`, `<name>.csv`, ... in the results folder.
    pub name: String,
    /// The warpscope command: sweep, run, estimate, occupancy, peak, transpose, blur, selftest.
    pub command: String,
    /// The kernel, for sweep, run and estimate.
    #[serde(default)]
    pub kernel: Option<String>,
    /// What the step shows (printed in the summary).
    #[serde(default)]
    pub about: String,
    /// Draw the command's figure to `<name>.svg`.
    #[serde(default)]
    pub plot: bool,
    /// The command's options.
    #[serde(flatten)]
    pub options: BTreeMap<String, toml::Value>,
}

/// Commands whose output is a warpscope report (`--format json -o FILE`).
const REPORTING: &[&str] = &["sweep", "run", "estimate", "peak", "transpose", "selftest"];
/// Commands whose tables go to standard output (kept as `<name>.txt`).
const PRINTING: &[&str] = &["occupancy", "blur"];
/// Commands that take a kernel.
const WITH_KERNEL: &[&str] = &["sweep", "run", "estimate"];
/// Options given once per value (an array is several of them).
const REPEATED: &[&str] = &["size", "define"];
/// Options run-spec sets itself.
const RESERVED: &[&str] = &["format", "output", "o", "plot"];

impl Step {
    /// Whether the step writes a report (JSON) rather than printed tables.
    pub fn reports(&self) -> bool {
        REPORTING.contains(&self.command.as_str())
    }

    /// The command line (without the program name) that runs this step with its outputs in `dir`.
    pub fn argv(&self, dir: &Path) -> Vec<String> {
        let mut argv = vec![self.command.clone()];
        argv.extend(self.kernel.clone());
        for (key, value) in &self.options {
            let flag = format!("--{}", key.replace('_', "-"));
            match value {
                toml::Value::Array(items) if REPEATED.contains(&key.as_str()) => {
                    for item in items {
                        argv.extend([flag.clone(), scalar(item)]);
                    }
                }
                toml::Value::Boolean(true) => argv.push(flag),
                toml::Value::Boolean(false) => {}
                other => argv.extend([flag, scalar(other)]),
            }
        }
        let file = |ext: &str| dir.join(format!("{}.{ext}", self.name)).display().to_string();
        if self.reports() {
            argv.extend(["--format".into(), "json".into(), "-o".into(), file("json")]);
        }
        if self.plot {
            argv.extend(["--plot".into(), file("svg")]);
        }
        argv
    }
}

/// A TOML value as a command-line word.
fn scalar(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(items) => items.iter().map(scalar).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

impl ExperimentFile {
    /// Parses and checks an experiment file's text; errors name the step.
    pub fn parse(text: &str) -> Result<ExperimentFile> {
        let spec: ExperimentFile =
            toml::from_str(text).map_err(|e| Error::usage(format!("not an experiment file: {e}")))?;
        if spec.steps.is_empty() {
            return Err(Error::usage("an experiment file needs at least one [[step]]"));
        }
        safe_name(&spec.name).map_err(|e| Error::usage(format!("name: {e}")))?;
        for (i, s) in spec.steps.iter().enumerate() {
            let at = |msg: String| Error::usage(format!("step '{}': {msg}", s.name));
            safe_name(&s.name).map_err(at)?;
            if spec.steps[..i].iter().any(|o| o.name == s.name) {
                return Err(at("the name is used twice".into()));
            }
            let known = REPORTING.contains(&s.command.as_str()) || PRINTING.contains(&s.command.as_str());
            if !known {
                return Err(at(format!(
                    "unknown command '{}' (known: {})",
                    s.command,
                    [REPORTING, PRINTING].concat().join(", ")
                )));
            }
            let file = s.options.contains_key("kernel_file");
            match (WITH_KERNEL.contains(&s.command.as_str()), &s.kernel) {
                (true, None) if !file => {
                    return Err(at(format!("{} needs a kernel (or a kernel_file)", s.command)));
                }
                (true, Some(_)) if file => return Err(at("give kernel or kernel_file, not both".into())),
                (false, Some(_)) => return Err(at(format!("{} takes no kernel", s.command))),
                _ => {}
            }
            if let Some(k) = s.options.keys().find(|k| RESERVED.contains(&k.as_str())) {
                return Err(at(format!("'{k}' is set by run-spec (outputs go to the results folder)")));
            }
            if let Some((k, _)) =
                s.options.iter().find(|(_, v)| matches!(v, toml::Value::Table(_) | toml::Value::Datetime(_)))
            {
                return Err(at(format!("option '{k}' must be a string, number, boolean or array")));
            }
        }
        Ok(spec)
    }

    /// Reads and parses an experiment file.
    pub fn read(path: &Path) -> Result<ExperimentFile> {
        let text =
            std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
        ExperimentFile::parse(&text)
            .map_err(|e| Error::usage(format!("{}: {}", path.display(), e.to_string().trim_start_matches("usage: "))))
    }
}

/// Names become file names: letters, digits, '-', '_' and '.'.
fn safe_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok { Ok(()) } else { Err(format!("'{name}' is not a file name (letters, digits, '-', '_', '.')")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
name = "seed-001"
about = "block sweeps"

[[step]]
name = "sweep1"
command = "sweep"
kernel = "sum-matrix"
block = "32x32,16x16"
metrics = ["achieved_occupancy", "gld_efficiency"]
model = true
cold = false
iters = 30
plot = true

[[step]]
name = "occ"
command = "occupancy"
arch = "sm_20"
block_size = "32..1024:32"
"#;

    #[test]
    fn steps_become_command_lines() {
        let spec = ExperimentFile::parse(SPEC).unwrap();
        assert_eq!(spec.name, "seed-001");
        let dir = Path::new("out");
        assert_eq!(
            spec.steps[0].argv(dir),
            [
                "sweep",
                "sum-matrix",
                "--block",
                "32x32,16x16",
                "--iters",
                "30",
                "--metrics",
                "achieved_occupancy,gld_efficiency",
                "--model",
                "--format",
                "json",
                "-o",
                "out/sweep1.json",
                "--plot",
                "out/sweep1.svg"
            ]
        );
        assert!(spec.steps[0].reports() && !spec.steps[1].reports());
        assert_eq!(spec.steps[1].argv(dir), ["occupancy", "--arch", "sm_20", "--block-size", "32..1024:32"]);
    }

    #[test]
    fn kernel_files_take_repeated_sizes_and_defines() {
        let spec = ExperimentFile::parse(
            "name = \"x\"\n[[step]]\nname = \"conv\"\ncommand = \"sweep\"\nkernel_file = \"k.toml\"\nsize = [\"w=64\", \"h=32\"]\ndefine = [\"tile_x=1,2\", \"tile_y=1\"]\nbx = [16, 32]\n",
        )
        .unwrap();
        let argv = spec.steps[0].argv(Path::new("out"));
        let words: Vec<&str> = argv.iter().map(String::as_str).collect();
        assert_eq!(
            words[..13],
            [
                "sweep",
                "--bx",
                "16,32",
                "--define",
                "tile_x=1,2",
                "--define",
                "tile_y=1",
                "--kernel-file",
                "k.toml",
                "--size",
                "w=64",
                "--size",
                "h=32"
            ]
        );
        let both =
            "name = \"x\"\n[[step]]\nname = \"s\"\ncommand = \"sweep\"\nkernel = \"copy\"\nkernel_file = \"k.toml\"\n";
        assert!(ExperimentFile::parse(both).unwrap_err().to_string().contains("give kernel or kernel_file, not both"));
    }

    #[test]
    fn mistakes_name_their_step() {
        let bad = |text: &str| ExperimentFile::parse(text).unwrap_err().to_string();
        let step = |body: &str| format!("name = \"x\"\n[[step]]\nname = \"s\"\n{body}\n");
        assert!(bad(&step("command = \"sweeep\"\nkernel = \"k\"")).contains("step 's': unknown command 'sweeep'"));
        assert!(bad(&step("command = \"sweep\"")).contains("step 's': sweep needs a kernel (or a kernel_file)"));
        assert!(bad(&step("command = \"peak\"\nkernel = \"k\"")).contains("peak takes no kernel"));
        assert!(bad(&step("command = \"peak\"\nformat = \"csv\"")).contains("'format' is set by run-spec"));
        assert!(bad(&step("command = \"peak\"\nx = { a = 1 }")).contains("option 'x' must be"));
        assert!(bad("name = \"x\"\nsteps = 1").contains("not an experiment file"));
        assert!(bad("name = \"x\"\nstep = []").contains("at least one [[step]]"));
        assert!(bad("name = \"../x\"\n[[step]]\nname = \"s\"\ncommand = \"peak\"").contains("is not a file name"));
        let twice =
            "name = \"x\"\n[[step]]\nname = \"s\"\ncommand = \"peak\"\n[[step]]\nname = \"s\"\ncommand = \"peak\"";
        assert!(bad(twice).contains("used twice"));
    }
}
