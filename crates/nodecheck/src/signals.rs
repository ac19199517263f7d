//! Signal handling for every command: what happens to nodecheck's temporary state when it is
//! told to stop (Ctrl-C, `kill`, a closed terminal, `timeout`, systemd).
//!
//! One thread waits for SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGXFSZ (a write
//! past `ulimit -f`) and records the signal in a [`CancelToken`]. Then either
//! - a [`Cooperation`] is alive (a benchmark is running: its workloads poll the token, wind
//!   down and remove the test file through its guard, which knows the file's inode); the
//!   command then ends the process when the cooperation is dropped, or
//! - nobody cooperates: the thread removes every registered [`Temporary`] (a half-written
//!   archive, an unpacked snapshot) and ends the process itself.
//!
//! Ending the process means dying of the same signal (the shell and service managers see the
//! real cause; exit status 128 + signal number), except SIGQUIT and SIGXFSZ, whose default
//! action would also dump core: nodecheck exits with 131 or 153 instead. A SIGXFSZ the parent
//! set to be ignored stays ignored: the write then fails with EFBIG, an ordinary error.
//!
//! Both decisions are taken under one lock, so a signal can never remove temporaries while a
//! cooperation is being set up, nor let a cooperation start once the process is ending.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use bench::CancelToken;
use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGXFSZ};

/// Every signal nodecheck cleans up after.
pub const HANDLED: [i32; 7] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGXFSZ];

/// Signals whose default action dumps core: nodecheck exits with 128 + the signal instead.
const CORE_DUMPING: [i32; 2] = [SIGQUIT, SIGXFSZ];

/// The handled signals, less SIGXFSZ when it was inherited ignored (`trap '' XFSZ`): whoever
/// started nodecheck asked for EFBIG errors instead of the signal.
fn to_handle() -> Vec<i32> {
    HANDLED
        .into_iter()
        .filter(|&signal| signal != SIGXFSZ || !inherited_ignored(signal))
        .collect()
}

/// Set in the SIGXFSZ handler itself, before the write that raised it returns EFBIG, so the
/// command that fails on that error ends as the signal does even when the signal thread has
/// not seen it yet.
fn file_size_exceeded_flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The exit status of a command that ended with `code`: 153 (128 + SIGXFSZ) instead when a
/// write went past the file size limit, as if the signal thread had ended the process.
pub fn exit_status(code: u8) -> u8 {
    if file_size_exceeded_flag().load(Ordering::SeqCst) {
        128 + SIGXFSZ as u8
    } else {
        code
    }
}

fn inherited_ignored(signal: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current disposition into
    // `current`, which is a valid, zeroed sigaction.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

struct Shared {
    token: CancelToken,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    cooperating: usize,
    next_id: u64,
    temporaries: Vec<(u64, PathBuf)>,
}

static SHARED: OnceLock<Shared> = OnceLock::new();

fn shared() -> &'static Shared {
    SHARED.get_or_init(|| Shared {
        token: CancelToken::new(),
        state: Mutex::new(State::default()),
    })
}

fn lock_state() -> MutexGuard<'static, State> {
    // A panic elsewhere while holding the lock must not stop the cleanup.
    shared()
        .state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Installs the handlers (once per process) and returns the token they set.
pub fn install() -> std::io::Result<CancelToken> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    let installed = INSTALLED.get_or_init(|| {
        let handled = to_handle();
        if handled.contains(&SIGXFSZ) {
            signal_hook::flag::register(SIGXFSZ, Arc::clone(file_size_exceeded_flag()))
                .map_err(|err| err.to_string())?;
        }
        let mut signals =
            signal_hook::iterator::Signals::new(handled).map_err(|err| err.to_string())?;
        std::thread::Builder::new()
            .name("nodecheck-signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    on_signal(signal);
                }
            })
            .map_err(|err| err.to_string())?;
        Ok(())
    });
    match installed {
        Ok(()) => Ok(shared().token.clone()),
        Err(err) => Err(std::io::Error::other(err.clone())),
    }
}

fn on_signal(signal: i32) {
    shared().token.cancel_by(signal);
    let state = lock_state();
    if state.cooperating > 0 {
        return;
    }
    end_process(state, signal);
}

/// Removes the temporaries and ends the process as `signal` would; holds the state lock
/// throughout so nothing new starts meanwhile.
fn end_process(state: MutexGuard<'static, State>, signal: i32) -> ! {
    for (_, path) in &state.temporaries {
        remove(path);
    }
    if !CORE_DUMPING.contains(&signal) {
        // SAFETY: resetting a disposition to SIG_DFL and raising a signal have no
        // memory-safety preconditions.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
    // SIGQUIT or SIGXFSZ, or a signal whose default action did not end the process.
    std::process::exit(128 + signal)
}

/// Removes a file or a directory tree. The main thread may still be writing into a directory
/// being removed, so a few passes catch entries created during the first.
fn remove(path: &Path) {
    for _ in 0..5 {
        let result = match path.symlink_metadata() {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
            Ok(_) => std::fs::remove_file(path),
            Err(_) => return,
        };
        if result.is_ok() {
            return;
        }
    }
}

/// While alive, signals only cancel the token: the code inside polls it and cleans up itself.
/// Dropping it after a signal ends the process as the signal would have (after removing the
/// registered temporaries); the command prints what it did before dropping it.
#[must_use = "signals end the process at once unless the cooperation is kept alive"]
pub struct Cooperation {
    token: CancelToken,
}

/// Starts a cooperation (installing the handlers if needed). Blocks, and never returns, if a
/// signal is already ending the process.
pub fn cooperate() -> std::io::Result<Cooperation> {
    let token = install()?;
    let mut state = lock_state();
    state.cooperating += 1;
    drop(state);
    Ok(Cooperation { token })
}

impl Cooperation {
    pub fn token(&self) -> &CancelToken {
        &self.token
    }

    /// The signal that arrived during the cooperation, if any.
    pub fn signal(&self) -> Option<i32> {
        self.token.signal().filter(|s| *s > 0)
    }
}

impl Drop for Cooperation {
    fn drop(&mut self) {
        let mut state = lock_state();
        state.cooperating = state.cooperating.saturating_sub(1);
        if state.cooperating == 0 {
            if let Some(signal) = self.signal() {
                end_process(state, signal);
            }
        }
    }
}

/// A path removed if a signal ends the process while it is registered. The owner removes it
/// itself on every other path (and on success renames or keeps it): dropping the registration
/// only forgets the path.
pub struct Temporary {
    id: u64,
}

/// Registers `path` (a file or directory nodecheck created) for removal on a signal. Installs
/// the handlers if needed.
pub fn temporary(path: &Path) -> std::io::Result<Temporary> {
    install()?;
    let mut state = lock_state();
    state.next_id += 1;
    let id = state.next_id;
    state.temporaries.push((id, path.to_path_buf()));
    Ok(Temporary { id })
}

impl Drop for Temporary {
    fn drop(&mut self) {
        lock_state().temporaries.retain(|(id, _)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registrations_come_and_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = temporary(&dir.path().join("a")).unwrap();
        let second = temporary(&dir.path().join("b")).unwrap();
        assert_eq!(lock_state().temporaries.len(), 2);
        drop(first);
        let left: Vec<PathBuf> = lock_state()
            .temporaries
            .iter()
            .map(|(_, p)| p.clone())
            .collect();
        assert_eq!(left, vec![dir.path().join("b")]);
        drop(second);
        assert!(lock_state().temporaries.is_empty());
    }

    #[test]
    fn removal_takes_files_and_trees() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("tree");
        std::fs::create_dir_all(tree.join("sys/block")).unwrap();
        std::fs::write(tree.join("sys/block/x"), b"1").unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"2").unwrap();
        remove(&tree);
        remove(&file);
        remove(&dir.path().join("never-existed"));
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
    }
}
