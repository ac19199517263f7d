//! Every file nodecheck writes for the user (`snapshot -o`, `--plot` and its PNG twin): a new
//! file created `O_CREAT|O_EXCL` (which never follows a symlink) under a temporary name in the
//! target's directory, written, then renamed over the target. So nothing is ever written
//! through a symlink planted at the target or into a FIFO or device there (the rename replaces
//! the name, not what it points to), and an interrupted write leaves the old file as it was.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Refuses a target that exists and is not a regular file (a symlink, a directory, a FIFO, a
/// socket or a device); a missing one is fine. Also checks that a file can be created in its
/// directory, so a command can refuse a missing or read-only directory before a long run.
pub fn check_target(target: &Path) -> io::Result<()> {
    refuse_non_regular(target)?;
    let (dir, name) = dir_and_name(target)?;
    let probe = temporary_in(dir, name, ".check")?;
    drop(probe);
    Ok(())
}

/// Writes `bytes` to `target` as the module says.
pub fn write_bytes(target: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(target, |file| file.write_all(bytes))
}

/// Creates a temporary file beside `target`, lets `write` fill it, flushes it to disk and
/// renames it over `target`. The temporary file is removed on every error and, while it
/// exists, by the signal handling if a signal ends the process.
pub fn write_with<T>(
    target: &Path,
    write: impl FnOnce(&mut fs::File) -> io::Result<T>,
) -> io::Result<T> {
    refuse_non_regular(target)?;
    let (dir, name) = dir_and_name(target)?;
    let temp = temporary_in(dir, name, ".partial")?;
    let _on_signal = crate::signals::temporary(temp.path())?;
    let (mut file, temp_path) = temp.into_parts();
    let written = write(&mut file)?;
    file.sync_all()?;
    drop(file);
    temp_path.persist(target).map_err(|err| err.error)?;
    // The rename is durable once the directory is; a failure here loses nothing written.
    if let Ok(dir) = fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(written)
}

fn refuse_non_regular(target: &Path) -> io::Result<()> {
    match fs::symlink_metadata(target) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) => {
            let kind = if meta.file_type().is_symlink() {
                "a symlink"
            } else if meta.is_dir() {
                "a directory"
            } else {
                "a device, FIFO or socket"
            };
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is {kind}: nodecheck writes a new regular file and renames it into \
                     place, never through a link or into a device; give the path of a file",
                    target.display()
                ),
            ))
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
    }
}

fn dir_and_name(target: &Path) -> io::Result<(&Path, &std::ffi::OsStr)> {
    let name = target.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", target.display()),
        )
    })?;
    let dir = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// `.NAME.XXXXXX<suffix>` in `dir`, mode 0644, created `O_EXCL`; removed when dropped.
fn temporary_in(
    dir: &Path,
    name: &std::ffi::OsStr,
    suffix: &str,
) -> io::Result<tempfile::NamedTempFile> {
    let mut prefix = OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(suffix)
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)
        .map_err(|err| {
            io::Error::new(
                err.kind(),
                format!("cannot create a file in {}: {err}", dir.display()),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_or_fifo_at_the_target_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, b"precious").unwrap();
        let link = dir.path().join("plot.png");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let fifo = dir.path().join("fifo.png");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        for target in [&link, &fifo] {
            let err = write_bytes(target, b"png").unwrap_err();
            assert!(err.to_string().contains("never through a link"), "{err}");
            assert!(check_target(target).is_err());
        }
        assert_eq!(fs::read(&victim).unwrap(), b"precious");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            3,
            "no temporary left"
        );
    }

    #[test]
    fn a_regular_target_is_replaced_whole_and_a_missing_directory_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.svg");
        fs::write(&target, b"an older, longer file").unwrap();
        write_bytes(&target, b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        let missing = dir.path().join("no/such/dir/out.svg");
        let err = check_target(&missing).unwrap_err();
        assert!(err.to_string().contains("cannot create a file in"), "{err}");
    }
}
