//! Records the git commit the binary was built from, for `kubectl dataflow version`.
//! Builds from a source tarball (no git, no repository) get "unknown" rather than failing.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let commit = git(&["rev-parse", "--short", "HEAD"]);
    if commit.is_some() {
        // HEAD moves on checkout; the branch ref moves on commit. `--git-path` resolves both
        // for linked worktrees too, where `.git` is a file and refs live in the common dir.
        // Only existing paths are named: a missing one would make cargo rerun this every build.
        let mut watched = vec!["HEAD".to_string()];
        watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
        watched.push("packed-refs".to_string());
        for name in watched {
            if let Some(path) = git(&["rev-parse", "--git-path", &name])
                && Path::new(&path).exists()
            {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    println!(
        "cargo:rustc-env=KUBECTL_DATAFLOW_GIT_COMMIT={}",
        commit.as_deref().unwrap_or("unknown")
    );
}
