//! What the plot tests share: a bench report that measured nothing, for each test to add the
//! results it draws, and one with a span test of a DRAM-less drive.

use bench::behaviour::models::{DriveModel, MockDrive};
use bench::behaviour::span::SpanPlan;
use bench::behaviour::{measure, BehaviourTest};
use bench::{BenchReport, EngineKind};

pub const GIB: u64 = 1 << 30;

pub fn empty_report() -> BenchReport {
    BenchReport::new("/var/lib/ethereum", EngineKind::Mock, None)
}

/// What `test` measures on a simulated `model` drive of `size` bytes (seed 5), never cancelled.
pub fn measured_on<T: BehaviourTest>(model: DriveModel, size: u64, test: &T) -> T::Measured {
    measure(&mut MockDrive::new(model, size, 5), test, &|| false).expect("the model measures")
}

/// The span test on a simulated DRAM-less TLC drive of 128 GiB.
pub fn span_report() -> BenchReport {
    let plan = SpanPlan {
        reads_per_span: 500,
        ..SpanPlan::default()
    };
    let span = measured_on(DriveModel::dramless_tlc(), 128 * GIB, &plan);
    BenchReport {
        span: Some(span),
        ..empty_report()
    }
}
