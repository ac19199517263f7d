//! Verdict's integration tests, as one binary: each module was a test crate of its own, and
//! `support` builds the probe facts and bench reports they judge.

mod corpus;
mod database;
mod findings;
mod findings_docs;
mod fixes_paste;
mod judge;
mod judge_fixtures;
mod judge_props;
mod judge_triage;
mod lookalikes;
mod seed_entries;
mod setups;
mod support;
mod tidy;
mod watch;
