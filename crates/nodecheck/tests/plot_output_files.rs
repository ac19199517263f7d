//! Where `--plot` writes: never through a symlink or into a FIFO planted at the SVG or its PNG
//! twin, and a directory that cannot take the plot is refused before a bench measures anything.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::cli_support::{entries, run_limited, scratch};
use crate::plot_support::span_report;
use nodecheck::{check_plot_path, write_plot, PlotError};

/// The repro: `--plot FILE.svg` with a symlink planted at `FILE.png` overwrote the
/// link's target with a PNG and exited 0.
#[test]
fn a_symlink_at_the_png_twin_is_refused_and_its_target_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("plot.png")).unwrap();
    let svg = dir.path().join("plot.svg");
    let err = write_plot(&span_report(), &svg).unwrap_err();
    assert!(matches!(err, PlotError::Write { .. }), "{err}");
    assert!(err.to_string().contains("is a symlink"), "{err}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(check_plot_path(&svg).is_err(), "refused before a run, too");
}

/// The other half of the repro: a FIFO at the twin made the write block forever.
#[test]
fn a_fifo_at_the_png_twin_is_refused_without_hanging() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("plot.png");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let report = span_report();
    let svg = dir.path().join("plot.svg");
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(write_plot(&report, &svg).map_err(|err| err.to_string()));
    });
    let outcome = finished
        .recv_timeout(Duration::from_secs(30))
        .expect("write_plot blocked on the FIFO");
    let err = outcome.unwrap_err();
    assert!(err.contains("a device, FIFO or socket"), "{err}");
}

fn bench_with_plot(dir: &Path, plot: &Path) -> crate::cli_support::Limited {
    let args: Vec<std::ffi::OsString> = [
        "bench",
        dir.to_str().unwrap(),
        "--size",
        "16M",
        "--runtime",
        "1",
        "--reserve",
        "1M",
        "--test",
        "span",
        "--force",
    ]
    .iter()
    .map(Into::into)
    .chain(["--plot".into(), plot.as_os_str().to_owned()])
    .collect();
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    run_limited(&args)
}

#[test]
fn bench_plot_into_a_missing_directory_fails_before_measuring() {
    let dir = scratch("plot-e2e-");
    let plot = dir.path().join("no-such-dir/plot.svg");
    let started = Instant::now();
    let out = bench_with_plot(dir.path(), &plot);
    assert_eq!(out.code, Some(3), "a usage error: {}", out.stderr);
    assert!(
        out.stderr.contains("cannot create a file in"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("no-such-dir"), "{}", out.stderr);
    assert!(
        out.stdout.is_empty(),
        "nothing was measured: {}",
        out.stdout
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn bench_plot_with_a_planted_symlink_fails_before_measuring() {
    let dir = scratch("plot-e2e-");
    let out_dir = tempfile::tempdir().expect("tempdir");
    let victim = out_dir.path().join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    std::os::unix::fs::symlink(&victim, out_dir.path().join("plot.png")).unwrap();
    let out = bench_with_plot(dir.path(), &out_dir.path().join("plot.svg"));
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(out.stderr.contains("is a symlink"), "{}", out.stderr);
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn check_plot_into_a_missing_directory_fails_before_measuring() {
    let dir = scratch("plot-e2e-");
    let plot = dir.path().join("no-such-dir/plot.svg");
    let out = run_limited(&[
        "check".as_ref(),
        dir.path().as_os_str(),
        "--bench".as_ref(),
        "full".as_ref(),
        "--plot".as_ref(),
        plot.as_os_str(),
    ]);
    assert_eq!(out.code, Some(3), "a usage error: {}", out.stderr);
    assert!(
        out.stderr.contains("cannot create a file in"),
        "{}",
        out.stderr
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}
