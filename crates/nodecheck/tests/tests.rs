//! The binary's integration tests, as one test binary (ripgrep's `tests/tests.rs`): one module
//! per thing tested, each with its own `//!` saying what, and three support modules they share.
//!
//! libtest runs the tests of one binary in parallel. Tests that run a bench, fio, a stand-in
//! client process or a timed live run take [`cli_support::machine_lock`] first, so that they
//! neither fill the shared disk together, nor measure each other, nor refuse each other's
//! benches.

// What the tests share: fixture roots and running the binary (`cli_support`), bench reports
// to plot (`plot_support`), and the nodecheck command lines named in text (`text_commands`).
mod cli_support;
mod plot_support;
mod text_commands;

mod behaviour_cli;
mod behaviour_plot;
mod bench_safety;
mod check_full_bench;
mod cli_clients;
mod cli_closed_stdout;
mod cli_db_corpus;
mod cli_db_submit;
mod cli_drive_identity;
mod cli_exit_codes;
mod cli_formats;
mod cli_hostile_archives;
mod cli_hostile_input;
mod cli_hostile_output;
mod cli_judgements;
mod cli_live;
mod cli_probe;
mod cli_scenarios;
mod cli_smartctl_files;
mod cli_snapshot_contents;
mod cli_snapshots;
mod cli_stderr;
mod cli_submit_toml;
mod cli_triage;
mod cli_triage_failed;
mod cli_watch;
mod doc_commands;
mod file_size_limit;
mod hints_runnable;
mod markdown_commonmark;
mod plot_output_files;
mod plot_render;
mod printed_commands;
mod report_voice;
mod snapshot_safety;
mod watch_beside_fio;
