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
    /// Writes `text` whole.
    pub(crate) fn write(&self, text: &str) -> Result<(), Error> {
        match self {
            Sink::Stdout => write_stdout(text),
            Sink::File(path) => std::fs::write(path, text).map_err(|e| Error::Io { path: path.clone(), source: e }),
        }
    }
}

/// Writes to stdout; a closed pipe is not an error.
pub(crate) fn write_stdout(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(e)),
        _ => Ok(()),
    }
}
