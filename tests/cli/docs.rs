//! Every example of the README and the book runs, and prints what its page shows.
//!
//! The pages' `console` blocks are trycmd cases: `$ kubectl dataflow ARGS` is run in the crate
//! root, stdout and stderr together are compared with the lines below it (`...` stands for lines
//! left out, `[..]` for part of a line) and `? N` states an exit code other than 0.
//! `TRYCMD=overwrite cargo test --test cli docs::` rewrites the pages from what the binary prints.
//!
//! `kubectl dataflow ...` runs the binary as kubectl runs a plugin: `kubectl` here is a script
//! that drops the `dataflow` word and executes the binary under test, and refuses anything else,
//! so a page cannot quietly depend on a real kubectl. `cargo run -q -- ARGS` (the README's quick
//! start) likewise runs the built binary with ARGS.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::cli::{BIN, ROOT};

/// An executable script at `dir/name` that runs the binary under test when its first
/// arguments are `prefix`, and fails naming the call otherwise.
fn shim(dir: &Path, name: &str, prefix: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let (mut test, mut shift) = (String::new(), 0);
    for (i, word) in prefix.iter().enumerate() {
        test.push_str(&format!("[ \"${}\" = \"{word}\" ] && ", i + 1));
        shift += 1;
    }
    let script = format!(
        "#!/bin/sh\n{test}{{ shift {shift}; exec \"{BIN}\" \"$@\"; }}\n\
         echo \"{name}: only '{name} {}' runs in the docs tests, not: $*\" >&2\nexit 127\n",
        prefix.join(" ")
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn every_example_in_the_readme_and_the_book_prints_what_it_shows() {
    let shims = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("docs-shims");
    std::fs::create_dir_all(&shims).unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("kubectl", shim(&shims, "kubectl", &["dataflow"]))
        .register_bin("cargo", shim(&shims, "cargo", &["run", "-q", "--"]))
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent")
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .case(Path::new(ROOT).join("README.md"));
    for page in std::fs::read_dir(Path::new(ROOT).join("docs/src")).unwrap() {
        let page = page.unwrap().path();
        if page.extension().is_some_and(|e| e == "md") {
            cases.case(page);
        }
    }
    cases.run();
}
