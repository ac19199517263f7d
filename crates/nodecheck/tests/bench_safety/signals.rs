//! A signal during the prefill or the run removes the test file and stops the writes.

use super::*;

fn interrupt(signal: Signal, during_prefill: bool) {
    use std::os::unix::process::ExitStatusExt;
    let dir = bench_scratch();
    // During the prefill: 2 GiB takes long enough to be caught mid-way on any disk here.
    // During the run: a small file, prefilled at once, then a 60 s run cut short.
    let (size, size_bytes) = if during_prefill {
        ("2G", 2u64 << 30)
    } else {
        ("64M", 64u64 << 20)
    };
    let mut child = nodecheck_process()
        .args(bench_args(dir.path(), size, "60"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    wait_for("the test file", Duration::from_secs(30), || {
        !test_files(dir.path()).is_empty()
    });
    if during_prefill {
        wait_for("the prefill to start", Duration::from_secs(30), || {
            written_bytes(pid) > 0
        });
        assert!(
            written_bytes(pid) < size_bytes,
            "the prefill finished before the signal; the test did not test it"
        );
    } else {
        wait_for("the prefill to finish", Duration::from_secs(60), || {
            written_bytes(pid) >= size_bytes
        });
        std::thread::sleep(Duration::from_millis(300));
    }
    let signalled_at = Instant::now();
    kill(Pid::from_raw(pid as i32), signal).unwrap();
    let status = wait_exit(&mut child, Duration::from_secs(20));
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(signalled_at.elapsed() < Duration::from_secs(20));
    // It cleaned up, then died of the signal it was sent (the shell sees the real cause);
    // SIGQUIT, whose default action also dumps core, exits with 128 + 3 instead.
    if signal == Signal::SIGQUIT {
        assert_eq!(status.code(), Some(131), "{status:?}: {stderr}");
    } else {
        assert_eq!(status.signal(), Some(signal as i32), "{status:?}: {stderr}");
    }
    assert!(stderr.contains("test file removed"), "{stderr}");
    assert!(
        entries(dir.path()).is_empty(),
        "left behind: {:?}",
        entries(dir.path())
    );
}

/// One test per signal and moment (`true`: during the prefill, `false`: during the run), each
/// named for what it checks so a failure says which signal leaked.
macro_rules! interrupt_tests {
    ($($name:ident: $signal:ident, $during_prefill:literal;)*) => {$(
        #[test]
        fn $name() {
            let _machine = machine_lock();
            interrupt(Signal::$signal, $during_prefill);
        }
    )*};
}

interrupt_tests! {
    sigint_during_prefill_leaves_nothing: SIGINT, true;
    sigterm_during_prefill_leaves_nothing: SIGTERM, true;
    sigint_during_the_run_leaves_nothing: SIGINT, false;
    sigterm_during_the_run_leaves_nothing: SIGTERM, false;
    sighup_during_the_run_leaves_nothing: SIGHUP, false;
    sigquit_during_the_run_leaves_nothing: SIGQUIT, false;
    sigusr1_during_the_run_leaves_nothing: SIGUSR1, false;
    sigusr2_during_prefill_leaves_nothing: SIGUSR2, true;
}
