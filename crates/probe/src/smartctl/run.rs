//! Running `smartctl -j -x` on the live machine: found on `PATH` or in the sbin directories,
//! bounded in time and output, its exit status decoded rather than taken as failure.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{parse, SmartctlError, SmartctlReport, MAX_OUTPUT_BYTES};

const MAX_STDERR_BYTES: usize = 8 << 10;
/// After the process group is killed at the deadline, how long its pipes get to reach their
/// end (every writer is dead, so the kernel closes them at once).
const DRAIN_GRACE: Duration = Duration::from_millis(250);
/// Long enough for a drive that is spinning up (HDDs can take ~10 s), short enough that a
/// hung USB bridge does not hang the probe.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Where distributions install smartctl, for when `PATH` lacks the sbin directories (a
/// root shell entered with `su` without `-`, cron, systemd units with a minimal PATH).
const SBIN_LOCATIONS: [&str; 3] = [
    "/usr/sbin/smartctl",
    "/usr/local/sbin/smartctl",
    "/sbin/smartctl",
];

/// One run of smartctl: the parsed report and the exact bytes smartctl printed, which a
/// snapshot saves so that its replay reads what the live probe read.
#[derive(Debug, Clone)]
pub struct SmartctlRun {
    pub report: SmartctlReport,
    pub output: Vec<u8>,
}

/// Runs `smartctl -j -x DEV` and parses its output. A non-zero exit status is normal (it is
/// a bit mask of findings) and is decoded, not treated as failure. smartctl is looked up on
/// `PATH`, then in the usual sbin directories.
pub fn run_smartctl(dev: &Path) -> Result<SmartctlRun, SmartctlError> {
    match run_smartctl_with(Path::new("smartctl"), dev, DEFAULT_TIMEOUT) {
        Err(SmartctlError::NotInstalled { program }) => {
            match SBIN_LOCATIONS
                .iter()
                .map(Path::new)
                .find(|path| path.is_file())
            {
                Some(path) => run_smartctl_with(path, dev, DEFAULT_TIMEOUT),
                None => Err(SmartctlError::NotInstalled { program }),
            }
        }
        other => other,
    }
}

/// [`run_smartctl`] with an explicit program and timeout (tests use a stand-in script).
pub fn run_smartctl_with(
    program: &Path,
    dev: &Path,
    timeout: Duration,
) -> Result<SmartctlRun, SmartctlError> {
    let mut child = Command::new(program)
        .arg("-j")
        .arg("-x")
        .arg(dev)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so that the deadline reaches whatever it started too (a
        // wrapper's background job holding the pipes would otherwise outlive the timeout).
        .process_group(0)
        .spawn()
        .map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                SmartctlError::NotInstalled {
                    program: program.to_path_buf(),
                }
            } else {
                SmartctlError::Spawn {
                    program: program.to_path_buf(),
                    source,
                }
            }
        })?;

    // Both pipes are drained on their own threads so a chatty child never blocks on a full
    // pipe while we wait for it.
    let stdout = child
        .stdout
        .take()
        .map(|pipe| drain(pipe, MAX_OUTPUT_BYTES));
    let stderr = child
        .stderr
        .take()
        .map(|pipe| drain(pipe, MAX_STDERR_BYTES));

    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                // Best effort: the child may have exited in between.
                kill_group(&child);
                let _ = child.kill();
                let _ = child.wait();
                // The drain threads are left to finish on their own: a process that left the
                // group may still hold the pipes open, and waiting could block past the timeout.
                return Err(SmartctlError::Timeout {
                    device: dev.to_path_buf(),
                    timeout,
                });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(source) => {
                kill_group(&child);
                let _ = child.kill();
                let _ = child.wait();
                return Err(SmartctlError::Spawn {
                    program: program.to_path_buf(),
                    source,
                });
            }
        }
    };

    // smartctl has exited, but something it started may still hold the pipes: read them
    // until the deadline at most, then end the group and take what arrived in the grace.
    let mut group_killed = false;
    let mut collect =
        |pipe: Option<Receiver<(Vec<u8>, bool)>>| -> Result<(Vec<u8>, bool), SmartctlError> {
            let Some(pipe) = pipe else {
                return Ok(Default::default());
            };
            let wait = deadline.saturating_duration_since(Instant::now());
            match pipe.recv_timeout(wait) {
                Ok(drained) => return Ok(drained),
                Err(RecvTimeoutError::Disconnected) => return Ok(Default::default()),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if !group_killed {
                kill_group(&child);
                group_killed = true;
            }
            pipe.recv_timeout(DRAIN_GRACE)
                .map_err(|_| SmartctlError::Timeout {
                    device: dev.to_path_buf(),
                    timeout,
                })
        };
    let (output, overflowed) = collect(stdout)?;
    let (error_output, _) = collect(stderr)?;
    if overflowed {
        return Err(SmartctlError::OutputTooLarge {
            device: dev.to_path_buf(),
        });
    }
    if output.trim_ascii().is_empty() {
        return Err(SmartctlError::NoOutput {
            device: dev.to_path_buf(),
            status: status.code(),
            stderr: String::from_utf8_lossy(error_output.trim_ascii()).into_owned(),
        });
    }
    let report = parse(&output)?;
    Ok(SmartctlRun { report, output })
}

/// SIGKILL to the child's process group (its pid: it was started with `process_group(0)`),
/// which reaches the background processes a wrapper script started.
fn kill_group(child: &Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Reads a pipe to the end on a thread, keeping at most `limit` bytes; the flag says whether
/// more arrived. The result comes on the channel, so the caller can stop waiting for it.
fn drain<R: Read + Send + 'static>(mut pipe: R, limit: usize) -> Receiver<(Vec<u8>, bool)> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut overflowed = false;
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(read) => {
                    let room = limit.saturating_sub(kept.len());
                    if read > room {
                        overflowed = true;
                    }
                    kept.extend_from_slice(&chunk[..read.min(room)]);
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = sender.send((kept, overflowed));
    });
    receiver
}
