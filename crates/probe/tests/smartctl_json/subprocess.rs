//! Running smartctl: stand-in scripts for each way it can end, and the real one when it is
//! installed.

use super::*;

#[test]
fn stand_in_smartctl_nonzero_exit_with_json_is_normal() {
    let fixture = fixture_path(KINGSTON_A400);
    // The script checks it was called as `smartctl -j -x DEV` before answering.
    let smartctl = StandIn::new(&format!(
        "[ \"$1\" = -j ] && [ \"$2\" = -x ] && [ \"$3\" = /dev/sdz ] || exit 64\n\
             cat '{}'\nexit 4\n",
        fixture.display()
    ));
    let r = smartctl
        .run("/dev/sdz", Duration::from_secs(10))
        .expect("non-zero exit with JSON is a report")
        .report;
    assert_eq!(r.model_name.as_deref(), Some("KINGSTON SA400M8120G"));
    assert_eq!(r.exit_status, Some(4));

    let err = smartctl
        .run("/dev/other", Duration::from_secs(10))
        .unwrap_err();
    assert!(
        matches!(
            err,
            SmartctlError::NoOutput {
                status: Some(64),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn stand_in_smartctl_6_is_refused() {
    let smartctl = StandIn::new(
        "echo 'smartctl 6.6 2017-11-05 r4594 [x86_64-linux-4.14.74] (local build)'\n\
         echo '=======> UNRECOGNIZED OPTION: j'\nexit 1\n",
    );
    let err = smartctl
        .run("/dev/sda", Duration::from_secs(10))
        .unwrap_err();
    assert!(matches!(err, SmartctlError::TooOld { ref version } if version == "6.6"));
}

#[test]
fn stand_in_smartctl_that_prints_nothing() {
    let smartctl = StandIn::new("echo 'Permission denied' >&2\nexit 2\n");
    let err = smartctl
        .run("/dev/sda", Duration::from_secs(10))
        .unwrap_err();
    match err {
        SmartctlError::NoOutput { status, stderr, .. } => {
            assert_eq!(status, Some(2));
            assert_eq!(stderr, "Permission denied");
        }
        other => panic!("expected NoOutput, got {other:?}"),
    }
}

#[test]
fn hung_smartctl_times_out() {
    let smartctl = StandIn::new("exec sleep 30\n");
    let started = Instant::now();
    let err = smartctl
        .run("/dev/sda", Duration::from_millis(300))
        .unwrap_err();
    assert!(matches!(err, SmartctlError::Timeout { .. }), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the child was killed promptly"
    );
}

/// True while `pid` is a live process (not gone, not a zombie waiting to be reaped).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

#[test]
fn a_background_job_holding_stdout_does_not_outlast_the_timeout() {
    // A wrapper that answers, leaves `sleep 20` holding its stdout, and exits: the issue's
    // repro took 20 s for a 2 s timeout.
    let fixture = fixture_path(KINGSTON_A400);
    let pids = tempfile::tempdir().expect("tempdir");
    let pid_file = pids.path().join("sleep.pid");
    let smartctl = StandIn::new(&format!(
        "cat '{}'
sleep 20 &
echo $! > '{}'
exit 4
",
        fixture.display(),
        pid_file.display()
    ));
    let started = Instant::now();
    let result = smartctl.run("/dev/sda", Duration::from_secs(2));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "returned after {took:?}");
    // smartctl itself answered in time: its report is kept.
    let report = result.expect("the wrapper's output is a report").report;
    assert_eq!(report.model_name.as_deref(), Some("KINGSTON SA400M8120G"));
    let sleep: i32 = std::fs::read_to_string(&pid_file)
        .expect("pid file")
        .trim()
        .parse()
        .expect("a pid");
    let gone_by = Instant::now() + Duration::from_secs(2);
    while alive(sleep) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !alive(sleep),
        "the background job was killed with the group"
    );
}

#[test]
fn a_hung_wrapper_and_its_background_job_both_end_at_the_timeout() {
    let pids = tempfile::tempdir().expect("tempdir");
    let pid_file = pids.path().join("sleep.pid");
    let smartctl = StandIn::new(&format!(
        "sleep 20 &
echo $! > '{}'
wait
",
        pid_file.display()
    ));
    let started = Instant::now();
    let err = smartctl
        .run("/dev/sda", Duration::from_millis(500))
        .unwrap_err();
    assert!(matches!(err, SmartctlError::Timeout { .. }), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let sleep: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone_by = Instant::now() + Duration::from_secs(2);
    while alive(sleep) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !alive(sleep),
        "the background job was killed with the group"
    );
}

#[test]
fn missing_smartctl_says_what_to_install() {
    let err = run_smartctl_with(
        Path::new("/nonexistent/bin/smartctl"),
        Path::new("/dev/sda"),
        Duration::from_secs(1),
    )
    .unwrap_err();
    assert!(matches!(err, SmartctlError::NotInstalled { .. }));
    assert!(err.to_string().contains("smartmontools >= 7.0"));
}

#[test]
fn real_smartctl_on_this_machine() {
    let Some(device) = ["/dev/nvme0", "/dev/sda", "/dev/vda"]
        .into_iter()
        .map(Path::new)
        .find(|path| path.exists())
    else {
        println!("skipped: no /dev/nvme0, /dev/sda or /dev/vda on this machine");
        return;
    };
    match run_smartctl(device) {
        Ok(SmartctlRun { report, .. }) => {
            // Whatever the device, the decoded bits must agree with the exit status.
            let status = report
                .exit_status
                .expect("smartctl always reports exit_status");
            assert_eq!(report.status, decode_exit_status(status));
            assert!(report.smartctl_version.is_some_and(|(major, _)| major >= 7));
        }
        Err(SmartctlError::NotInstalled { .. }) => {
            println!("skipped: smartctl is not installed");
        }
        Err(SmartctlError::TooOld { version }) => {
            println!("skipped: installed smartctl {version} predates JSON output");
        }
        Err(other) => panic!("smartctl on {}: {other}", device.display()),
    }
}

/// A shell script standing in for smartctl, in a directory of its own.
struct StandIn {
    _dir: tempfile::TempDir,
    script: PathBuf,
}

impl StandIn {
    fn new(body: &str) -> StandIn {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("smartctl");
        std::fs::write(&script, format!("#!/bin/sh\n{body}")).expect("write script");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        StandIn { _dir: dir, script }
    }

    /// Runs the stand-in as smartctl on `device`, given `timeout`.
    fn run(&self, device: &str, timeout: Duration) -> Result<SmartctlRun, SmartctlError> {
        run_smartctl_with(&self.script, Path::new(device), timeout)
    }
}
