//! Safe file writes: the new content goes to a temporary file beside the target, which is then
//! renamed over it, so a crash, a `kill -9` or a full disk never leaves a half-written file.
//!
//! The rename replaces the directory entry, so everything the entry carried is restored on the
//! new file first: its mode and owner. A symlink is followed, so the file it points to is
//! rewritten and the link stays a link. A read-only file is refused rather than replaced (the
//! directory being writable does not make the file writable), and so is a file that changed on
//! disk since the tool read it: somebody else's edit is never silently overwritten.

use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Symlink hops followed before giving up, as the kernel's `ELOOP` limit.
const MAX_SYMLINK_HOPS: usize = 40;

/// What temp files are called: `.<file name>.kubectl-dataflow-<pid>.tmp`, so a later run can
/// tell its leftovers (from a process that no longer runs) from another run's file in flight.
const TEMP_MARKER: &str = ".kubectl-dataflow-";
const TEMP_SUFFIX: &str = ".tmp";

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{path} is read-only; nothing written (make it writable to let the tool rewrite it)")]
    ReadOnly { path: String },
    #[error(
        "{path} changed on disk since it was read; nothing written (run the command again on the new content)"
    )]
    Changed { path: String },
    #[error("{path} is a symlink loop or a chain of more than {MAX_SYMLINK_HOPS} links")]
    SymlinkLoop { path: String },
    #[error("cannot write {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The file a path names once every symlink is followed; the path itself when it is no link
/// (or does not exist yet).
pub(crate) fn resolve_symlinks(path: &Path) -> Result<PathBuf, WriteError> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINK_HOPS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current).map_err(io_error(&current))?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(WriteError::SymlinkLoop {
        path: path.display().to_string(),
    })
}

/// Check that the file at `path` may be replaced: it is writable and, when `expected` is given,
/// still holds exactly the bytes the tool read (and computed its change from).
pub fn check_unchanged(path: &Path, expected: Option<&[u8]>) -> Result<(), WriteError> {
    let target = resolve_symlinks(path)?;
    let shown = || path.display().to_string();
    match std::fs::metadata(&target) {
        Ok(meta) if meta.permissions().readonly() => {
            return Err(WriteError::ReadOnly { path: shown() });
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && expected.is_none() => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(WriteError::Changed { path: shown() });
        }
        Err(e) => return Err(io_error(path)(e)),
    }
    // Opening for writing (without truncating) asks the kernel, which also knows ACLs and
    // read-only mounts the mode bits do not show.
    if let Err(e) = std::fs::OpenOptions::new().write(true).open(&target) {
        return Err(match e.kind() {
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                WriteError::ReadOnly { path: shown() }
            }
            _ => io_error(path)(e),
        });
    }
    if let Some(expected) = expected {
        let current = std::fs::read(&target).map_err(io_error(path))?;
        if current != expected {
            return Err(WriteError::Changed { path: shown() });
        }
    }
    Ok(())
}

/// Replace the file at `path` with `bytes` atomically, following symlinks and keeping the
/// file's mode and owner. With `expected`, refuse when the file no longer holds those bytes;
/// the check is repeated just before the rename, so the window for a lost edit is the rename.
pub fn write_atomic(path: &Path, bytes: &[u8], expected: Option<&[u8]>) -> Result<(), WriteError> {
    check_unchanged(path, expected)?;
    let target = resolve_symlinks(path)?;
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = target
        .file_name()
        .ok_or_else(|| {
            io_error(path)(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a file name",
            ))
        })?
        .to_string_lossy()
        .into_owned();
    remove_leftovers(&dir, &file_name);
    let temp = dir.join(temp_name(&file_name, std::process::id()));
    // Errors name the file the user gave, not the temp file beside it.
    let result = write_temp(&temp, &target, bytes)
        .map_err(|e| match e {
            WriteError::Io { source, .. } => io_error(path)(source),
            other => other,
        })
        .and_then(|()| {
            check_unchanged(path, expected)?;
            std::fs::rename(&temp, &target).map_err(io_error(path))
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
        return result;
    }
    // Make the rename itself durable; a failure here leaves the new content in place.
    if let Ok(dir) = std::fs::File::open(&dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

fn temp_name(file_name: &str, pid: u32) -> String {
    format!(".{file_name}{TEMP_MARKER}{pid}{TEMP_SUFFIX}")
}

/// Write and flush the temp file, with the target's mode and owner when it exists.
fn write_temp(temp: &Path, target: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temp)
        .map_err(io_error(temp))?;
    file.write_all(bytes).map_err(io_error(temp))?;
    file.sync_all().map_err(io_error(temp))?;
    if let Ok(meta) = std::fs::metadata(target) {
        file.set_permissions(std::fs::Permissions::from_mode(meta.mode()))
            .map_err(io_error(temp))?;
        let owner_differs = |e: &std::fs::Metadata| e.uid() != meta.uid() || e.gid() != meta.gid();
        let written = file.metadata().map_err(io_error(temp))?;
        if owner_differs(&written) {
            std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid())).map_err(|e| {
                WriteError::Io {
                    path: target.display().to_string(),
                    source: std::io::Error::new(
                        e.kind(),
                        format!(
                            "cannot keep its owner {}:{} ({e}); nothing written",
                            meta.uid(),
                            meta.gid()
                        ),
                    ),
                }
            })?;
        }
    }
    Ok(())
}

/// Remove temp files of `file_name` left by runs that were killed mid-write. A temp file names
/// its process; one whose process still runs is another run in flight and is left alone.
fn remove_leftovers(dir: &Path, file_name: &str) {
    let prefix = format!(".{file_name}{TEMP_MARKER}");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && (pid == std::process::id() || !process_alive(pid))
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether a process runs; without `/proc` nobody can tell, so every process counts as alive
/// and no temp file is removed.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_content_keeps_the_mode_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yaml");
        std::fs::write(&path, "old\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"new\n", Some(b"old\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        let mode = std::fs::metadata(&path).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        assert_eq!(names(dir.path()), ["out.yaml"]);
    }

    #[test]
    fn the_owner_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yaml");
        std::fs::write(&path, "old\n").unwrap();
        // Only root may give a file away; elsewhere the file is ours and the rename keeps that.
        let owner = if std::os::unix::fs::chown(&path, Some(4321), Some(4322)).is_ok() {
            (4321, 4322)
        } else {
            let meta = std::fs::metadata(&path).unwrap();
            (meta.uid(), meta.gid())
        };
        write_atomic(&path, b"new\n", Some(b"old\n")).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!((meta.uid(), meta.gid()), owner);
    }

    #[test]
    fn a_missing_directory_fails_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope/out.yaml");
        let err = write_atomic(&path, b"x", None).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot write {}: No such file or directory (os error 2)",
                path.display()
            )
        );
    }

    #[test]
    fn a_symlink_is_written_through_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("real")).unwrap();
        let target = dir.path().join("real/flow.yaml");
        std::fs::write(&target, "old\n").unwrap();
        let link = dir.path().join("flow.yaml");
        std::os::unix::fs::symlink("real/flow.yaml", &link).unwrap();
        write_atomic(&link, b"new\n", Some(b"old\n")).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(names(&dir.path().join("real")), ["flow.yaml"]);
    }

    #[test]
    fn refusals_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yaml");
        let loop_a = dir.path().join("a");
        std::os::unix::fs::symlink("b", &loop_a).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        let shown = |p: &Path| p.display().to_string();
        let cases: [(&Path, u32, &[u8], String); 3] = [
            (
                &path,
                0o444,
                b"old\n",
                format!(
                    "{} is read-only; nothing written (make it writable to let the tool rewrite it)",
                    shown(&path)
                ),
            ),
            (
                &path,
                0o644,
                b"what the tool read\n",
                format!(
                    "{} changed on disk since it was read; nothing written (run the command again on the new content)",
                    shown(&path)
                ),
            ),
            (
                &loop_a,
                0o644,
                b"old\n",
                format!(
                    "{} is a symlink loop or a chain of more than 40 links",
                    shown(&loop_a)
                ),
            ),
        ];
        for (target, mode, expected, message) in cases {
            std::fs::write(&path, "old\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let err = write_atomic(target, b"new\n", Some(expected)).unwrap_err();
            assert_eq!(err.to_string(), message);
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
            assert_eq!(names(dir.path()), ["a", "b", "out.yaml"]);
        }
    }

    #[test]
    fn leftovers_of_dead_runs_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yaml");
        std::fs::write(&path, "old\n").unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let parent = std::os::unix::process::parent_id();
        for pid in [dead, parent] {
            std::fs::write(dir.path().join(temp_name("out.yaml", pid)), "partial").unwrap();
        }
        std::fs::write(dir.path().join(".other.yaml.kubectl-dataflow-1.tmp"), "x").unwrap();
        write_atomic(&path, b"new\n", None).unwrap();
        let mut expected = vec![
            ".other.yaml.kubectl-dataflow-1.tmp".to_string(),
            temp_name("out.yaml", parent),
            "out.yaml".to_string(),
        ];
        expected.sort();
        assert_eq!(names(dir.path()), expected);
    }
}
