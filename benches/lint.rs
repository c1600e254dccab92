//! Lint throughput: 10,000 generated manifests (a mix of Fluid operations, Godel PodGroups
//! with member pods, Volcano Jobs, Deployments and Pods with affinity) in 1,000 files, read,
//! parsed with positions and linted end to end through the library. Target: under 1 s on a
//! 2-core machine in release. Run with `cargo bench --bench lint`.

use std::time::Instant;

use df_lint::LintOptions;

#[path = "common/lint_files.rs"]
mod lint_files;

use lint_files::{FILES, PER_FILE, file_text};

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    for f in 0..FILES {
        let path = dir.path().join(format!("m{f:04}.yaml"));
        std::fs::write(path, file_text(f)).expect("write manifest");
    }
    let inputs = vec![dir.path().display().to_string()];
    let mut best = f64::MAX;
    for round in 0..3 {
        let started = Instant::now();
        let set = df_manifest::load(&inputs, false).expect("inputs exist");
        let report = df_lint::lint(&set, None, &LintOptions::default()).expect("default options");
        let seconds = started.elapsed().as_secs_f64();
        best = best.min(seconds);
        assert_eq!(set.manifests.len(), FILES * PER_FILE);
        println!(
            "round {round}: {} manifests in {} files, {} diagnostics, {:.3} s ({:.0} manifests/s)",
            set.manifests.len(),
            report.files,
            report.diagnostics.len(),
            seconds,
            set.manifests.len() as f64 / seconds
        );
    }
    println!(
        "lint: best of 3: {best:.3} s for {} manifests",
        FILES * PER_FILE
    );
}
