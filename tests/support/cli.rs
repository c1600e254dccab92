//! Running the built binary from the crate root, as the README examples do.

use std::process::Command;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// `kubectl-dataflow ARGS...` in the crate root, with nothing on stdin.
pub fn run(args: &[&str]) -> Run {
    run_with_stdin(args, None)
}

/// `kubectl-dataflow ARGS...` in the crate root, fed `stdin` (closed after it).
pub fn run_with_stdin(args: &[&str], stdin: Option<&str>) -> Run {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-dataflow"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("stdin takes the input");
    drop(input);
    let output = child.wait_with_output().expect("the binary ends");
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
