//! Dynamic completion in cobra's `__complete` protocol, which kubectl (1.26+) speaks with a
//! plugin's `kubectl_complete-<plugin>` executable: given the words after `kubectl dataflow`
//! (the last one being completed, possibly empty), print one candidate per line
//! (`value<TAB>description`) and then `:<directive>`.
//!
//! Subcommands, flags and enumerated values come from the clap definition itself, so completion
//! cannot drift from the parser; contexts and namespaces come from the kubeconfig files (never
//! the network: completion runs on every key press); `KIND/NAME` arguments come from the
//! objects of the `-f` files already on the command line.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use clap::builder::ValueHint;
use clap::{Arg, ArgAction, Command};

use df_model::Object;

/// The value name of positional arguments that name an object of the `-f` inputs; completion
/// offers those objects wherever a command declares such an argument.
pub const OBJECT_VALUE_NAME: &str = "KIND/NAME";

/// Flags whose values are manifests or recorded states: the shell offers only these
/// extensions (and directories), as kubectl does for its own `-f`.
const MANIFEST_FLAGS: &[&str] = &["filename", "state"];
const MANIFEST_EXTENSIONS: &[&str] = &["json", "yaml", "yml"];

/// cobra's `ShellCompDirective` bits that we use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Directive {
    /// Let the shell complete file names when there is no candidate.
    Default = 0,
    /// Offer only the candidates, never file names.
    NoFileComp = 4,
    /// The candidates are file extensions to filter file names by.
    FilterFileExt = 8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    pub candidates: Vec<Candidate>,
    pub directive: Directive,
}

/// Where the kubeconfig is looked for when the words carry no `--kubeconfig`: kept apart from
/// the process environment so tests choose it.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// The `KUBECONFIG` variable, a path list.
    pub kubeconfig: Option<OsString>,
    /// The home directory, for `~/.kube/config`.
    pub home: Option<PathBuf>,
}

impl Environment {
    pub fn from_process() -> Self {
        Environment {
            kubeconfig: std::env::var_os("KUBECONFIG"),
            home: std::env::home_dir(),
        }
    }
}

/// Complete the last of `words` (the arguments after the program name) against `command`.
pub fn complete(command: &Command, words: &[String], environment: &Environment) -> Completion {
    let mut command = command.clone();
    // Building propagates the global flags into every subcommand and adds help/version.
    command.build();
    let (current, before) = match words.split_last() {
        Some((last, before)) => (last.as_str(), before),
        None => ("", &[][..]),
    };
    let line = Line::parse(&command, before);
    let scope = line.subcommand.unwrap_or(&command);

    if let Some(arg) = line.pending {
        return complete_value(arg, current, &line, environment);
    }
    if !line.after_double_dash && current.starts_with('-') {
        if let Some((flag, prefix)) = current.split_once('=')
            && let Some(arg) = find_flag(scope, flag)
        {
            return complete_value(arg, prefix, &line, environment);
        }
        return complete_flags(scope, current, &line);
    }
    // Subcommands come before positionals (`help` has subcommands of its own).
    if line.positionals == 0 && scope.has_subcommands() {
        let candidates = scope
            .get_subcommands()
            .filter(|sub| !sub.is_hide_set() && sub.get_name().starts_with(current))
            .map(|sub| Candidate {
                value: sub.get_name().to_string(),
                description: sub.get_about().map(|about| first_line(&about.to_string())),
            })
            .collect();
        return no_files(candidates);
    }
    match scope.get_positionals().nth(line.positionals) {
        Some(arg) => complete_value(arg, current, &line, environment),
        None => no_files(Vec::new()),
    }
}

/// What the words before the one being completed say.
struct Line<'a> {
    subcommand: Option<&'a Command>,
    /// A flag that still waits for its value: the word being completed is that value.
    pending: Option<&'a Arg>,
    /// Flag values given so far, by long name (flags without a long name are not needed).
    values: BTreeMap<&'a str, Vec<String>>,
    /// Flags given so far, left out of flag candidates unless repeatable.
    seen: Vec<&'a Arg>,
    /// Positional arguments of the innermost subcommand given so far.
    positionals: usize,
    after_double_dash: bool,
}

impl<'a> Line<'a> {
    fn parse(root: &'a Command, words: &[String]) -> Line<'a> {
        let mut line = Line {
            subcommand: None,
            pending: None,
            values: BTreeMap::new(),
            seen: Vec::new(),
            positionals: 0,
            after_double_dash: false,
        };
        for word in words {
            let scope = line.subcommand.unwrap_or(root);
            if let Some(arg) = line.pending.take() {
                line.record(arg, word);
            } else if line.after_double_dash || word == "-" || !word.starts_with('-') {
                match scope.find_subcommand(word) {
                    Some(sub) if line.positionals == 0 && !line.after_double_dash => {
                        line.subcommand = Some(sub);
                    }
                    _ => line.positionals += 1,
                }
            } else if word == "--" {
                line.after_double_dash = true;
            } else if let Some(long) = word.strip_prefix("--") {
                let (name, inline) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (long, None),
                };
                if let Some(arg) = scope.get_arguments().find(|a| a.get_long() == Some(name)) {
                    line.flag(arg, inline);
                }
            } else {
                line.shorts(scope, &word[1..]);
            }
        }
        line
    }

    /// `-Rf FILE`, `-fFILE`, `-n=shop`: flags clustered until one that takes a value.
    fn shorts(&mut self, scope: &'a Command, cluster: &str) {
        for (at, letter) in cluster.char_indices() {
            let Some(arg) = scope
                .get_arguments()
                .find(|a| a.get_short() == Some(letter))
            else {
                return;
            };
            if takes_value(arg) {
                let rest = &cluster[at + letter.len_utf8()..];
                let rest = rest.strip_prefix('=').unwrap_or(rest);
                self.flag(arg, (!rest.is_empty()).then_some(rest));
                return;
            }
            self.flag(arg, None);
        }
    }

    fn flag(&mut self, arg: &'a Arg, inline: Option<&str>) {
        self.seen.push(arg);
        match inline {
            Some(value) => self.record(arg, value),
            None if takes_value(arg) => self.pending = Some(arg),
            None => {}
        }
    }

    fn record(&mut self, arg: &'a Arg, value: &str) {
        if let Some(long) = arg.get_long() {
            self.values.entry(long).or_default().push(value.to_string());
        }
    }

    fn value(&self, long: &str) -> Option<&str> {
        self.values.get(long)?.last().map(String::as_str)
    }

    fn given(&self, arg: &Arg) -> bool {
        self.seen.iter().any(|seen| seen.get_id() == arg.get_id())
    }
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

fn find_flag<'c>(scope: &'c Command, flag: &str) -> Option<&'c Arg> {
    let found = match flag.strip_prefix("--") {
        Some(long) => scope.get_arguments().find(|a| a.get_long() == Some(long)),
        None => {
            let mut letters = flag.strip_prefix('-')?.chars();
            let (Some(letter), None) = (letters.next(), letters.next()) else {
                return None;
            };
            scope
                .get_arguments()
                .find(|a| a.get_short() == Some(letter))
        }
    };
    found.filter(|arg| takes_value(arg))
}

/// Like cobra: `--` offers long flags, `-` also the short ones; flags already given are left
/// out unless they can repeat.
fn complete_flags(scope: &Command, current: &str, line: &Line) -> Completion {
    let mut candidates = Vec::new();
    for arg in scope.get_arguments() {
        if arg.is_positional() || arg.is_hide_set() {
            continue;
        }
        let repeatable = matches!(arg.get_action(), ArgAction::Append | ArgAction::Count);
        if !repeatable && line.given(arg) {
            continue;
        }
        let description = arg.get_help().map(|help| first_line(&help.to_string()));
        let names = [
            arg.get_long().map(|long| format!("--{long}")),
            arg.get_short().map(|short| format!("-{short}")),
        ];
        for name in names.into_iter().flatten() {
            if name.starts_with(current) {
                candidates.push(Candidate {
                    value: name,
                    description: description.clone(),
                });
            }
        }
    }
    no_files(candidates)
}

fn complete_value(arg: &Arg, prefix: &str, line: &Line, environment: &Environment) -> Completion {
    let possible = arg.get_possible_values();
    if !possible.is_empty() {
        let candidates = possible
            .iter()
            .filter(|value| !value.is_hide_set())
            .map(|value| Candidate {
                value: value.get_name().to_string(),
                description: value.get_help().map(|help| first_line(&help.to_string())),
            })
            .collect();
        return no_files(filter(candidates, prefix));
    }
    if arg
        .get_value_names()
        .is_some_and(|names| names.iter().any(|name| name == OBJECT_VALUE_NAME))
    {
        return no_files(filter(objects(line), prefix));
    }
    let long = arg.get_long().unwrap_or_default();
    if MANIFEST_FLAGS.contains(&long) {
        let extensions = MANIFEST_EXTENSIONS.iter().map(|ext| Candidate {
            value: ext.to_string(),
            description: None,
        });
        return Completion {
            candidates: extensions.collect(),
            directive: Directive::FilterFileExt,
        };
    }
    match long {
        "context" => no_files(filter(names(contexts(line, environment)), prefix)),
        "namespace" => no_files(filter(names(namespaces(line, environment)), prefix)),
        _ if matches!(
            arg.get_value_hint(),
            ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath
        ) =>
        {
            Completion {
                candidates: Vec::new(),
                directive: Directive::Default,
            }
        }
        _ => no_files(Vec::new()),
    }
}

/// `Kind/name` of every object the tool can place in the `-f` inputs, described by its file.
/// Unreadable inputs just contribute nothing: completion never reports errors.
fn objects(line: &Line) -> Vec<Candidate> {
    let files = line
        .values
        .get("filename")
        .into_iter()
        .flatten()
        .filter(|file| file.as_str() != "-")
        .cloned();
    let recursive = line
        .seen
        .iter()
        .any(|arg| arg.get_long() == Some("recursive"));
    // One load per input, so a path still being typed does not hide the others' objects.
    let sets: Vec<_> = files
        .into_iter()
        .filter_map(|file| df_manifest::load(&[file], recursive).ok())
        .collect();
    let mut found = BTreeMap::new();
    for manifest in sets.iter().flat_map(|set| &set.manifests) {
        if matches!(
            manifest.object,
            Object::Node(_) | Object::Namespace(_) | Object::Unknown { .. }
        ) {
            continue;
        }
        let name = &manifest.object.metadata().name;
        if name.is_empty() {
            continue;
        }
        found
            .entry(format!("{}/{}", manifest.object.kind(), name))
            .or_insert_with(|| manifest.file.to_string());
    }
    found
        .into_iter()
        .map(|(value, file)| Candidate {
            value,
            description: Some(file),
        })
        .collect()
}

/// The kubeconfig files kubectl would read: `--kubeconfig`, else each path of `KUBECONFIG`,
/// else `~/.kube/config`. Files that cannot be read are skipped.
fn kubeconfig_contexts(line: &Line, environment: &Environment) -> Vec<df_live::KubeconfigContext> {
    let paths: Vec<PathBuf> = match (line.value("kubeconfig"), &environment.kubeconfig) {
        (Some(path), _) => vec![PathBuf::from(path)],
        (None, Some(list)) if !list.is_empty() => std::env::split_paths(list)
            .filter(|path| !path.as_os_str().is_empty())
            .collect(),
        _ => environment
            .home
            .iter()
            .map(|home| home.join(".kube").join("config"))
            .collect(),
    };
    df_live::kubeconfig_contexts(&paths)
}

fn contexts(line: &Line, environment: &Environment) -> Vec<String> {
    kubeconfig_contexts(line, environment)
        .into_iter()
        .map(|context| context.name)
        .collect()
}

/// The namespaces the contexts name: the only ones known without asking the cluster.
fn namespaces(line: &Line, environment: &Environment) -> Vec<String> {
    kubeconfig_contexts(line, environment)
        .into_iter()
        .filter_map(|context| context.namespace)
        .collect()
}

/// Sorted, without duplicates, without descriptions.
fn names(mut values: Vec<String>) -> Vec<Candidate> {
    values.sort();
    values.dedup();
    values
        .into_iter()
        .map(|value| Candidate {
            value,
            description: None,
        })
        .collect()
}

fn filter(candidates: Vec<Candidate>, prefix: &str) -> Vec<Candidate> {
    candidates
        .into_iter()
        .filter(|candidate| candidate.value.starts_with(prefix))
        .collect()
}

fn no_files(candidates: Vec<Candidate>) -> Completion {
    Completion {
        candidates,
        directive: Directive::NoFileComp,
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().trim().to_string()
}

impl fmt::Display for Completion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for candidate in &self.candidates {
            match &candidate.description {
                Some(description) if !description.is_empty() => {
                    writeln!(f, "{}\t{description}", candidate.value)?
                }
                _ => writeln!(f, "{}", candidate.value)?,
            }
        }
        writeln!(f, ":{}", self.directive as u8)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    const KUBECONFIG: &str = "\
apiVersion: v1
kind: Config
clusters: [{name: c1, cluster: {server: 'https://127.0.0.1:1'}}]
users: [{name: u1, user: {}}]
contexts:
- {name: prod, context: {cluster: c1, user: u1, namespace: shop}}
- {name: dev, context: {cluster: c1, user: u1, namespace: data}}
- {name: kind, context: {cluster: c1, user: u1}}
current-context: dev
";

    const OTHER_KUBECONFIG: &str = "\
apiVersion: v1
kind: Config
contexts:
- {name: staging, context: {cluster: c2, namespace: shop}}
";

    const MANIFESTS: &str = "\
apiVersion: data.fluid.io/v1alpha1
kind: DataLoad
metadata: {name: warmup, namespace: data}
spec: {dataset: {name: ds, namespace: data}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-0}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Node
metadata: {name: worker-1}
";

    #[test]
    fn completes_the_last_word() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name).display().to_string();
        fs::write(path("config"), KUBECONFIG).unwrap();
        fs::write(path("other"), OTHER_KUBECONFIG).unwrap();
        fs::write(path("ops.yaml"), MANIFESTS).unwrap();
        let ops = path("ops.yaml");
        let other = path("other");
        let environment = Environment {
            kubeconfig: Some(path("config").into()),
            home: None,
        };
        // (words, expected output without descriptions)
        let cases: &[(&[&str], &str)] = &[
            (&["pl"], "plan\n:4\n"),
            (&["-n", "shop", "e"], "explain-placement\n:4\n"),
            (
                &["plan", "-o", ""],
                "table\nwide\njson\nyaml\nname\nmarkdown\nhtml\njsonpath=\ncustom-columns=\n:4\n",
            ),
            (&["plan", "--output=j"], "json\njsonpath=\n:4\n"),
            (&["snapshot", "-o", ""], "yaml\njson\n:4\n"),
            (&["version", "-o", "y"], "yaml\n:4\n"),
            (&["completion", "z"], "zsh\n:4\n"),
            (&["patch", "--dry-run", ""], "none\nclient\nserver\n:4\n"),
            (&["--context", ""], "dev\nkind\nprod\n:4\n"),
            (&["plan", "--context=p"], "prod\n:4\n"),
            (&["plan", "-n", ""], "data\nshop\n:4\n"),
            (&["plan", "-n=s"], "shop\n:4\n"),
            (
                &["--kubeconfig", &other, "plan", "--context", ""],
                "staging\n:4\n",
            ),
            (&["--kubeconfig", &other, "-n", ""], "shop\n:4\n"),
            (
                &["explain-placement", "-f", &ops, ""],
                "DataLoad/warmup\nPod/web-0\n:4\n",
            ),
            (&["patch", "-Rf", &ops, "D"], "DataLoad/warmup\n:4\n"),
            (
                &["launch", "--filename", &ops, "-f", "missing.yaml", "P"],
                "Pod/web-0\n:4\n",
            ),
            (&["explain-placement", "Pod/web-0", ""], ":4\n"),
            (&["explain-placement", ""], ":4\n"),
            (&["plan", "-f", ""], "json\nyaml\nyml\n:8\n"),
            (&["plan", "--state", "x"], "json\nyaml\nyml\n:8\n"),
            (&["--kubeconfig", ""], ":0\n"),
            (&["explain-placement", "--node", ""], ":4\n"),
            (
                &["version", "--"],
                "--output\n--namespace\n--all-namespaces\n--context\n--kubeconfig\n--state\n--max-state-size\n--state-cache\n--request-timeout\n--no-color\n--kubernetes-version\n--v\n--help\n--version\n:4\n",
            ),
            (
                &["version", "-"],
                "--output\n-o\n--namespace\n-n\n--all-namespaces\n-A\n--context\n--kubeconfig\n--state\n--max-state-size\n--state-cache\n--request-timeout\n--no-color\n--kubernetes-version\n--v\n-v\n--help\n-h\n--version\n-V\n:4\n",
            ),
            // Given flags are not offered again, repeatable ones are.
            (
                &["patch", "--yes", "-R", "-f", "a.yaml", "--"],
                "--filename\n--lenient\n--write\n--dry-run\n--ungate\n--scheduler-config\n--namespace\n--all-namespaces\n--context\n--kubeconfig\n--state\n--max-state-size\n--state-cache\n--request-timeout\n--no-color\n--kubernetes-version\n--v\n--help\n--version\n:4\n",
            ),
            (&["plan", "--", "-"], ":4\n"),
            (&["--no-such-flag", "sn"], "snapshot\n:4\n"),
            (&["help", "ex"], "explain-placement\n:4\n"),
            (&["help", "plan", ""], ":4\n"),
            (
                &[],
                "lint\nplan\nexplain-placement\nsnapshot\npatch\nlaunch\ncompletion\nversion\nhelp\n:4\n",
            ),
        ];
        for (words, expected) in cases {
            let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            let mut completion = complete(&Cli::command(), &words, &environment);
            for candidate in &mut completion.candidates {
                candidate.description = None;
            }
            assert_eq!(completion.to_string(), *expected, "{words:?}");
        }
    }

    #[test]
    fn candidates_carry_descriptions() {
        let dir = tempfile::tempdir().unwrap();
        let ops = dir.path().join("ops.yaml");
        fs::write(&ops, MANIFESTS).unwrap();
        let ops = ops.display().to_string();
        let cases: &[(&[&str], String)] = &[
            (
                &["plan", "-o", "w"],
                "wide\tTables with extra columns\n:4\n".to_string(),
            ),
            (
                &["sn"],
                "snapshot\tRecord the cluster state placement depends on, for offline plans and bug reports\n:4\n".to_string(),
            ),
            (
                &["plan", "--no-"],
                "--no-headers\tLeave out the column headers of tables (as kubectl's --no-headers)\n--no-color\tDisable colored output (also honoured: the NO_COLOR environment variable)\n:4\n".to_string(),
            ),
            (
                &["explain-placement", "-f", &ops, "DataLoad/"],
                format!("DataLoad/warmup\t{ops}\n:4\n"),
            ),
        ];
        for (words, expected) in cases {
            let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
            let completion = complete(&Cli::command(), &words, &Environment::default());
            assert_eq!(completion.to_string(), *expected, "{words:?}");
        }
    }

    /// `KUBECONFIG` is a path list; a missing file in it hides nothing else, and without it
    /// `~/.kube/config` is read.
    #[test]
    fn reads_the_kubeconfigs_kubectl_reads() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(".kube")).unwrap();
        fs::write(dir.path().join(".kube/config"), OTHER_KUBECONFIG).unwrap();
        fs::write(dir.path().join("config"), KUBECONFIG).unwrap();
        let list = std::env::join_paths([
            dir.path().join("missing"),
            dir.path().join("config"),
            dir.path().join(".kube/config"),
        ])
        .unwrap();
        let words = vec!["--context".to_string(), String::new()];
        let cases = [
            (Some(list), "dev\nkind\nprod\nstaging\n:4\n"),
            (None, "staging\n:4\n"),
            (Some(OsString::new()), "staging\n:4\n"),
        ];
        for (kubeconfig, expected) in cases {
            let environment = Environment {
                kubeconfig: kubeconfig.clone(),
                home: Some(dir.path().to_path_buf()),
            };
            let completion = complete(&Cli::command(), &words, &environment);
            assert_eq!(completion.to_string(), expected, "{kubeconfig:?}");
        }
    }
}
