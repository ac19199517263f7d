//! `nodecheck watch`'s arguments.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::output::FormatArgs;
use crate::config::WatchConfig;
use crate::render::watch::WatchReport;

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The node's data directory (default: auto-detect a client datadir, else `.`).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// How long to sample: `60s`, `5m`, `1h`, or plain seconds.
    #[arg(long = "for", value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Time between two readings (one progress line each).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Keep the raw readings (the diskstats, PSI and io lines as read, with timestamps) in
    /// FILE, which `nodecheck triage FILE` judges again.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Time a few QD1 4 KiB O_DIRECT reads per second of blocks holding the chain's data
    /// (read-only; needs root) [default: on as root].
    #[arg(long, overrides_with = "no_probe_latency")]
    pub probe_latency: bool,
    /// Do not read the drive at all: only the kernel's counters.
    #[arg(long)]
    pub no_probe_latency: bool,
    /// Write the document to FILE atomically (a temporary beside it, then renamed), for
    /// node_exporter's textfile collector: `--format prometheus --output
    /// /var/lib/prometheus/node-exporter/nodecheck_watch.prom`.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Keep serial numbers, hostnames and /home paths in markdown and discord output.
    #[arg(long)]
    pub no_redact: bool,
}

/// `10s`, `5m`, `1h`, `250ms` or plain seconds; between 100 ms and a day.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (try 10s, 5m or 1h)"))?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" | "secs" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{text}` (use ms, s, m or h)"
            ))
        }
    };
    if !(0.1..=86_400.0).contains(&seconds) {
        return Err(format!("`{text}` is out of range (100ms to 24h)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

impl WatchArgs {
    pub fn into_config(self) -> Result<WatchConfig, String> {
        if self.interval > self.duration {
            return Err(format!(
                "--interval ({:?}) is longer than --for ({:?}): nothing would be sampled",
                self.interval, self.duration
            ));
        }
        Ok(WatchConfig {
            format: self.format.resolve::<WatchReport>("watch")?,
            path: self.path,
            duration: self.duration,
            interval: self.interval,
            save: self.save,
            probe_latency: if self.no_probe_latency {
                Some(false)
            } else if self.probe_latency {
                Some(true)
            } else {
                None
            },
            output: self.output,
            redact: !self.no_redact,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_people_write_them() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("2d").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("").is_err());
    }
}
