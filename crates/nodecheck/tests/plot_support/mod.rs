//! What the plot tests share: a bench report that measured nothing, for each test to add the
//! results it draws.

use bench::{BenchReport, EngineKind, SCHEMA_VERSION};

pub fn empty_report() -> BenchReport {
    BenchReport {
        schema_version: SCHEMA_VERSION,
        path: "/var/lib/ethereum".into(),
        engine: EngineKind::Mock,
        engine_reason: None,
        qd1: None,
        randrw: None,
        sync: None,
        cliff: None,
        span: None,
        warnings: Vec::new(),
    }
}
