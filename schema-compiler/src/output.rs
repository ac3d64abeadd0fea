//! Writing generated files: each one atomically and only when it changed,
//! and never two outputs of one run to one file name.
//!
//! The temporary file is made here rather than with the `tempfile` crate:
//! build scripts compile this crate, the helper needs only `create_new` and
//! `rename` from std, and `tempfile` would add `rustix`/`getrandom` to every
//! downstream build for names that a process id and a counter make unique.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `contents` to `path` unless the file already holds exactly that,
/// so an unchanged output keeps its modification time and a build script
/// does not rebuild the crate. Returns whether it wrote. Missing parent
/// directories are created; a symbolic link is written through.
///
/// The new contents go to a temporary file in the same directory, which is
/// flushed to disk and then renamed over `path`: a concurrent reader, an
/// interrupted run or a full disk leaves the old file or the new one, never
/// an empty or truncated one. The temporary file is removed on failure.
pub fn write_if_changed(path: &Path, contents: &str) -> io::Result<bool> {
    let path = resolve_link(path);
    if holds(&path, contents.as_bytes()) {
        return Ok(false);
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let (temp, file) = create_temp(dir, &path)?;
    let written = fill(file, contents.as_bytes(), &path).and_then(|()| fs::rename(&temp, &path));
    if written.is_err() {
        // Best effort: the error that matters is the one returned.
        let _ = fs::remove_file(&temp);
    }
    written.map(|()| true)
}

/// The file a symbolic link points to (so the link survives the rename), or
/// `path` itself.
fn resolve_link(path: &Path) -> PathBuf {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
    } else {
        path.to_owned()
    }
}

/// Whether `path` is a regular file holding exactly `contents`; the length
/// is compared first, so a large unrelated file is not read.
fn holds(path: &Path, contents: &[u8]) -> bool {
    let same_len =
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == contents.len() as u64);
    same_len && fs::read(path).is_ok_and(|old| old == contents)
}

/// Creates a new, uniquely named file next to `path`:
/// `.<name>.<pid>-<n>.tmp`, hidden and recognisable if a killed run leaves it.
fn create_temp(dir: &Path, path: &Path) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let pid = std::process::id();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.{pid}-{n}.tmp"));
        match File::options().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            // Left by an earlier process with the same id: try the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1_000 => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Writes the contents, gives the file the permissions of the one it
/// replaces, and flushes it to disk before it is renamed into place.
fn fill(mut file: File, contents: &[u8], replaced: &Path) -> io::Result<()> {
    file.write_all(contents)?;
    if let Ok(old) = fs::metadata(replaced) {
        file.set_permissions(old.permissions())?;
    }
    file.sync_all()
}

/// Two outputs of one run that would be written to the same file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clash {
    /// What the first output is made from (a spec path, a table name).
    pub first: String,
    /// The first output's file name.
    pub first_file: String,
    /// What the second output is made from.
    pub second: String,
    /// The second output's file name: the first's, or one that differs only
    /// in case (one file on macOS and Windows).
    pub second_file: String,
}

impl fmt::Display for Clash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Clash {
            first,
            first_file,
            second,
            second_file,
        } = self;
        if first_file == second_file {
            write!(f, "{first} and {second} both generate `{first_file}`")
        } else {
            write!(
                f,
                "{first} generates `{first_file}` and {second} `{second_file}`, \
                 one file where file names ignore case"
            )
        }
    }
}

/// The first two outputs, given as `(file name, source)`, that would be
/// written to the same file. Names are compared ignoring case, so a run
/// cannot overwrite its own output on a case-insensitive file system.
pub fn find_clash<'a>(outputs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Clash> {
    let mut seen = std::collections::BTreeMap::new();
    for (file, source) in outputs {
        if let Some((first_file, first)) = seen.insert(file.to_lowercase(), (file, source)) {
            return Some(Clash {
                first: first.to_owned(),
                first_file: first_file.to_owned(),
                second: source.to_owned(),
                second_file: file.to_owned(),
            });
        }
    }
    None
}

/// Why `dir` cannot be an output directory: it exists and is not one.
pub fn not_a_directory(dir: &Path) -> Option<String> {
    let meta = fs::metadata(dir).ok()?;
    if meta.is_dir() {
        return None;
    }
    let what = if meta.is_file() {
        "is a file"
    } else {
        "is not a directory"
    };
    Some(format!("{} {what}", dir.display()))
}
