//! What a live read shows on stderr while it runs: its notes, and a progress line when
//! stderr is a terminal and the read is slow.

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
