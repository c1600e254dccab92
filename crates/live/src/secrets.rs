//! Keeping credentials out of every message the tool prints.
//!
//! Errors from the kubeconfig parser, the HTTP stack and the API server may quote what they
//! were given: a snippet of the kubeconfig around a bad line, a server URL with `user:pass@`,
//! an exec plugin's output. Two nets catch what they leak: the secret values of the kubeconfig
//! itself (tokens, passwords, client keys, exec env values), replaced wherever they appear, and
//! patterns that look like credentials in any text (URL userinfo, `token: ...`, `Bearer ...`).

use std::path::{Path, PathBuf};

/// What a credential is replaced with.
pub(crate) const REDACTED: &str = "***";

/// Keys whose values are credentials, in kubeconfigs (`users[].user`, auth-provider config)
/// and in the messages that quote them.
const SECRET_KEYS: &[&str] = &[
    "token",
    "password",
    "client-key-data",
    "id-token",
    "refresh-token",
    "access-token",
    "client-secret",
];

/// Kubeconfig values shorter than this are not searched for in messages: replacing every
/// `a` or `ok` would garble the message and protect nothing.
const MIN_LITERAL_LEN: usize = 4;

/// A kubeconfig larger than this is not scanned for literals (the patterns still apply).
const MAX_KUBECONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Redacts the secret values of the kubeconfigs in use, and credential patterns.
#[derive(Debug, Clone, Default)]
pub(crate) struct Redactor {
    literals: Vec<String>,
}

impl Redactor {
    /// From the kubeconfig files a connection reads: `explicit`, else `KUBECONFIG`'s paths,
    /// else `~/.kube/config`. Unreadable files are skipped (the loader reports them).
    pub(crate) fn for_kubeconfig(explicit: Option<&Path>) -> Redactor {
        let paths: Vec<PathBuf> = match explicit {
            Some(path) => vec![path.to_path_buf()],
            None => match std::env::var_os("KUBECONFIG") {
                Some(list) => std::env::split_paths(&list).collect(),
                None => std::env::var_os("HOME")
                    .map(|home| vec![Path::new(&home).join(".kube/config")])
                    .unwrap_or_default(),
            },
        };
        let texts: Vec<String> = paths
            .iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_KUBECONFIG_BYTES))
            .filter_map(|p| std::fs::read(p).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .collect();
        Redactor::from_texts(texts.iter().map(String::as_str))
    }

    /// Collect secret values line by line, so a kubeconfig that does not parse is still
    /// covered: values of [`SECRET_KEYS`], env `value`s (exec plugins) and server userinfo.
    pub(crate) fn from_texts<'t>(texts: impl IntoIterator<Item = &'t str>) -> Redactor {
        let mut literals = Vec::new();
        for line in texts.into_iter().flat_map(str::lines) {
            let line = line.trim_start().trim_start_matches("- ").trim_start();
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
            let value = value
                .trim()
                .trim_end_matches(',')
                .trim_matches(['"', '\'', '[', ']', ' ']);
            if SECRET_KEYS.contains(&key.as_str()) || key == "value" {
                literals.push(value.to_string());
            } else if key == "server" {
                literals.extend(userinfo(value).map(|(user, password)| {
                    password.map_or_else(|| user.to_string(), str::to_string)
                }));
            }
        }
        literals.retain(|l| l.len() >= MIN_LITERAL_LEN);
        // Longest first, so a value that contains another is replaced whole.
        literals.sort_by_key(|l| std::cmp::Reverse(l.len()));
        literals.dedup();
        Redactor { literals }
    }

    /// `message` with every known secret value and every credential pattern replaced.
    pub fn redact(&self, message: &str) -> String {
        let mut text = message.to_string();
        for literal in &self.literals {
            if text.contains(literal.as_str()) {
                text = text.replace(literal.as_str(), REDACTED);
            }
        }
        redact(&text)
    }
}

/// The user and password of a URL's `user[:password]@` part, if it has one.
fn userinfo(url: &str) -> Option<(&str, Option<&str>)> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (info, _) = authority.rsplit_once('@')?;
    Some(match info.split_once(':') {
        Some((user, password)) => (user, Some(password)),
        None => (info, None),
    })
}

/// `text` with credential patterns replaced: the userinfo of URLs (`https://***@host`), the
/// values of secret keys (`token: ***`, `"password":"***"`, `token=***`) and bearer tokens.
pub fn redact(text: &str) -> String {
    let text = redact_userinfo(text);
    let text = redact_after(&text, "Bearer ", |_| true);
    SECRET_KEYS.iter().fold(text, |text, key| {
        redact_after(&text, key, |after| {
            // The key must be a whole word followed by `:` or `=` (quoted or not).
            let after = after.trim_start_matches(['"', '\'']);
            after.starts_with(':') || after.starts_with('=')
        })
    })
}

fn redact_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(index) = rest.find("://") {
        let (before, after) = rest.split_at(index + 3);
        out.push_str(before);
        let authority_len = after
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace() || c == '"')
            .unwrap_or(after.len());
        match after[..authority_len].rfind('@') {
            Some(at) => {
                out.push_str(REDACTED);
                out.push_str(&after[at..authority_len]);
            }
            None => out.push_str(&after[..authority_len]),
        }
        rest = &after[authority_len..];
    }
    out.push_str(rest);
    out
}

/// Replace the value after each whole-word, case-insensitive occurrence of `key` for which
/// `applies` holds on the text right after the key. The value starts after the separator
/// (`:`/`=`, quotes, blanks, an opening bracket) and ends at a blank, quote, comma or bracket.
fn redact_after(text: &str, key: &str, applies: impl Fn(&str) -> bool) -> String {
    let lower = text.to_ascii_lowercase();
    let key_lower = key.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(found) = lower[from..].find(&key_lower) {
        let start = from + found;
        let end = start + key.len();
        from = end;
        let word_start = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
        if !word_start || !applies(&text[end..]) {
            continue;
        }
        let value_start = end
            + text[end..]
                .find(|c: char| {
                    !matches!(c, '"' | '\'' | ':' | '=' | '[' | '{') && !c.is_whitespace()
                })
                .unwrap_or(text.len() - end);
        // A quoted value runs to its closing quote, blanks included.
        let quote = text[..value_start]
            .chars()
            .next_back()
            .filter(|c| matches!(c, '"' | '\''));
        let value_end = value_start
            + text[value_start..]
                .find(|c: char| match quote {
                    Some(q) => c == q || c == '\n',
                    None => c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ']' | '}' | ';'),
                })
                .unwrap_or(text.len() - value_start);
        if value_end > value_start {
            out.push_str(&text[copied..value_start]);
            out.push_str(REDACTED);
            copied = value_end;
            from = value_end;
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_patterns_are_redacted() {
        let cases = [
            (
                "cannot reach https://admin:hunter2@10.0.0.1:6443/api: refused",
                "cannot reach https://***@10.0.0.1:6443/api: refused",
            ),
            (
                "GET http://tok@h/x and https://h/y",
                "GET http://***@h/x and https://h/y",
            ),
            ("token: abc.def-ghi", "token: ***"),
            (
                r#"{"Token":"abc","password": "p w"}"#,
                r#"{"Token":"***","password": "***"}"#,
            ),
            (
                "client-key-data=LS0tLS1CRUdJTg==; next",
                "client-key-data=***; next",
            ),
            (
                "Authorization: Bearer eyJhbGciOi.x.y",
                "Authorization: Bearer ***",
            ),
            ("id-token: [a]", "id-token: [***]"),
            // Words that only contain a key, and keys without a value separator, stay.
            (
                "tokenization failed; the token expired",
                "tokenization failed; the token expired",
            ),
            ("no password given", "no password given"),
        ];
        for (input, expected) in cases {
            assert_eq!(redact(input), expected, "{input}");
        }
    }

    #[test]
    fn kubeconfig_values_are_redacted_wherever_they_appear() {
        let kubeconfig = "\
clusters:
- cluster:
    server: https://admin:hunter2@10.0.0.1
users:
- name: u
  user:
    token: \"sekrit-token\"
    client-key-data: LS0tS0VZ
    exec:
      env:
      - name: AWS_SECRET
        value: shh-its-a-secret
      - name: SHORT
        value: ab
";
        let redactor = Redactor::from_texts([kubeconfig]);
        let message = "line 7: \"sekrit-token\n  LS0tS0VZ hunter2 exec said shh-its-a-secret; ab";
        assert_eq!(
            redactor.redact(message),
            "line 7: \"***\n  *** *** exec said ***; ab"
        );
    }
}
