//! Output files written whole or not at all: a temporary name beside the file, renamed over it when
//! complete. What a rename would destroy — a device (`-o /dev/null`), a pipe, a terminal — is
//! written in place instead, and a symbolic link is followed to the file it names. A file replaced
//! keeps its permissions (a private `-o priv.json` stays private, while being written too).

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// One output file being written: write to [`OutFile::target`], then [`OutFile::finish`].
#[derive(Debug)]
pub struct OutFile {
    path: PathBuf,
    tmp: Option<PathBuf>,
    /// The permissions of the file being replaced.
    mode: Option<fs::Permissions>,
}

impl OutFile {
    /// Plans the writing of `path`: through a temporary name when `path` is new or a regular file
    /// (a link to one: the file it names), in place otherwise.
    pub fn new(path: &Path) -> Self {
        use std::os::unix::fs::OpenOptionsExt;
        let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        match fs::metadata(&real) {
            Ok(m) if !m.file_type().is_file() => OutFile { path: path.to_path_buf(), tmp: None, mode: None },
            Ok(m) => {
                // The temporary file starts readable by its owner alone and takes the replaced file's
                // permissions when complete; writers truncate it, which keeps its mode.
                let tmp = temp_name(&real);
                let _ = fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp);
                OutFile { tmp: Some(tmp), path: real, mode: Some(m.permissions()) }
            }
            Err(_) => OutFile { tmp: Some(temp_name(&real)), path: real, mode: None },
        }
    }

    /// Where the writer writes now.
    pub fn target(&self) -> &Path {
        self.tmp.as_deref().unwrap_or(&self.path)
    }

    /// Completes the writing: on success the temporary file takes the final name; on failure it is
    /// removed and the error returned.
    pub fn finish<T>(mut self, written: Result<T>) -> Result<T> {
        let Some(tmp) = self.tmp.take() else { return written };
        let io = |source| Error::Io { path: self.path.display().to_string(), source };
        let done = written.and_then(|v| {
            if let Some(mode) = &self.mode {
                fs::set_permissions(&tmp, mode.clone()).map_err(io)?;
            }
            fs::rename(&tmp, &self.path).map_err(io)?;
            Ok(v)
        });
        if done.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        done
    }
}

impl Drop for OutFile {
    /// A writing abandoned before [`OutFile::finish`] (an error on the way) leaves no temporary file.
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// `.NAME.tmpPID.EXT` beside `path` (the extension kept, for writers that choose a format by it).
fn temp_name(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = path.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp{}{ext}", std::process::id()))
}

/// Fails now, before any measuring, if `path` could not be written later. A device or pipe is taken
/// as writable (opening a pipe would wait for its reader).
pub fn check_writable(path: &Path) -> Result<()> {
    let out = OutFile::new(path);
    let Some(tmp) = &out.tmp else { return Ok(()) };
    fs::File::create(tmp).map_err(|source| Error::Io { path: path.display().to_string(), source })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn regular_files_are_replaced_whole_and_failures_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        fs::write(&p, "old").unwrap();
        let out = OutFile::new(&p);
        assert_ne!(out.target(), p.as_path());
        assert_eq!(out.target().extension().unwrap(), "json");
        fs::write(out.target(), "new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "old", "the old file stays until the rename");
        out.finish(Ok(())).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");

        let out = OutFile::new(&p);
        fs::write(out.target(), "half").unwrap();
        assert!(out.finish::<()>(Err(Error::Output("boom".into()))).is_err());
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
        // Abandoned on the way (an error before finish), or only checked: nothing left either.
        drop(OutFile::new(&p));
        check_writable(&p).unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("priv.json");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        let out = OutFile::new(&p);
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(out.target()), 0o600, "private while being written");
        fs::write(out.target(), "new").unwrap();
        out.finish(Ok(())).unwrap();
        assert_eq!((mode(&p), fs::read_to_string(&p).unwrap().as_str()), (0o600, "new"));
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        crate::output::emit(&p, b"newer").unwrap();
        assert_eq!(mode(&p), 0o640);
    }

    #[test]
    fn a_link_stays_a_link_and_its_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data.csv");
        let link = dir.path().join("latest.csv");
        fs::write(&file, "old").unwrap();
        std::os::unix::fs::symlink(&file, &link).unwrap();
        crate::output::emit(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&file).unwrap(), "new");
    }

    #[test]
    fn a_pipe_is_written_in_place_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
        };
        check_writable(&fifo).unwrap();
        crate::output::emit(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), "through the pipe");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the pipe is still a pipe");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn a_device_is_written_in_place() {
        // /dev/null is a character device on any Unix; it must stay one (a rename over it once
        // turned it into a regular file that later programs read back).
        let null = Path::new("/dev/null");
        assert!(OutFile::new(null).target() == null);
        check_writable(null).unwrap();
        crate::output::emit(null, b"discarded").unwrap();
        assert!(fs::metadata(null).unwrap().file_type().is_char_device());
    }
}
