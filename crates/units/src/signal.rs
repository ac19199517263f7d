//! Termination signals by name, for the messages of every crate that stops on one (the bench's
//! "interrupted by SIGINT (Ctrl-C)", the binary's "measurement interrupted by SIGTERM").

/// The conventional name of a termination signal; `0` is a cancellation without a signal.
pub fn name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT (Ctrl-C)".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        libc::SIGHUP => "SIGHUP".to_string(),
        libc::SIGQUIT => "SIGQUIT".to_string(),
        libc::SIGUSR1 => "SIGUSR1".to_string(),
        libc::SIGUSR2 => "SIGUSR2".to_string(),
        0 => "a cancellation request".to_string(),
        other => format!("signal {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named_as_an_operator_knows_them() {
        assert_eq!(name(libc::SIGINT), "SIGINT (Ctrl-C)");
        assert_eq!(name(libc::SIGTERM), "SIGTERM");
        assert_eq!(name(0), "a cancellation request");
        assert_eq!(name(99), "signal 99");
    }
}
