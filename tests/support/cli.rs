//! Running the built binary from the crate root, as the README examples do.

use std::process::Command;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// `kubectl-dataflow ARGS...` in the crate root.
pub fn run(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_kubectl-dataflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
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
