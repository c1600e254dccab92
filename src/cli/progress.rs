//! What a live read or a long plan shows on stderr while it runs: notes, and a progress line when
//! stderr is a terminal and the work is slow.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use df_live::{Progress, Resource};
use df_report::stderr_line;

/// Show progress only once reading has taken this long, so fast reads stay silent.
const PROGRESS_AFTER: Duration = Duration::from_millis(700);

/// Notes to stderr; a progress line too when stderr is a terminal and the read is slow.
pub struct StderrProgress {
    started: Instant,
    terminal: bool,
    shown: bool,
}

impl Default for StderrProgress {
    fn default() -> Self {
        StderrProgress {
            started: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            shown: false,
        }
    }
}

impl Progress for StderrProgress {
    fn note(&mut self, message: &str) {
        self.done();
        stderr_line(&format!("note: {message}"));
    }

    fn read(&mut self, resource: &Resource, total: usize) {
        if self.terminal && self.started.elapsed() >= PROGRESS_AFTER {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2Kreading {}: {total}", resource.display());
            let _ = err.flush();
            self.shown = true;
        }
    }

    fn done(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

/// A plan this slow gets a line saying it is still running.
const WORKING_AFTER: Duration = Duration::from_secs(2);

/// `planning... 5s` on stderr while a long plan runs, for a person at a terminal: shown once
/// the plan has taken [`WORKING_AFTER`], updated each second, erased when it ends (drop). A
/// plan gives no count of its own work to report, so the line says only that it runs and for
/// how long. Never written when stderr is not a terminal (pipes, files, CI logs).
pub struct Working {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Working {
    pub fn start(what: &'static str) -> Working {
        if !std::io::stderr().is_terminal() {
            return Working {
                stop: None,
                thread: None,
            };
        }
        Working::on(std::io::stderr, what, WORKING_AFTER, Duration::from_secs(1))
    }

    /// The line on the writer `open` gives, from `after` on, every `every`.
    fn on<W: Write>(
        open: impl Fn() -> W + Send + 'static,
        what: &'static str,
        after: Duration,
        every: Duration,
    ) -> Working {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let mut wait = after;
            let mut shown = false;
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(wait) {
                let mut out = open();
                let _ = write!(out, "\r\x1b[2K{what}... {}s", started.elapsed().as_secs());
                let _ = out.flush();
                shown = true;
                wait = every;
            }
            if shown {
                let mut out = open();
                let _ = write!(out, "\r\x1b[2K");
                let _ = out.flush();
            }
        });
        Working {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Working {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Quick work shows nothing; slow work shows the line, then erases it.
    #[test]
    fn the_working_line_shows_only_for_slow_work_and_is_erased() {
        let quick = Shared::default();
        let sink = quick.clone();
        drop(Working::on(
            move || sink.clone(),
            "planning",
            Duration::from_secs(60),
            Duration::from_secs(1),
        ));
        assert_eq!(quick.0.lock().unwrap().as_slice(), b"");

        let slow = Shared::default();
        let sink = slow.clone();
        let working = Working::on(
            move || sink.clone(),
            "planning",
            Duration::ZERO,
            Duration::from_secs(60),
        );
        while slow.0.lock().unwrap().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(working);
        assert_eq!(
            String::from_utf8_lossy(&slow.0.lock().unwrap()),
            "\r\x1b[2Kplanning... 0s\r\x1b[2K"
        );
    }
}
