//! Source files and spans.
//!
//! Every value read from a spec keeps the byte range it came from, so that a
//! semantic error (an unknown placeholder, a key template without the tenant)
//! points at the exact line and column of the YAML, not only syntax errors.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

/// Identifies one file in a [`SourceMap`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct Span {
    /// The file the range belongs to.
    pub file: FileId,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// A span that points nowhere; used for values that have no source (defaults).
    pub const DUMMY: Span = Span {
        file: FileId(u32::MAX),
        start: 0,
        end: 0,
    };

    /// A span of `len` bytes starting at `start` in `file`.
    pub fn new(file: FileId, start: usize, len: usize) -> Span {
        let start = u32::try_from(start).unwrap_or(u32::MAX);
        let len = u32::try_from(len).unwrap_or(0);
        Span {
            file,
            start,
            end: start.saturating_add(len),
        }
    }

    /// Whether this span points at real source text.
    pub fn is_dummy(&self) -> bool {
        self.file == FileId(u32::MAX)
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the span is empty.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// A sub-range of this span, `offset` bytes in and `len` bytes long.
    pub fn sub(&self, offset: usize, len: usize) -> Span {
        if self.is_dummy() {
            return *self;
        }
        Span::new(self.file, self.start as usize + offset, len)
    }
}

/// A value with the span of the YAML node it came from.
///
/// Equality, ordering and hashing look at the value only: two specs that
/// differ only in layout compare equal.
#[derive(Clone, Copy, Default)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// Pairs a value with its span.
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }

    /// A value that does not come from any source (a default).
    pub fn dummy(value: T) -> Self {
        Spanned {
            value,
            span: Span::DUMMY,
        }
    }

    /// Borrows the value.
    pub fn as_ref(&self) -> Spanned<&T> {
        Spanned {
            value: &self.value,
            span: self.span,
        }
    }

    /// Maps the value, keeping the span.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Spanned<U> {
        Spanned {
            value: f(self.value),
            span: self.span,
        }
    }
}

impl<T> std::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Spanned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T: fmt::Display> fmt::Display for Spanned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Spanned<T> {}

impl<T: PartialOrd> PartialOrd for Spanned<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl<T: Ord> Ord for Spanned<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.value.cmp(&other.value)
    }
}

impl<T: std::hash::Hash> std::hash::Hash for Spanned<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.value.hash(state)
    }
}

impl<T: Serialize> Serialize for Spanned<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Spanned<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

std::thread_local! {
    /// The file being deserialized on this thread; `Spanned` needs it to build
    /// a [`Span`] and serde gives no other way to pass context down.
    static CURRENT_FILE: std::cell::Cell<FileId> = const { std::cell::Cell::new(FileId(u32::MAX)) };
}

/// Runs `f` with `file` as the file that deserialized spans belong to.
pub(crate) fn with_current_file<R>(file: FileId, f: impl FnOnce() -> R) -> R {
    let previous = CURRENT_FILE.with(|c| c.replace(file));
    let result = f();
    CURRENT_FILE.with(|c| c.set(previous));
    result
}

/// Converts a YAML parser location to a span in the current file.
pub(crate) fn span_of_location(location: &serde_saphyr::Location) -> Span {
    let file = CURRENT_FILE.with(|c| c.get());
    let span = location.span();
    match (span.byte_offset(), span.byte_len()) {
        (Some(offset), Some(len)) => Span::new(file, offset as usize, len as usize),
        _ => Span {
            file,
            ..Span::DUMMY
        },
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let inner = serde_saphyr::Spanned::<T>::deserialize(deserializer)?;
        Ok(Spanned {
            span: span_of_location(&inner.referenced),
            value: inner.value,
        })
    }
}

/// One source file: its name as shown in diagnostics and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The name shown in diagnostics (usually the path as given).
    pub name: String,
    /// The path it was read from, if it came from disk.
    pub path: Option<PathBuf>,
    /// The text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    fn new(name: String, path: Option<PathBuf>, text: String) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile {
            name,
            path,
            text,
            line_starts,
        }
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, column + 1)
    }

    /// The byte offset of a 1-based line and column (in characters), clamped to the file.
    pub fn offset_of(&self, line: usize, column: usize) -> usize {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return self.text.len();
        };
        let rest = &self.text[start..];
        let line_len = rest.find('\n').unwrap_or(rest.len());
        start
            + rest[..line_len]
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(line_len, |(i, _)| i)
    }

    /// The source text a span covers, if it lies inside this file.
    pub fn slice(&self, span: Span) -> Option<&str> {
        self.text.get(span.start as usize..span.end as usize)
    }
}

/// The largest input file read, in bytes: 16 MiB. The largest spec in
/// `schemas/` is under 20 KiB; the bound keeps a wrong path (`/dev/zero`, a
/// disk image) from being read until memory runs out.
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a UTF-8 input file of at most [`MAX_INPUT_BYTES`]. A longer file
/// (or an endless one such as `/dev/zero`) is an error of kind
/// [`std::io::ErrorKind::FileTooLarge`] after reading one byte past the limit.
pub fn read_input(path: &Path) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(Error::new(
            ErrorKind::FileTooLarge,
            format!(
                "larger than {} MiB, the limit for an input file",
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorKind::InvalidData, format!("not UTF-8 text: {e}")))
}

/// Every source file read in one compilation.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file held in memory.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.push(SourceFile::new(name.into(), None, text.into()))
    }

    /// Reads a file from disk (at most [`MAX_INPUT_BYTES`]) and adds it.
    pub fn load(&mut self, path: &Path) -> std::io::Result<FileId> {
        let text = read_input(path)?;
        let name = path.display().to_string();
        Ok(self.push(SourceFile::new(name, Some(path.to_owned()), text)))
    }

    fn push(&mut self, file: SourceFile) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).expect("fewer than 2^32 source files"));
        self.files.push(file);
        id
    }

    /// The file with this id.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// All files, in the order they were added.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// `path:line:col` of the start of a span.
    pub fn location(&self, span: Span) -> Option<Location> {
        let file = self.get(span.file)?;
        let (line, column) = file.line_col(span.start as usize);
        Some(Location {
            file: file.name.clone(),
            line,
            column,
        })
    }
}

/// A human-readable position: file name, 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    /// The file name as given to the compiler.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one_and_in_characters() {
        let mut map = SourceMap::new();
        let id = map.add("a.yaml", "ab\ncé d\n");
        let file = map.get(id).unwrap();
        assert_eq!(file.line_col(0), (1, 1));
        assert_eq!(file.line_col(3), (2, 1));
        // 'é' is two bytes, one column.
        assert_eq!(file.line_col(6), (2, 3));
    }

    #[test]
    fn spanned_equality_ignores_the_span() {
        let a = Spanned::new(1, Span::new(FileId(0), 0, 1));
        let b = Spanned::new(1, Span::new(FileId(0), 5, 1));
        assert_eq!(a, b);
        assert_ne!(a, Spanned::dummy(2));
    }
}
