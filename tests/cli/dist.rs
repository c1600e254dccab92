//! What ships besides the binary: completion scripts (checked in, and working through bash and
//! through the real kubectl), the krew manifest, `version`, and the examples of every help text.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::cli::{BIN, ROOT, output, text};

/// The checked-in scripts are what `completion SHELL` prints; `UPDATE_COMPLETIONS=1 cargo test`
/// rewrites them after a change to the flags.
#[test]
fn checked_in_completion_scripts_are_current() {
    let update = std::env::var_os("UPDATE_COMPLETIONS").is_some_and(|v| v == "1");
    let cases = [
        ("bash", "kubectl-dataflow.bash"),
        ("zsh", "_kubectl-dataflow"),
        ("fish", "kubectl-dataflow.fish"),
        ("powershell", "kubectl-dataflow.ps1"),
    ];
    let mut stale = Vec::new();
    for (shell, file) in cases {
        let out = output(&["completion", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let path = Path::new(ROOT).join("completions").join(file);
        if update {
            fs::write(&path, &out.stdout).unwrap();
        } else if fs::read(&path).ok().as_deref() != Some(&out.stdout[..]) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "out of date: {}; refresh them with `UPDATE_COMPLETIONS=1 cargo test --test cli dist::`",
        stale.join(", ")
    );
}

/// The bash script completes the executable by its own name, subcommand flags included.
#[test]
fn bash_script_completes_kubectl_dataflow() {
    if Command::new("bash").arg("-c").arg("true").output().is_err() {
        eprintln!("note: bash is not installed; skipping the bash completion test");
        return;
    }
    // (words on the line, the last being completed; expected candidates)
    let cases: &[(&[&str], &str)] = &[
        (&["kubectl-dataflow", "pl"], "plan"),
        (
            &["kubectl-dataflow", "explain-placement", "--st"],
            "--state --state-cache",
        ),
        (
            &["kubectl-dataflow", "plan", "-o", ""],
            "table wide json yaml name markdown html jsonpath= custom-columns=",
        ),
        (&["kubectl-dataflow", "completion", "p"], "powershell"),
        (&["kubectl-dataflow", "patch", "--dry-run", "s"], "server"),
    ];
    // The script as generated, not the checked-in copy, which `UPDATE_COMPLETIONS=1` may be
    // rewriting concurrently (the test above keeps the two equal).
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("kubectl-dataflow.bash");
    fs::write(&script, output(&["completion", "bash"]).stdout).unwrap();
    for (words, expected) in cases {
        let cword = words.len() - 1;
        let program = format!(
            "source {script}\nCOMP_WORDS=({words})\nCOMP_CWORD={cword}\n\
             _kubectl__dataflow kubectl-dataflow \"${{COMP_WORDS[{cword}]}}\" \"${{COMP_WORDS[{prev}]}}\"\n\
             echo \"${{COMPREPLY[*]}}\"",
            script = script.display(),
            words = words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            prev = cword - 1,
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(&program)
            .output()
            .unwrap();
        assert_eq!(
            text(&out.stdout).trim_end(),
            *expected,
            "{words:?}: {}",
            text(&out.stderr)
        );
    }
}

/// Where the real kubectl is, if installed.
fn kubectl() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("kubectl"))
        .find(|p| p.is_file())
}

/// `kubectl __complete dataflow ...` is what kubectl's shell scripts ask when the user presses
/// TAB after `kubectl dataflow`; kubectl finds `kubectl_complete-dataflow` on PATH and relays
/// its answer.
#[test]
fn kubectl_completes_through_the_plugin_script() {
    let Some(kubectl) = kubectl() else {
        eprintln!("note: kubectl is not on PATH; skipping the kubectl completion test");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    fs::create_dir(&bin).unwrap();
    // Copies, in a directory of their own: target/debug also holds `kubectl-dataflow.d`.
    fs::copy(BIN, bin.join("kubectl-dataflow")).unwrap();
    fs::copy(
        Path::new(ROOT).join("completions/kubectl_complete-dataflow"),
        bin.join("kubectl_complete-dataflow"),
    )
    .unwrap();
    let kubeconfig = dir.path().join("config");
    fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\ncontexts:\n\
         - {name: prod, context: {cluster: c, namespace: shop}}\n\
         - {name: dev, context: {cluster: c, namespace: data}}\n",
    )
    .unwrap();
    // The script needs only `sh` besides the plugin; kubectl is called by its full path.
    let path = std::env::join_paths([
        bin.clone(),
        PathBuf::from("/usr/bin"),
        PathBuf::from("/bin"),
    ])
    .unwrap();
    // (words after `kubectl __complete dataflow`, expected candidates without descriptions)
    let cases: &[(&[&str], &str)] = &[
        (
            &[""],
            "lint\nplan\nexplain-placement\nsnapshot\npatch\nlaunch\ncompletion\nversion\nhelp\n:4",
        ),
        (&["ex"], "explain-placement\n:4"),
        (
            &["plan", "-o", ""],
            "table\nwide\njson\nyaml\nname\nmarkdown\nhtml\njsonpath=\ncustom-columns=\n:4",
        ),
        (&["snapshot", "--output="], "yaml\njson\n:4"),
        (&["--context", ""], "dev\nprod\n:4"),
        (&["plan", "-n", ""], "data\nshop\n:4"),
        (
            &[
                "explain-placement",
                "-f",
                "testdata/flows/three-step.yaml",
                "",
            ],
            "DataLoad/load-imagenet\nDataMigrate/export-imagenet\nDataProcess/preprocess-imagenet\n:4",
        ),
        (
            &["patch", "-f", "testdata/pods/deployment.yaml", "De"],
            "Deployment/checkout\n:4",
        ),
        (&["plan", "-f", ""], "json\nyaml\nyml\n:8"),
        (&["lint", "--rec"], "--recursive\n:4"),
    ];
    for (words, expected) in cases {
        // `__completeNoDesc` is kubectl's variant without descriptions, for shells that show none.
        let out = Command::new(&kubectl)
            .args(["__completeNoDesc", "dataflow"])
            .args(*words)
            .current_dir(ROOT)
            .env("PATH", &path)
            .env("KUBECONFIG", &kubeconfig)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{words:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stdout).trim_end(),
            *expected,
            "{words:?}: {}",
            text(&out.stderr)
        );
    }

    // Descriptions reach kubectl's shells too.
    let out = Command::new(&kubectl)
        .args(["__complete", "dataflow", "plan", "-o", "w"])
        .env("PATH", &path)
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "wide\tTables with extra columns\n:4\n");
}

/// The version cargo builds the binary with (the workspace's).
fn cargo_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

#[test]
fn krew_manifest_matches_the_crate_and_covers_every_platform() {
    let text = fs::read_to_string(Path::new(ROOT).join("krew-manifest.yaml")).unwrap();
    let manifest: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let version = format!("v{}", cargo_version());
    assert_eq!(
        manifest["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(manifest["kind"], "Plugin");
    assert_eq!(manifest["metadata"]["name"], "dataflow");
    let spec = &manifest["spec"];
    assert_eq!(spec["version"], version.as_str());
    for field in ["homepage", "shortDescription", "description", "caveats"] {
        assert!(
            spec[field].as_str().is_some_and(|s| !s.trim().is_empty()),
            "spec.{field}"
        );
    }
    assert!(
        spec["caveats"]
            .as_str()
            .unwrap()
            .contains(&format!("/{version}/"))
    );

    let mut platforms = Vec::new();
    for platform in spec["platforms"].as_array().unwrap() {
        let labels = &platform["selector"]["matchLabels"];
        let (os, arch) = (
            labels["os"].as_str().unwrap(),
            labels["arch"].as_str().unwrap(),
        );
        platforms.push(format!("{os}/{arch}"));
        let uri = platform["uri"].as_str().unwrap();
        assert!(
            uri.starts_with("https://")
                && uri.contains(&format!("/{version}/"))
                && uri.ends_with(".tar.gz"),
            "{os}/{arch}: {uri}"
        );
        let sha = platform["sha256"].as_str().unwrap();
        assert!(
            sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
            "{os}/{arch}: sha256 {sha}"
        );
        let bin = platform["bin"].as_str().unwrap();
        let expected_bin = if os == "windows" {
            "kubectl-dataflow.exe"
        } else {
            "kubectl-dataflow"
        };
        assert_eq!(bin, expected_bin, "{os}/{arch}");
        let files: Vec<&str> = platform["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["from"].as_str().unwrap())
            .collect();
        assert!(files.contains(&bin), "{os}/{arch}: {files:?}");
        for file in files.iter().filter(|f| f.starts_with("completions/")) {
            assert!(Path::new(ROOT).join(file).is_file(), "{os}/{arch}: {file}");
        }
    }
    platforms.sort();
    assert_eq!(
        platforms,
        [
            "darwin/amd64",
            "darwin/arm64",
            "linux/amd64",
            "linux/arm64",
            "windows/amd64",
            "windows/arm64"
        ]
    );
}

#[test]
fn version_names_the_build_and_the_kubernetes_semantics() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(ROOT)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| text(&out.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    let version = cargo_version();
    let cases = [
        (
            &["version"][..],
            format!(
                "kubectl-dataflow {version} (commit {commit}), Kubernetes v1.34 scheduler semantics\n"
            ),
        ),
        (
            &["version", "--kubernetes-version", "1.36"][..],
            format!(
                "kubectl-dataflow {version} (commit {commit}), Kubernetes v1.36 scheduler semantics\n"
            ),
        ),
    ];
    for (args, expected) in cases {
        let out = output(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(text(&out.stdout), expected, "{args:?}");
    }
    // The same facts as JSON and YAML (YAML quotes a hash such as 484e733, which reads as a
    // number, so values are compared, not text), with the releases and what differs between
    // them (engine::versions::DIFFERENCES, one entry per switch).
    let out = output(&["version", "-o", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let out = output(&["version", "-o", "yaml"]);
    assert_eq!(out.status.code(), Some(0));
    let yaml: serde_json::Value = serde_saphyr::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(yaml, json);
    let since: Vec<&str> = json["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["since"].as_str().unwrap())
        .collect();
    assert_eq!(
        since,
        [
            "1.34", "1.34", "1.34", "1.35", "1.35", "1.36", "1.36", "1.36", "1.36", "1.36", "1.36",
            "1.37", "1.37"
        ]
    );
    assert_eq!(
        (
            &json["version"],
            &json["gitCommit"],
            &json["kubernetesSemantics"],
            &json["supported"]
        ),
        (
            &serde_json::json!(version),
            &serde_json::json!(commit),
            &serde_json::json!("v1.34"),
            &serde_json::json!("1.32 to 1.37")
        )
    );
}
