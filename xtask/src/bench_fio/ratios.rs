//! Per-metric ratios nodecheck/fio over the alternating runs, and their table.

pub(super) struct Ratios {
    name: &'static str,
    /// Whether higher is better (IOPS) or lower (CPU, latency), for the target column.
    target: &'static str,
    values: Vec<(f64, f64, f64)>,
    /// Rounds left out, with why.
    left_out: Vec<String>,
}

impl Ratios {
    pub(super) fn new(name: &'static str, target: &'static str) -> Self {
        Ratios {
            name,
            target,
            values: Vec::new(),
            left_out: Vec::new(),
        }
    }
    pub(super) fn push(&mut self, nodecheck: f64, fio: f64) {
        self.values.push((nodecheck / fio, nodecheck, fio));
    }
    /// Records a round that cannot be compared, so the table says so instead of hiding it.
    pub(super) fn leave_out(&mut self, why: String) {
        self.left_out.push(why);
    }
    pub(super) fn print(&self) {
        for why in &self.left_out {
            println!("{:<38} left out a round: {why}", self.name);
        }
        let mut ratios: Vec<f64> = self.values.iter().map(|v| v.0).collect();
        ratios.sort_by(f64::total_cmp);
        if ratios.is_empty() {
            return;
        }
        let median = if ratios.len() % 2 == 1 {
            ratios[ratios.len() / 2]
        } else {
            (ratios[ratios.len() / 2 - 1] + ratios[ratios.len() / 2]) / 2.0
        };
        let pairs = self
            .values
            .iter()
            .map(|(_, n, f)| format!("{n:.1}/{f:.1}"))
            .collect::<Vec<_>>()
            .join(" ");
        println!(
            "{:<38} {:>6.3} {:>6.3} {:>6.3}  {:<8} {}",
            self.name,
            ratios[0],
            median,
            ratios[ratios.len() - 1],
            self.target,
            pairs
        );
    }
}
