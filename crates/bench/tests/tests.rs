//! The bench crate's integration tests, as one test binary (one link, one run) with a module
//! per subject, like ripgrep's `tests/tests.rs`.

// Nothing allocated per I/O.
mod allocations;
// The simulated drives told apart by the behaviour workloads.
mod behaviour_models;
// Short real runs of the behaviour tests on this machine's disk.
mod behaviour_real;
// The bench's sources name no `/sys` or `/proc` path.
mod machine_reads;
// Exact statistics and stopping on the mock engine.
mod mock_device;
// The whole run and both real engines on this machine's disk.
mod real_disk;
mod support;

#[global_allocator]
static GLOBAL: allocations::CountingAllocator = allocations::CountingAllocator;
