//! The house's layout, checked: data flows one way through the crates (each depends only on
//! the layers below it), no crate imports in a circle between its modules, only the binary
//! knows clap and only the live crate brings tokio and the network, and the library knows no
//! command line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Each crate and the workspace crates it may depend on: the layers below it. `live` is the
/// network edge beside the engine; only `apply` (and the binary) reach it.
const LAYERS: &[(&str, &[&str])] = &[
    ("model", &[]),
    ("parallel", &[]),
    ("manifest", &["model", "parallel"]),
    ("state", &["model", "parallel", "manifest"]),
    ("live", &["model", "manifest", "state"]),
    ("engine", &["model", "parallel", "manifest", "state"]),
    ("systems", &["model", "manifest", "state", "engine"]),
    ("plan", &["model", "manifest", "state", "engine", "systems"]),
    (
        "lint",
        &["model", "manifest", "state", "engine", "systems", "plan"],
    ),
    (
        "report",
        &[
            "model", "manifest", "state", "engine", "systems", "plan", "lint",
        ],
    ),
    ("apply", &["model", "manifest", "state", "live", "plan"]),
    ("synth", &["model"]),
];

/// The `[dependencies]` (or another table) of a Cargo.toml, by name.
fn dependencies(manifest: &Path, table: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut inside = false;
    let mut names = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == format!("[{table}]");
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            names.insert(line.split([' ', '=']).next().unwrap().to_string());
        }
    }
    names
}

fn crates() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(ROOT).join("crates"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_crate_depends_only_on_the_layers_below_it() {
    let layers: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut wrong = Vec::new();
    for name in crates() {
        let allowed = layers
            .get(name.as_str())
            .unwrap_or_else(|| panic!("crate {name} has no place in LAYERS"));
        let manifest = Path::new(ROOT)
            .join("crates")
            .join(&name)
            .join("Cargo.toml");
        for dep in dependencies(&manifest, "dependencies") {
            if let Some(layer) = dep.strip_prefix("df-")
                && !allowed.contains(&layer)
            {
                wrong.push(format!("{name} -> {layer}"));
            }
            let network = ["tokio", "kube", "http", "http-body-util"];
            if network.contains(&dep.as_str()) && name != "live" {
                wrong.push(format!(
                    "{name} -> {dep} (only df-live talks to the network)"
                ));
            }
            if dep.starts_with("clap") {
                wrong.push(format!("{name} -> {dep} (only the binary parses flags)"));
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new());
}

/// A module of a crate, as the path under `src/` names it (`plugins::node_name`); the crate
/// root is `""`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("lib" | "mod")) {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments and without its tests (what follows `#[cfg(test)]`).
fn code_of(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap();
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The longest existing module a path of words names, from `base`.
fn resolve(modules: &BTreeSet<String>, base: &[String], words: &[&str]) -> String {
    let mut at: Vec<String> = base.to_vec();
    for word in words {
        at.push(word.to_string());
        if !modules.contains(&at.join("::")) {
            at.pop();
            break;
        }
    }
    at.join("::")
}

/// Names the crate root re-exports (`pub use module::{A, b}`), and the module each comes from.
fn reexports(root: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for statement in root.split("pub use ").skip(1) {
        let statement = statement.split(';').next().unwrap();
        let statement = statement.trim_start_matches("self::");
        let Some((module, items)) = statement.split_once("::") else {
            continue;
        };
        for item in items.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !item.is_empty() {
                map.insert(item.to_string(), module.to_string());
            }
        }
    }
    map
}

/// Every module's imports of the crate's other modules (`crate::...` and `super::...` paths,
/// the root's re-exports followed to the module that defines them).
fn module_imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    // Test-only modules (`tests.rs`, `*_tests.rs`, fixtures) may use anything.
    files.retain(|f| {
        let name = f.file_name().unwrap().to_string_lossy();
        !name.ends_with("tests.rs") && name != "fixtures.rs"
    });
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    let root = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let reexported = reexports(&root);
    let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        let here: Vec<String> = module
            .split("::")
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect();
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut targets = BTreeSet::new();
        for (i, _) in code.match_indices("crate::") {
            if code[..i].ends_with('$') || code[..i].ends_with(|c: char| c.is_alphanumeric()) {
                continue;
            }
            let words: Vec<&str> = code[i + 7..]
                .split("::")
                .map(|w| {
                    w.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap()
                })
                .take_while(|w| !w.is_empty())
                .collect();
            let target = match words.first().and_then(|w| reexported.get(*w)) {
                Some(module) if !modules.contains(words[0]) => module.clone(),
                _ => resolve(&modules, &[], &words),
            };
            targets.insert(target);
        }
        for (i, _) in code.match_indices("super::") {
            if code[..i].ends_with("super::") || code[..i].ends_with(|c: char| c.is_alphanumeric())
            {
                continue;
            }
            let mut rest = &code[i..];
            let mut ups = 0;
            while let Some(after) = rest.strip_prefix("super::") {
                ups += 1;
                rest = after;
            }
            // A `mod.rs` or `lib.rs` is its directory's module: `super` is one level up.
            let base = &here[..here.len().saturating_sub(ups)];
            let words: Vec<&str> = rest
                .split("::")
                .map(|w| {
                    w.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap()
                })
                .take_while(|w| !w.is_empty())
                .collect();
            targets.insert(resolve(&modules, base, &words));
        }
        // Only another module's first two levels matter: a parent and its children are one
        // unit of the layout.
        let unit = |m: &str| m.split("::").take(2).collect::<Vec<_>>().join("::");
        let me = unit(&module);
        imports.entry(me.clone()).or_default().extend(
            targets
                .iter()
                .map(|t| unit(t))
                .filter(|t| *t != me && !t.is_empty()),
        );
    }
    imports
}

/// The modules on a circle of imports, if any.
fn circle(imports: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        imports: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|p| p == at) {
            let mut found = path[start..].to_vec();
            found.push(at.to_string());
            return Some(found);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for next in imports.get(at).into_iter().flatten() {
            if let Some(found) = visit(next, imports, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = BTreeSet::new();
    imports
        .keys()
        .find_map(|m| visit(m, imports, &mut Vec::new(), &mut done))
}

/// Modules below the crate root import one another in one direction only (the root is the
/// crate's facade: it declares the modules and re-exports what other crates use).
#[test]
fn no_crate_imports_in_a_circle() {
    let mut found = Vec::new();
    for name in crates() {
        let imports = module_imports(&Path::new(ROOT).join("crates").join(&name).join("src"));
        if let Some(modules) = circle(&imports) {
            found.push(format!("{name}: {}", modules.join(" -> ")));
        }
    }
    assert_eq!(found, Vec::<String>::new());
}

/// The checker finds the circles the layout once had.
#[test]
fn the_circle_finder_finds_circles() {
    let imports: BTreeMap<String, BTreeSet<String>> = [
        ("drift", vec!["explain"]),
        ("explain", vec!["orchestrate"]),
        ("orchestrate", vec!["explain"]),
        ("graph", vec![]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        circle(&imports),
        Some(vec![
            "explain".into(),
            "orchestrate".into(),
            "explain".into()
        ])
    );
    let line: BTreeMap<String, BTreeSet<String>> =
        [("a".to_string(), BTreeSet::from(["b".to_string()]))].into();
    assert_eq!(circle(&line), None);
}

/// Library files whose text is about the command line by design.
const ABOUT_THE_COMMAND_LINE: [&str; 2] = ["crates/lint/src/rules.rs", "crates/report"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
        // Test-only modules (`tests.rs`, `*_tests.rs`) may spell flags, as tests in a file may.
        if ABOUT_THE_COMMAND_LINE.iter().any(|p| name.starts_with(p)) || name.ends_with("tests.rs")
        {
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

/// The crate's one-line description from its Cargo.toml.
fn description(name: &str) -> String {
    let manifest = Path::new(ROOT).join("crates").join(name).join("Cargo.toml");
    let text = std::fs::read_to_string(manifest).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("description = \""))
        .unwrap_or_else(|| panic!("crate {name} has no description"));
    line.trim_end_matches('"')
        .trim_start_matches("kubectl-dataflow: ")
        .to_string()
}

/// The README's table of the layers, from the crates themselves: name, what it holds, and
/// the workspace crates it may use.
fn architecture_table() -> String {
    let mut out = String::from("| crate | what it holds | may use |\n|---|---|---|\n");
    for (name, below) in LAYERS {
        let below = if below.is_empty() {
            "(nothing of the workspace)".to_string()
        } else {
            below.join(", ")
        };
        out.push_str(&format!(
            "| `crates/{name}` | {} | {below} |\n",
            description(name)
        ));
    }
    out.push_str(
        "| `src/` (the binary) | clap definitions and wiring only | every crate but synth |\n",
    );
    out
}

/// The architecture page's table is generated from the layout (`UPDATE_README=1 cargo test
/// --test architecture` rewrites it after a change).
#[test]
fn the_readme_shows_the_real_layout() {
    const BEGIN: &str = "<!-- architecture: generated by tests/architecture.rs -->\n";
    const END: &str = "<!-- end of architecture -->\n";
    let path = Path::new(ROOT).join("docs/src/architecture.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = readme
        .split_once(BEGIN)
        .expect("the README marks its table");
    let (table, after) = rest.split_once(END).expect("the README ends its table");
    let expected = architecture_table();
    if std::env::var_os("UPDATE_README").is_some_and(|v| v == "1") {
        std::fs::write(&path, format!("{before}{BEGIN}{expected}{END}{after}")).unwrap();
    } else {
        assert_eq!(
            table, expected,
            "refresh with UPDATE_README=1 cargo test --test architecture"
        );
    }
    for name in crates() {
        assert!(LAYERS.iter().any(|(layer, _)| *layer == name), "{name}");
    }
}

/// The book (`docs/`, mdBook's layout) lists every page once, and every page it lists exists;
/// every relative link of the README and the book points at a file that exists.
#[test]
fn the_book_lists_every_page_and_every_link_resolves() {
    let src = Path::new(ROOT).join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = summary
        .split("](")
        .skip(1)
        .map(|rest| rest.split(')').next().unwrap().to_string())
        .collect();
    let pages: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md") && name != "SUMMARY.md")
        .collect();
    assert_eq!(listed, pages);
    let mut broken = Vec::new();
    let documents = pages
        .iter()
        .map(|p| src.join(p))
        .chain([Path::new(ROOT).join("README.md")]);
    for document in documents {
        let text = std::fs::read_to_string(&document).unwrap();
        for link in text.split("](").skip(1) {
            let target = link.split([')', '#']).next().unwrap();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            if !document.parent().unwrap().join(target).exists() {
                broken.push(format!("{}: {target}", document.display()));
            }
        }
    }
    assert_eq!(broken, Vec::<String>::new());
}
