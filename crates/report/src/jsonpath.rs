//! kubectl's JSONPath templates (`-o jsonpath=...`, and the columns of `-o custom-columns`),
//! over the JSON contract of a report. The syntax and output are client-go's
//! `util/jsonpath`: text outside `{}` is printed as is; inside, a path (`.a.b`, `$.a`, `@.a`,
//! `..a`, `.*`, `[0]`, `[-1]`, `[1:3]`, `[::2]`, `[*]`, `[0,2]`, `['a', 'b']`, filters
//! `[?(@.x=="y")]`, `[?(@.x)]`, `[?(@<5)]`; `\.` escapes a dot in a key), a quoted string, or
//! `range PATH` ... `end`. Several results of one path print separated by spaces, strings
//! raw and everything else as compact JSON. As kubectl's `--allow-missing-template-keys`
//! default, a missing key prints nothing.
//! No crate fits: the JSONPath crates implement RFC 9535 (`$.a`), not this template language.

use serde_json::Value;

/// Why a template cannot be used, in client-go's words where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("jsonpath template {template:?}: {message}")]
pub struct JsonPathError {
    pub template: String,
    pub message: String,
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Text(String),
    Path(Path),
    Range(Path, Vec<Piece>),
}

#[derive(Debug, Clone, PartialEq)]
struct Path {
    from_root: bool,
    steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    /// The value itself and everything below it, before the next step.
    Descendants,
    Wildcard,
    Indexes(Vec<i64>),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `['a.b', 'c']`: each is a path from the current values.
    Union(Vec<Path>),
    Filter(Box<Filter>),
}

#[derive(Debug, Clone, PartialEq)]
struct Filter {
    left: Path,
    /// `None`: the element passes when `left` finds anything.
    compare: Option<(Op, Operand)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Literal(Value),
    Path(Path),
}

impl Template {
    pub fn parse(template: &str) -> Result<Template, JsonPathError> {
        let error = |message: String| JsonPathError {
            template: template.to_string(),
            message,
        };
        // Each open `range` collects its pieces; the bottom frame is the template itself.
        let mut frames: Vec<(Option<Path>, Vec<Piece>)> = vec![(None, Vec::new())];
        let mut rest = template;
        while !rest.is_empty() {
            let Some(open) = rest.find('{') else {
                push_text(&mut frames, rest);
                break;
            };
            push_text(&mut frames, &rest[..open]);
            let close = action_end(&rest[open..])
                .ok_or_else(|| error("unclosed action: a `{` without its `}`".into()))?;
            let action = rest[open + 1..open + close].trim();
            rest = &rest[open + close + 1..];
            if action == "end" {
                if frames.len() == 1 {
                    return Err(error("not in range, nothing to end".into()));
                }
                let (path, pieces) = frames.pop().expect("more than one frame");
                let path = path.expect("only range frames are pushed");
                push(&mut frames, Piece::Range(path, pieces));
            } else if let Some(path) = action.strip_prefix("range ") {
                frames.push((Some(parse_path(path.trim()).map_err(error)?), Vec::new()));
            } else if action.starts_with('"') {
                push_text(&mut frames, &unquote(action).map_err(error)?);
            } else if action.starts_with(['.', '$', '@', '[']) {
                push(&mut frames, Piece::Path(parse_path(action).map_err(error)?));
            } else {
                return Err(error(format!("unrecognized identifier {action}")));
            }
        }
        if frames.len() > 1 {
            return Err(error("range without its {end}".into()));
        }
        Ok(Template {
            pieces: frames.pop().expect("the template frame").1,
        })
    }

    /// The template applied to `root`.
    pub fn render(&self, root: &Value) -> String {
        let mut out = String::new();
        render_pieces(&self.pieces, root, root, &mut out);
        out
    }

    /// Every value the template's paths find in `root`, in order (custom-columns joins them).
    pub fn values<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        self.pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Path(path) => Some(path.eval(root, root)),
                _ => None,
            })
            .flatten()
            .collect()
    }
}

fn push(frames: &mut [(Option<Path>, Vec<Piece>)], piece: Piece) {
    frames.last_mut().expect("the template frame").1.push(piece);
}

fn push_text(frames: &mut [(Option<Path>, Vec<Piece>)], text: &str) {
    if !text.is_empty() {
        push(frames, Piece::Text(text.to_string()));
    }
}

fn render_pieces(pieces: &[Piece], root: &Value, current: &Value, out: &mut String) {
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Path(path) => {
                let found: Vec<String> = path.eval(root, current).into_iter().map(print).collect();
                out.push_str(&found.join(" "));
            }
            Piece::Range(path, body) => {
                for item in path.eval(root, current) {
                    render_pieces(body, root, item, out);
                }
            }
        }
    }
}

/// How client-go prints one result: strings raw, the rest as compact JSON.
pub fn print(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The offset of the `}` closing the action that starts at `text[0] == '{'`, skipping quoted
/// strings (`{"{"}`).
fn action_end(text: &str) -> Option<usize> {
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '}') => return Some(i),
            _ => {}
        }
    }
    None
}

fn unquote(text: &str) -> Result<String, String> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or_else(|| format!("unterminated string {text}"))?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => return Err(format!("unterminated escape in {text}")),
        }
    }
    Ok(out)
}

fn parse_path(text: &str) -> Result<Path, String> {
    let mut rest = text;
    let from_root = rest.starts_with('$');
    rest = rest.strip_prefix(['$', '@']).unwrap_or(rest);
    let mut steps = Vec::new();
    while let Some(c) = rest.chars().next() {
        match c {
            '.' if rest.starts_with("..") => {
                rest = rest.trim_start_matches('.');
                // A bare `..` is the value itself, as in client-go.
                if rest.is_empty() {
                    break;
                }
                steps.push(Step::Descendants);
                // `..` followed by a name: the name is the next step.
                if !rest.starts_with(['[', '*']) {
                    let (field, after) = field_name(rest);
                    steps.push(Step::Field(field));
                    rest = after;
                }
            }
            '.' => {
                rest = &rest[1..];
                if let Some(after) = rest.strip_prefix('*') {
                    steps.push(Step::Wildcard);
                    rest = after;
                } else if !rest.is_empty() && !rest.starts_with('[') {
                    let (field, after) = field_name(rest);
                    steps.push(Step::Field(field));
                    rest = after;
                }
            }
            '*' => {
                steps.push(Step::Wildcard);
                rest = &rest[1..];
            }
            '[' => {
                let close = bracket_end(rest).ok_or_else(|| format!("unclosed [ in {text}"))?;
                steps.push(parse_bracket(rest[1..close].trim())?);
                rest = &rest[close + 1..];
            }
            _ => return Err(format!("unrecognized character {c:?} in {text}")),
        }
    }
    Ok(Path { from_root, steps })
}

/// A key up to the next unescaped `.` or `[`; `\.` is a dot of the key.
fn field_name(text: &str) -> (String, &str) {
    let mut name = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some((_, '.'))) => {
                name.push('.');
                chars.next();
            }
            '.' | '[' => return (name, &text[i..]),
            c => name.push(c),
        }
    }
    (name, "")
}

fn bracket_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn parse_bracket(inner: &str) -> Result<Step, String> {
    if inner == "*" {
        return Ok(Step::Wildcard);
    }
    if let Some(filter) = inner.strip_prefix("?(").and_then(|f| f.strip_suffix(')')) {
        return parse_filter(filter.trim()).map(|f| Step::Filter(Box::new(f)));
    }
    if inner.starts_with(['\'', '"']) {
        let paths = inner
            .split(',')
            .map(|key| {
                let key = key.trim();
                let key = key
                    .strip_prefix(['\'', '"'])
                    .and_then(|k| k.strip_suffix(['\'', '"']))
                    .ok_or_else(|| format!("unterminated key {key}"))?;
                parse_path(&format!(".{key}"))
            })
            .collect::<Result<_, _>>()?;
        return Ok(Step::Union(paths));
    }
    let number = |text: &str| -> Result<Option<i64>, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        text.parse()
            .map(Some)
            .map_err(|_| format!("invalid array index {text}"))
    };
    if inner.contains(':') {
        let parts: Vec<&str> = inner.split(':').collect();
        if parts.len() > 3 {
            return Err(format!("invalid array slice [{inner}]"));
        }
        let part = |i: usize| parts.get(i).map_or(Ok(None), |p| number(p));
        return Ok(Step::Slice(part(0)?, part(1)?, part(2)?));
    }
    let indexes = inner
        .split(',')
        .map(|i| number(i)?.ok_or_else(|| format!("invalid array index [{inner}]")))
        .collect::<Result<_, _>>()?;
    Ok(Step::Indexes(indexes))
}

fn parse_filter(text: &str) -> Result<Filter, String> {
    const OPERATORS: [(&str, Op); 6] = [
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
    ];
    let Some(at) = text.find(['=', '!', '<', '>']) else {
        return Ok(Filter {
            left: parse_path(text)?,
            compare: None,
        });
    };
    let (left, rest) = text.split_at(at);
    let operator: String = rest.chars().take_while(|c| "=!<>".contains(*c)).collect();
    let op = OPERATORS
        .iter()
        .find(|(word, _)| *word == operator)
        .map(|(_, op)| *op)
        .ok_or_else(|| format!("unrecognized filter operator {operator}"))?;
    let right = rest[operator.len()..].trim();
    let operand = if right.starts_with(['.', '@', '$']) {
        Operand::Path(parse_path(right)?)
    } else if let Some(quoted) = right
        .strip_prefix(['"', '\''])
        .and_then(|r| r.strip_suffix(['"', '\'']))
    {
        Operand::Literal(Value::String(quoted.to_string()))
    } else {
        Operand::Literal(
            serde_json::from_str(right)
                .map_err(|_| format!("unrecognized filter value {right}"))?,
        )
    };
    Ok(Filter {
        left: parse_path(left.trim())?,
        compare: Some((op, operand)),
    })
}

impl Path {
    fn eval<'a>(&self, root: &'a Value, current: &'a Value) -> Vec<&'a Value> {
        let start = if self.from_root { root } else { current };
        let mut values = vec![start];
        for step in &self.steps {
            values = match step {
                // client-go takes each path of a union over all values in turn.
                Step::Union(paths) => paths
                    .iter()
                    .flat_map(|p| values.iter().flat_map(|v| p.eval(root, v)))
                    .collect(),
                _ => values
                    .into_iter()
                    .flat_map(|v| step.apply(root, v))
                    .collect(),
            };
        }
        values
    }
}

impl Step {
    fn apply<'a>(&self, root: &'a Value, value: &'a Value) -> Vec<&'a Value> {
        match (self, value) {
            (Step::Field(name), Value::Object(map)) => map.get(name).into_iter().collect(),
            (Step::Descendants, _) => {
                let mut all = Vec::new();
                descendants(value, &mut all);
                all
            }
            (Step::Wildcard, Value::Array(items)) => items.iter().collect(),
            (Step::Wildcard, Value::Object(map)) => map.values().collect(),
            (Step::Indexes(indexes), Value::Array(items)) => indexes
                .iter()
                .filter_map(|&i| items.get(resolve(i, items.len())?))
                .collect(),
            (Step::Slice(start, end, step), Value::Array(items)) => {
                let len = items.len() as i64;
                let clamp = |i: i64| if i < 0 { (i + len).max(0) } else { i.min(len) };
                let from = start.map_or(0, clamp);
                let to = end.map_or(len, clamp);
                let step = step.unwrap_or(1).max(1) as usize;
                (from..to.max(from))
                    .step_by(step)
                    .map(|i| &items[i as usize])
                    .collect()
            }
            (Step::Filter(filter), Value::Array(items)) => items
                .iter()
                .filter(|item| filter.passes(root, item))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A negative index counts from the end, as in client-go.
fn resolve(index: i64, len: usize) -> Option<usize> {
    let index = if index < 0 { len as i64 + index } else { index };
    usize::try_from(index).ok().filter(|&i| i < len)
}

fn descendants<'a>(value: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(value);
    match value {
        Value::Array(items) => items.iter().for_each(|v| descendants(v, out)),
        Value::Object(map) => map.values().for_each(|v| descendants(v, out)),
        _ => {}
    }
}

impl Filter {
    fn passes(&self, root: &Value, item: &Value) -> bool {
        let found = self.left.eval(root, item);
        let Some((op, operand)) = &self.compare else {
            return !found.is_empty();
        };
        let right = match operand {
            Operand::Literal(value) => Some(value),
            Operand::Path(path) => path.eval(root, item).into_iter().next(),
        };
        let (Some(left), Some(right)) = (found.first(), right) else {
            return false;
        };
        let ordering = match (left, right) {
            (Value::Number(a), Value::Number(b)) => a.as_f64().partial_cmp(&b.as_f64()),
            (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
            (a, b) => (a == &b).then_some(std::cmp::Ordering::Equal),
        };
        match (op, ordering) {
            (Op::Eq, Some(o)) => o.is_eq(),
            (Op::Ne, o) => o.is_none_or(|o| o.is_ne()),
            (Op::Lt, Some(o)) => o.is_lt(),
            (Op::Le, Some(o)) => o.is_le(),
            (Op::Gt, Some(o)) => o.is_gt(),
            (Op::Ge, Some(o)) => o.is_ge(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
