//! The library knows no command line (issue 17 item 7): its messages name no flag, so the same
//! library could serve another front end, and the binary (src/cli/hints.rs) adds the flag that
//! answers an error. Rule documentation (`lint --explain`) and the rendered reports, which
//! are the command line's own words, may name flags; a whole command in backquotes is an
//! example to paste, not a flag reference.

use std::path::Path;

/// Library files whose text is about the command line by design.
const ABOUT_THE_COMMAND_LINE: [&str; 2] = ["crates/lint/src/rules.rs", "crates/report"];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of one line (escaped quotes kept inside).
fn literals(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = line.chars();
    while chars.by_ref().any(|c| c == '"') {
        let mut literal = String::new();
        let mut escaped = false;
        for c in chars.by_ref() {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => break,
                _ => {
                    escaped = false;
                    literal.push(c);
                }
            }
        }
        found.push(literal);
    }
    found
}

/// `--word` or `-x` as a word of `text`, outside backquotes.
fn names_a_flag(text: &str) -> bool {
    let outside: String = text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    outside
        .split(|c: char| c.is_whitespace() || c == '(')
        .any(|word| {
            let name = word
                .strip_prefix("--")
                .or_else(|| word.strip_prefix('-'))
                .unwrap_or("");
            name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && (word.starts_with("--")
                    || name.len() == 1
                    || !name[1..].starts_with(char::is_alphabetic))
        })
}

#[test]
fn library_messages_name_no_flag() {
    assert!(names_a_flag("pass --yes"));
    assert!(names_a_flag("not in the -f inputs"));
    assert!(names_a_flag("namespace (-n)"));
    assert!(!names_a_flag(
        "run `kubectl dataflow patch -f pod.yaml --write`"
    ));
    assert!(!names_a_flag("k8s-app node-1 0/3 x-k8s.io"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        rust_files(&entry.unwrap().path().join("src"), &mut files);
    }
    assert!(files.len() > 100, "{} library files", files.len());
    let mut found = Vec::new();
    for file in files {
        let name = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if ABOUT_THE_COMMAND_LINE.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Tests may spell flags; they follow the code.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (i, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for literal in literals(line).into_iter().filter(|l| names_a_flag(l)) {
                found.push(format!("{name}:{}: {literal}", i + 1));
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}
