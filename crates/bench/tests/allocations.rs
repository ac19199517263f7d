//! The one loop every engine runs behind allocates nothing per I/O: a run of 100 times more I/O
//! makes exactly as many heap allocations. Measured on the mock engine, which runs the loop on
//! the calling thread, so that a per-thread count sees all of it and nothing of the other tests
//! running in parallel; the real engines run the same loop (`cargo xtask bench vs-fio` prints
//! the count of an io_uring run).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

use bench::engine::mock::{ConstantLatency, MockEngine};
use bench::engine::{Target, Work};
use bench::{CancelToken, Job, ProgressCounter, RandomIoJob, RandomPattern, StopCondition};

use crate::support::GIB;

/// Counts the calling thread's heap allocations.
pub struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down has no counter left; nothing to count then.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: forwards to the system allocator unchanged; the counter has no effect on memory.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        System.realloc(ptr, layout, new_size)
    }
}

/// Allocations made by a run of `ios` random 4 KiB I/O (75 % reads) at queue depth 16.
fn allocations_of_a_run(ios: u64) -> u64 {
    let engine = MockEngine::new(ConstantLatency {
        read: Duration::from_micros(80),
        write: Duration::from_micros(20),
    });
    let target = Target::simulated(GIB);
    let mut stop = StopCondition::new(Duration::from_secs(3600), CancelToken::new());
    stop.max_ios = Some(ios);
    let mut job = RandomIoJob::new(
        RandomPattern::new(7, GIB, 4096, 75),
        stop,
        ProgressCounter::default(),
    );
    let mut jobs: Vec<&mut dyn Job> = vec![&mut job];
    let before = ALLOCATIONS.with(Cell::get);
    bench::engine::run(&engine, Work::new(&target, 16, &mut jobs, &mut || {})).unwrap();
    let allocations = ALLOCATIONS.with(Cell::get) - before;
    assert_eq!(job.stats.ios(), ios);
    allocations
}

#[test]
fn the_io_loop_allocates_nothing_per_io() {
    let small = allocations_of_a_run(1_000);
    let large = allocations_of_a_run(100_000);
    assert!(small > 0, "the counter saw no allocation at all");
    assert_eq!(
        small, large,
        "100 times more I/O made {large} heap allocations instead of {small}"
    );
}
