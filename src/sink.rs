//! EDGE OUT: where a command's text goes — stdout, or the file `snapshot -o FILE` names.
//! A closed pipe (`| head`) is not an error: the reader has what it wanted.

use std::io::Write;
use std::path::PathBuf;

use crate::error::Error;

/// A destination for a command's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sink {
    Stdout,
    File(PathBuf),
}

impl Sink {
    /// Hands `write` the destination, buffered by the writer: for output written as it is
    /// produced (`snapshot`). A closed stdout is not an error.
    pub(crate) fn stream(&self, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Error> {
        match self {
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                match write(&mut out) {
                    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(e)),
                    _ => Ok(()),
                }
            }
            Sink::File(path) => {
                let mut file = std::fs::File::create(path).map_err(|e| write_error(path, e))?;
                write(&mut file).map_err(|e| write_error(path, e))
            }
        }
    }
}

/// A file that could not be written, with the hint that fits why.
fn write_error(path: &std::path::Path, source: std::io::Error) -> Error {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let help = match source.kind() {
        std::io::ErrorKind::NotFound => format!(
            "the directory `{}` does not exist: create it (`mkdir -p {}`) or give -o a path in an existing one",
            dir.display(),
            dir.display()
        ),
        std::io::ErrorKind::PermissionDenied => {
            format!("you may not write in `{}`: give -o a path you can write, or `-o yaml` for stdout", dir.display())
        }
        _ => "give -o another path, or `-o yaml` / `-o json` to write to stdout".to_owned(),
    };
    Error::WriteFile { path: path.to_owned(), source, help }
}

/// Writes to stdout; a closed pipe is not an error.
pub(crate) fn write_stdout(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(e)),
        _ => Ok(()),
    }
}
