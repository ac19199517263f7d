//! The one bounded reader for files someone else chose: `--db`, `NODECHECK_DB`, `submit --from`,
//! `triage`, `check --snapshot`, `--smartctl-json` and every file of a replayed tree.
//!
//! Such a file may be a FIFO (opening it for reading would block until a writer comes), a
//! device (`/dev/zero` never ends), or far larger than anything nodecheck writes. So it is
//! opened `O_NOFOLLOW | O_NONBLOCK`, must be a regular file by `fstat` of the descriptor that
//! is then read (no check-then-open race), and is read to at most a cap that the caller names;
//! a longer file is an error that names the file and the cap, never a silent truncation.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot open {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{} is a {kind}, not a regular file", path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{} is larger than {} (the most nodecheck reads from {what})", path.display(), units::size::binary_exact(*cap))]
    TooLarge {
        path: PathBuf,
        cap: u64,
        what: &'static str,
    },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl ReadError {
    fn open(path: &Path) -> impl FnOnce(io::Error) -> ReadError + '_ {
        |source| ReadError::Open {
            path: path.to_path_buf(),
            source,
        }
    }

    fn read(path: &Path) -> impl FnOnce(io::Error) -> ReadError + '_ {
        |source| ReadError::Read {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Opens `host` read-only without following a final symlink and without blocking, and returns
/// the descriptor only when it is a regular file. [`crate::Root`] uses it for every attribute.
pub fn open_regular_no_follow(host: &Path) -> io::Result<File> {
    let file = open_without_atime(host, libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a {}, not a regular file", kind_name(kind)),
        ));
    }
    Ok(file)
}

/// Opens a file the user named on the command line. Symlinks the user's own path goes through
/// are followed (a `drives.toml` linked from a dotfiles repository is fine); what they lead to
/// is opened `O_NOFOLLOW | O_NONBLOCK` and must be a regular file.
pub fn open_user_file(path: &Path) -> Result<File, ReadError> {
    let target = std::fs::canonicalize(path).map_err(ReadError::open(path))?;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(&target)
        .map_err(ReadError::open(path))?;
    let kind = file.metadata().map_err(ReadError::read(path))?.file_type();
    if !kind.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_name(kind),
        });
    }
    Ok(file)
}

/// Reads a file the user named, at most `cap` bytes; `what` says what kind of document the cap
/// is for ("a drive database"), for the error.
pub fn read_user_file(path: &Path, cap: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let file = open_user_file(path)?;
    read_capped(file, path, cap, what)
}

/// Reads a file inside a tree nodecheck unpacked or was given to replay, whose symlinks the
/// caller has already resolved inside the tree (see [`crate::Root::canonicalize`]): a symlink
/// left at `host` is refused, not followed out of the tree.
pub fn read_tree_file(host: &Path, cap: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let file = open_regular_no_follow(host).map_err(|source| {
        match source.raw_os_error() {
            // O_NOFOLLOW on a symlink.
            Some(libc::ELOOP) => ReadError::NotRegular {
                path: host.to_path_buf(),
                kind: "symbolic link",
            },
            _ if source.kind() == io::ErrorKind::InvalidInput => ReadError::NotRegular {
                path: host.to_path_buf(),
                kind: std::fs::symlink_metadata(host)
                    .map(|m| kind_name(m.file_type()))
                    .unwrap_or("special file"),
            },
            _ => ReadError::open(host)(source),
        }
    })?;
    read_capped(file, host, cap, what)
}

/// Reads an already opened regular file to at most `cap` bytes. The size `fstat` reports
/// refuses a large file before any byte is read; the read itself stops at `cap + 1` bytes in
/// case the file grows meanwhile.
fn read_capped(
    file: File,
    path: &Path,
    cap: u64,
    what: &'static str,
) -> Result<Vec<u8>, ReadError> {
    let too_large = || ReadError::TooLarge {
        path: path.to_path_buf(),
        cap,
        what,
    };
    let size = file.metadata().map_err(ReadError::read(path))?.len();
    if size > cap {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::read(path))?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The file type in words, for errors.
pub fn kind_name(kind: std::fs::FileType) -> &'static str {
    type Is = fn(&std::fs::FileType) -> bool;
    const NAMES: [(Is, &str); 7] = [
        (std::fs::FileType::is_file, "regular file"),
        (std::fs::FileType::is_dir, "directory"),
        (std::fs::FileType::is_symlink, "symbolic link"),
        (FileTypeExt::is_block_device, "block device"),
        (FileTypeExt::is_char_device, "character device"),
        (FileTypeExt::is_fifo, "FIFO"),
        (FileTypeExt::is_socket, "socket"),
    ];
    NAMES
        .iter()
        .find(|(is, _)| is(&kind))
        .map_or("special file", |&(_, name)| name)
}

/// Opens `host` read-only with `flags`, and `O_NOATIME` where allowed (the file's owner, or
/// root): reading must not make the kernel write an access time back to the disk (on a
/// `relatime` mount it does, for a file not read for a day or changed since its last read).
pub fn open_without_atime(host: &Path, flags: libc::c_int) -> io::Result<File> {
    match OpenOptions::new()
        .read(true)
        .custom_flags(flags | libc::O_NOATIME)
        .open(host)
    {
        Err(err) if err.raw_os_error() == Some(libc::EPERM) => {
            OpenOptions::new().read(true).custom_flags(flags).open(host)
        }
        other => other,
    }
}

/// The entry names of the directory at `host` (without `.` and `..`), listed through a
/// descriptor opened `O_NOATIME` where allowed, so listing it does not write its access time
/// back (`std::fs::read_dir` cannot pass the flag).
pub fn read_dir_without_atime(host: &Path) -> io::Result<Vec<std::ffi::OsString>> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::IntoRawFd;
    let file = open_without_atime(host, libc::O_DIRECTORY | libc::O_CLOEXEC)?;
    let fd = file.into_raw_fd();
    // SAFETY: `fd` is an open directory descriptor we own; fdopendir takes it over (closedir
    // closes it), and on failure we close it ourselves.
    let dir = unsafe { libc::fdopendir(fd) };
    if dir.is_null() {
        let err = io::Error::last_os_error();
        // SAFETY: fdopendir failed, so `fd` is still ours to close.
        unsafe { libc::close(fd) };
        return Err(err);
    }
    let mut names = Vec::new();
    loop {
        // SAFETY: `dir` is a valid stream until closedir below; each entry is read before
        // the next readdir call may overwrite it.
        let entry = unsafe { libc::readdir(dir) };
        if entry.is_null() {
            break;
        }
        // SAFETY: d_name is NUL-terminated within the entry.
        let name = unsafe { std::ffi::CStr::from_ptr((*entry).d_name.as_ptr()) };
        let bytes = name.to_bytes();
        if bytes != b"." && bytes != b".." {
            names.push(std::ffi::OsStr::from_bytes(bytes).to_os_string());
        }
    }
    // SAFETY: `dir` came from fdopendir and is closed once.
    unsafe { libc::closedir(dir) };
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_regular_file_under_the_cap_is_read_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("drives.toml");
        std::fs::write(&file, b"version = \"1\"\n").expect("write");
        assert_eq!(
            read_user_file(&file, 64, "a test").expect("read"),
            b"version = \"1\"\n"
        );
        assert_eq!(
            read_tree_file(&file, 14, "a test").expect("exactly the cap"),
            b"version = \"1\"\n"
        );
    }

    #[test]
    fn a_file_over_the_cap_is_an_error_naming_file_and_cap() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("big.json");
        std::fs::write(&file, vec![b' '; 2048]).expect("write");
        let err = read_user_file(&file, 1024, "a triage input").expect_err("too large");
        let text = err.to_string();
        assert!(text.contains("big.json"), "{text}");
        assert!(text.contains("1 KiB"), "{text}");
        assert!(text.contains("a triage input"), "{text}");
    }

    #[test]
    fn devices_fifos_and_directories_are_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        let zero_link = dir.path().join("zero");
        symlink("/dev/zero", &zero_link).expect("symlink");
        for (path, kind) in [
            (fifo.as_path(), "FIFO"),
            (Path::new("/dev/zero"), "character device"),
            (zero_link.as_path(), "character device"),
            (dir.path(), "directory"),
        ] {
            let err = read_user_file(path, 1 << 20, "a test").expect_err("refused");
            assert!(err.to_string().contains(kind), "{path:?}: {err}");
        }
    }

    #[test]
    fn inside_a_tree_a_symlink_is_never_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("host-file");
        std::fs::write(&outside, b"secret").expect("write");
        let link = dir.path().join("manifest.json");
        symlink(&outside, &link).expect("symlink");
        let err = read_tree_file(&link, 1 << 20, "a test").expect_err("refused");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        let err = read_tree_file(&fifo, 1 << 20, "a test").expect_err("refused");
        assert!(err.to_string().contains("FIFO"), "{err}");
    }
}
