//! The part of `cargo xtask` that another crate builds on: the fuzz crate feeds the drive list
//! renderer databases parsed from hostile text. Everything else is in the binary (`main.rs`).

pub mod drives_page;
