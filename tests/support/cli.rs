//! Running the built binary from the crate root, as the README examples do: `bin(ARGS)`, then
//! what the run needs (more arguments, environment, a kubeconfig, stdin), then `output()` for
//! the exit status and the raw bytes or `run()` for the exit code and the text. `run`,
//! `run_with_stdin` and `run_json` are the short forms.

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_kubectl-dataflow");
/// The crate root, where the binary runs: `testdata/...` arguments are relative to it.
pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A run of the binary being set up.
pub struct Bin {
    command: Command,
    stdin: Option<Vec<u8>>,
}

/// `kubectl-dataflow ARGS...` in the crate root, without colour, with nothing on stdin.
pub fn bin<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> Bin {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(ROOT).env("NO_COLOR", "1");
    Bin {
        command,
        stdin: None,
    }
}

impl Bin {
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Bin {
        self.command.arg(arg);
        self
    }

    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Bin {
        self.command.args(args);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Bin {
        self.command.env(key, value);
        self
    }

    /// Without the user's kubeconfig: no `KUBECONFIG`, and a `HOME` without `.kube/config`.
    pub fn without_user_kubeconfig(mut self) -> Bin {
        self.command
            .env_remove("KUBECONFIG")
            .env("HOME", "/nonexistent");
        self
    }

    /// `--kubeconfig PATH` after the arguments so far, and nothing of the user's kubeconfig.
    pub fn kubeconfig(self, path: &Path) -> Bin {
        self.arg("--kubeconfig").arg(path).without_user_kubeconfig()
    }

    /// `input` on stdin, which is closed after it.
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Bin {
        self.stdin = Some(input.into());
        self
    }

    /// The command, for a test that starts and waits for the process itself (closed pipes,
    /// kills, resource usage).
    pub fn command(self) -> Command {
        assert!(self.stdin.is_none(), "stdin is fed by output() and run()");
        self.command
    }

    /// Run to the end: the exit status and everything printed, as bytes.
    pub fn output(mut self) -> Output {
        let Some(input) = self.stdin else {
            return self.command.output().expect("the binary runs");
        };
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut stdin = child.stdin.take().expect("stdin is piped");
        // Fed from a thread, so a binary that prints before it has read everything cannot
        // block on a full stdout pipe while this side blocks on a full stdin pipe.
        let feeder = std::thread::spawn(move || stdin.write_all(&input));
        let output = child.wait_with_output().expect("the binary ends");
        feeder.join().unwrap().expect("stdin takes the input");
        output
    }

    /// Run to the end: the exit code (-1 for a signal) and the text printed.
    pub fn run(self) -> Run {
        let output = self.output();
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: text(&output.stdout),
            stderr: text(&output.stderr),
        }
    }
}

/// Printed bytes as text (invalid UTF-8 replaced).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// `kubectl-dataflow ARGS...` in the crate root, with nothing on stdin.
pub fn run(args: &[&str]) -> Run {
    bin(args).run()
}

/// `kubectl-dataflow ARGS...` in the crate root, fed `stdin` (closed after it).
pub fn run_with_stdin(args: &[&str], stdin: Option<&str>) -> Run {
    match stdin {
        Some(input) => bin(args).stdin(input).run(),
        None => run(args),
    }
}

/// `run` with `-o json`, which must print nothing on stderr.
pub fn run_json(args: &[&str]) -> (i32, serde_json::Value) {
    let run = run(&[args, &["-o", "json"]].concat());
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    (
        run.code,
        serde_json::from_str(&run.stdout).expect("JSON output"),
    )
}

/// `kubectl-dataflow ARGS...` in the crate root, with nothing on stdin: the exit status and
/// the raw output.
pub fn output(args: &[&str]) -> Output {
    bin(args).output()
}
