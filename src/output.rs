//! Every byte warpscope writes for its user goes through here: reports, tables and images to a file
//! (whole or not at all, [`crate::outfile`]) or to standard output (`-o -`), diagnostics to standard
//! error. A failed write becomes one `cannot write output: ...` error (exit 2) and a closed pipe a
//! quiet exit 141; where an output would overwrite an input or another output of the same run, or
//! cannot be written at all, that is said before any work is done.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::outfile::OutFile;

/// The name standing for standard output wherever a command takes `-o FILE`.
pub const STDOUT: &str = "-";

/// Whether `path` means standard output (`-o -`).
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == STDOUT
}

/// The error of a failed write to `target` (a file name, or `standard output`): a closed pipe is
/// [`Error::BrokenPipe`], anything else [`Error::Output`].
pub fn write_error(target: &str, e: &io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::BrokenPipe => Error::BrokenPipe,
        _ => Error::Output(format!("{target}: {e}")),
    }
}

/// Writes `text` to standard output and flushes it.
pub fn print(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| write_error("standard output", &e))
}

/// Writes `line` and a newline to standard output.
pub fn println(line: &str) -> Result<()> {
    print(&format!("{line}\n"))
}

/// The first failure of a write that could not stop the work where it happened (a progress line on a
/// closed standard output, a JSON Lines stream on a full disk).
static FAILED: Mutex<Option<Error>> = Mutex::new(None);

/// Records a write failure from inside running work and asks that work to stop after the
/// configuration in progress, so that what finished is still written where it can be; the command
/// then ends with the error ([`take_failure`]).
pub fn fail(e: Error) {
    if let Ok(mut first) = FAILED.lock()
        && first.is_none()
    {
        *first = Some(e);
    }
    crate::signals::request_stop();
}

/// The failure recorded by [`fail`], if any.
pub fn take_failure() -> Option<Error> {
    FAILED.lock().ok().and_then(|mut f| f.take())
}

/// A progress line on standard output, from inside running work: a failure is recorded ([`fail`]).
pub fn progress_line(line: &str) {
    if let Err(e) = println(line) {
        fail(e);
    }
}

/// When the process started (as near as `main` can tell: [`started`] is its first call).
static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Marks the process's start, for [`since_start`]; later calls change nothing.
pub fn started() {
    START.get_or_init(std::time::Instant::now);
}

/// Seconds since [`started`] (since the first call, where `main` did not mark it).
pub fn since_start() -> f64 {
    START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
}

/// A diagnostic line on standard error. A closed or full standard error loses the line and nothing
/// else: the command's results never depend on it.
pub fn note(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Writes `bytes` to `path`, whole or not at all, or to standard output for `-`.
pub fn emit(path: &Path, bytes: &[u8]) -> Result<()> {
    if is_stdout(path) {
        let mut out = io::stdout().lock();
        return out.write_all(bytes).and_then(|()| out.flush()).map_err(|e| write_error("standard output", &e));
    }
    let out = OutFile::new(path);
    let written = fs::write(out.target(), bytes).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::PermissionDenied => {
            Error::Io { path: path.display().to_string(), source: e }
        }
        _ => write_error(&path.display().to_string(), &e),
    });
    out.finish(written)
}

/// A writer for output that streams (JSON Lines as each configuration finishes): standard output, or
/// `path` appended to (`append`) or created.
pub fn stream(path: &Path, append: bool) -> Result<Box<dyn Write + Send>> {
    if is_stdout(path) {
        return Ok(Box::new(io::stdout()));
    }
    let f = fs::OpenOptions::new()
        .create(true)
        .append(append)
        .write(true)
        .truncate(!append)
        .open(path)
        .map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    Ok(Box::new(f))
}

/// Fails now, before any work, if `path` could not be written later: a folder, a file in a folder that
/// does not exist or cannot be written. Standard output, devices and pipes are taken as writable.
pub fn check_writable(path: &Path) -> Result<()> {
    if is_stdout(path) {
        return Ok(());
    }
    if path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/') {
        return Err(Error::usage(format!("{}: is a folder, not a file name", path.display())));
    }
    crate::outfile::check_writable(path)
}

/// One file of a run: what it is (`--image`, `-o`, `--plot`, ...) and where.
#[derive(Clone, Copy, Debug)]
pub struct Named<'a> {
    /// The option or argument that names it, for the error message.
    pub what: &'a str,
    /// The path as given.
    pub path: &'a Path,
}

/// Refuses a run that would write over one of its inputs, or write two outputs to one file, before any
/// work: paths are compared as the files they name (through `.`, `..` and symbolic links, also for
/// outputs that do not exist yet). Standard output and devices or pipes (`/dev/null`) may repeat.
pub fn check_distinct(inputs: &[Named<'_>], outputs: &[Named<'_>]) -> Result<()> {
    let real = |n: &Named<'_>| (!is_stdout(n.path) && !is_special(n.path)).then(|| resolve(n.path));
    for (i, out) in outputs.iter().enumerate() {
        let Some(target) = real(out) else { continue };
        let clash = inputs
            .iter()
            .map(|n| (n, "input"))
            .chain(outputs[..i].iter().map(|n| (n, "output")))
            .find(|(n, _)| real(n).as_ref() == Some(&target));
        if let Some((other, kind)) = clash {
            return Err(Error::usage(format!(
                "{} {} is the same file as the {kind} {} {}: choose another output name",
                out.what,
                out.path.display(),
                other.what,
                other.path.display()
            )));
        }
    }
    Ok(())
}

/// Whether `path` exists and is not a regular file (a device, a pipe, a terminal).
fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The absolute path `path` stands for: its longest existing ancestor resolved through links, the
/// rest (not yet created) appended with `.` and `..` applied.
pub fn resolve(path: &Path) -> PathBuf {
    let abs =
        if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(path) };
    let mut rest: Vec<Component<'_>> = Vec::new();
    let mut base = abs.as_path();
    loop {
        if let Ok(real) = fs::canonicalize(base) {
            let mut out = real;
            for c in rest.iter().rev() {
                match c {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    c => out.push(c.as_os_str()),
                }
            }
            return out;
        }
        match (base.parent(), base.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                base = parent;
            }
            _ => return abs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named<'a>(what: &'a str, path: &'a Path) -> Named<'a> {
        Named { what, path }
    }

    #[test]
    fn an_output_may_not_be_an_input_or_another_output() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.csv");
        fs::write(&input, "x").unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let dotted = dir.path().join("sub/../in.csv");
        let new = dir.path().join("new.svg");
        let new_again = dir.path().join("sub/../new.svg");
        let e = check_distinct(&[named("FILE", &input)], &[named("-o", &link)]).unwrap_err().to_string();
        assert!(e.contains("-o") && e.contains("same file as the input FILE"), "{e}");
        assert!(check_distinct(&[named("FILE", &input)], &[named("-o", &dotted)]).is_err());
        let e = check_distinct(&[], &[named("-o", &new), named("--plot", &new_again)]).unwrap_err().to_string();
        assert!(e.contains("--plot") && e.contains("same file as the output -o"), "{e}");
        assert!(check_distinct(&[named("FILE", &input)], &[named("-o", &new)]).is_ok());
        let (out, null) = (Path::new(STDOUT), Path::new("/dev/null"));
        assert!(check_distinct(&[], &[named("-o", out), named("--plot", out)]).is_ok());
        assert!(check_distinct(&[], &[named("-o", null), named("--plot", null)]).is_ok());
    }

    #[test]
    fn folders_are_not_output_files() {
        let dir = tempfile::tempdir().unwrap();
        let e = check_writable(dir.path()).unwrap_err().to_string();
        assert!(e.ends_with("is a folder, not a file name"), "{e}");
        assert!(check_writable(Path::new(STDOUT)).is_ok());
        assert!(check_writable(&dir.path().join("r.json")).is_ok());
    }

    #[test]
    fn a_closed_pipe_is_its_own_error() {
        assert!(matches!(write_error("x", &io::Error::from(io::ErrorKind::BrokenPipe)), Error::BrokenPipe));
        let full = write_error("/dev/full", &io::Error::from_raw_os_error(28)).to_string();
        assert_eq!(full, "cannot write output: /dev/full: No space left on device (os error 28)");
    }
}
