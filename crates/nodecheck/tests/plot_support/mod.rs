//! What the plot tests share: a bench report that measured nothing, for each test to add the
//! results it draws, and one with a span test of a DRAM-less drive.

use bench::behaviour::measure;
use bench::behaviour::models::{DriveModel, MockDrive};
use bench::behaviour::span::SpanPlan;
use bench::{BenchReport, EngineKind};

pub fn empty_report() -> BenchReport {
    BenchReport::new("/var/lib/ethereum", EngineKind::Mock, None)
}

/// The span test on a simulated DRAM-less TLC drive of 128 GiB.
pub fn span_report() -> BenchReport {
    let plan = SpanPlan {
        reads_per_span: 500,
        ..SpanPlan::default()
    };
    let span = measure(
        &mut MockDrive::new(DriveModel::dramless_tlc(), 128 << 30, 5),
        &plan,
        &|| false,
    )
    .expect("span");
    BenchReport {
        span: Some(span),
        ..empty_report()
    }
}
