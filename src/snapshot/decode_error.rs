//! Where a decoded object failed: the located error every decoder and the validation return.

/// What one top-level document held, for error locations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Zero-based index of the document in the stream.
    pub index: usize,
    /// Path of list indices from the document down to the object (`items[3].items[0]`).
    pub item_path: Vec<usize>,
}

/// A document that is not a valid object of a kind we read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} `{name}`: {message}")]
pub struct DecodeError {
    pub document: Document,
    pub kind: String,
    /// `metadata.name` (with namespace), or `<unnamed>`.
    pub name: String,
    /// The field that failed, as a dotted path (`spec.containers[0].resources.requests.cpu`).
    pub field: String,
    pub message: String,
    pub help: String,
    /// Byte offset of the failing field in the text, when it is known exactly (JSON input).
    pub offset: Option<usize>,
}
