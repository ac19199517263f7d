//! The probe's integration tests, one binary (ripgrep's `tests/tests.rs`): one module per
//! thing tested, and `support` for what several of them share.

mod support;

mod ata_identify;
mod live;
mod nvme_pages;
mod real_kernel;
mod replay;
mod scenarios;
mod smartctl_json;
mod value_parsers_proptest;
