//! kubectl's JSONPath templates (`-o jsonpath=...`, and the columns of `-o custom-columns`),
//! over the JSON contract of a report. The syntax and output are client-go's
//! `util/jsonpath`: text outside `{}` is printed as is; inside, a path (`.a.b`, `$.a`, `@.a`,
//! `..a`, `.*`, `[0]`, `[-1]`, `[1:3]`, `[::2]`, `[*]`, `[0,2]`, `['a', 'b']`, filters
//! `[?(@.x=="y")]`, `[?(@.x)]`, `[?(@<5)]`; `\.` escapes a dot in a key), a quoted string, or
//! `range PATH` ... `end`. Several results of one path print separated by spaces, strings
//! raw and everything else as compact JSON. As kubectl's `--allow-missing-template-keys`
//! default, a missing key prints nothing (and so does an index into `null`); but an index out
//! of range, a reversed slice, a step below 1 or an index into a value that is no list fails
//! the whole template with client-go's error, as it fails kubectl's (`[i]` is the slice
//! `[i:i+1]`, `[*]` the slice `[:]`).
//! No crate fits: the JSONPath crates implement RFC 9535 (`$.a`), not this template language.

use serde_json::Value;

/// Why a template cannot be used, in client-go's words where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("jsonpath template {template:?}: {message}")]
pub struct JsonPathError {
    pub template: String,
    pub message: String,
}

/// A template that parsed but fails on the value it is applied to, in client-go's words
/// (`array index out of bounds: index 5, length 2`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EvalError(pub String);

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// The template as written, which kubectl's errors quote.
    source: String,
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
    Slice(Slice),
    /// `['a.b', 'c']`, `[0,2]`: each is a path from the current values.
    Union(Vec<Path>),
    Filter(Box<Filter>),
}

/// `[start:end:step]` as client-go's ArrayNode holds it: `None` is a bound left out, and
/// `[i]` is `[i:i+1]` with its end marked derived, so that `[-1]` ends at the length.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Slice {
    start: Option<i64>,
    end: Option<i64>,
    derived_end: bool,
    step: Option<i64>,
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
            source: template.to_string(),
            pieces: frames.pop().expect("the template frame").1,
        })
    }

    /// The template as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The template applied to `root`; nothing of it when any path fails (client-go finds
    /// every result before it prints one).
    pub fn render(&self, root: &Value) -> Result<String, EvalError> {
        let mut out = String::new();
        render_pieces(&self.pieces, root, root, &mut out).map_err(EvalError)?;
        Ok(out)
    }

    /// Every value the template's paths find in `root`, in order (custom-columns joins them).
    pub fn values<'a>(&self, root: &'a Value) -> Result<Vec<&'a Value>, EvalError> {
        let mut found = Vec::new();
        for piece in &self.pieces {
            if let Piece::Path(path) = piece {
                found.extend(path.eval(root, root).map_err(EvalError)?);
            }
        }
        Ok(found)
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

fn render_pieces(
    pieces: &[Piece],
    root: &Value,
    current: &Value,
    out: &mut String,
) -> Result<(), String> {
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Path(path) => {
                let found: Vec<String> = path.eval(root, current)?.into_iter().map(print).collect();
                out.push_str(&found.join(" "));
            }
            Piece::Range(path, body) => {
                for item in path.eval(root, current)? {
                    render_pieces(body, root, item, out)?;
                }
            }
        }
    }
    Ok(())
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

/// What client-go's `parseArray` makes of `[inner]`: a filter, a union of the comma-separated
/// parts (each parsed as `[part]`), a quoted key (a path: `['a.b']` is `.a.b`), or a slice.
fn parse_bracket(inner: &str) -> Result<Step, String> {
    if let Some(filter) = inner.strip_prefix("?(").and_then(|f| f.strip_suffix(')')) {
        return parse_filter(filter.trim()).map(|f| Step::Filter(Box::new(f)));
    }
    if inner.contains(',') {
        let paths = inner
            .split(',')
            .map(|part| parse_path(&format!("[{}]", part.trim())))
            .collect::<Result<_, _>>()?;
        return Ok(Step::Union(paths));
    }
    if inner.starts_with(['\'', '"']) {
        let key = inner
            .strip_prefix(['\'', '"'])
            .and_then(|k| k.strip_suffix(['\'', '"']))
            .ok_or_else(|| format!("unterminated key {inner}"))?;
        return Ok(Step::Union(vec![parse_path(&format!(".{key}"))?]));
    }
    let inner = if inner == "*" { ":" } else { inner };
    let number = |text: &str| -> Result<Option<i64>, String> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        text.parse()
            .map(Some)
            .map_err(|_| format!("invalid array index {inner}"))
    };
    let parts: Vec<&str> = inner.split(':').collect();
    if parts.len() > 3 {
        return Err(format!("invalid array index {inner}"));
    }
    let start = number(parts[0])?;
    let part = |i: usize| parts.get(i).map_or(Ok(None), |p| number(p));
    let slice = match parts.len() {
        // `[i]`: up to the next element; `[]` is `[0]` in client-go too.
        1 => Slice {
            start,
            end: Some(start.unwrap_or(0) + 1),
            derived_end: true,
            step: None,
        },
        _ => Slice {
            start,
            end: part(1)?,
            derived_end: false,
            step: part(2)?,
        },
    };
    Ok(Step::Slice(slice))
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
    fn eval<'a>(&self, root: &'a Value, current: &'a Value) -> Result<Vec<&'a Value>, String> {
        let start = if self.from_root { root } else { current };
        self.walk(root, vec![start])
    }

    /// The path's steps over a list of values, each step over the whole list as client-go
    /// walks it.
    fn walk<'a>(
        &self,
        root: &'a Value,
        mut values: Vec<&'a Value>,
    ) -> Result<Vec<&'a Value>, String> {
        for step in &self.steps {
            values = match step {
                // client-go takes each path of a union over all values in turn.
                Step::Union(paths) => {
                    let mut found = Vec::new();
                    for path in paths {
                        found.extend(path.walk(root, values.clone())?);
                    }
                    found
                }
                Step::Slice(slice) => slice.apply(&values)?,
                Step::Filter(filter) => {
                    let mut found = Vec::new();
                    for value in values {
                        if let Value::Array(items) = value {
                            for item in items {
                                if filter.passes(root, item)? {
                                    found.push(item);
                                }
                            }
                        }
                    }
                    found
                }
                _ => values.into_iter().flat_map(|v| step.apply(v)).collect(),
            };
        }
        Ok(values)
    }
}

impl Slice {
    /// client-go's `evalArray`: bounds are checked only when the slice is not empty, and an
    /// empty one ends the step there (the values after it are not looked at either).
    fn apply<'a>(&self, values: &[&'a Value]) -> Result<Vec<&'a Value>, String> {
        let mut found = Vec::new();
        for value in values {
            let items = match value {
                Value::Null => continue,
                Value::Array(items) => items,
                other => return Err(format!("{} is not array or slice", go_type(other))),
            };
            let len = items.len() as i64;
            let mut start = self.start.unwrap_or(0);
            if start < 0 {
                start += len;
            }
            let mut end = self.end.unwrap_or(len);
            if end < 0 || (end == 0 && self.derived_end) {
                end += len;
            }
            if start == end {
                return Ok(found);
            }
            if start >= len || start < 0 {
                return Err(format!(
                    "array index out of bounds: index {start}, length {len}"
                ));
            }
            if end > len || end < 0 {
                return Err(format!(
                    "array index out of bounds: index {}, length {len}",
                    end - 1
                ));
            }
            if start > end {
                return Err(format!(
                    "starting index {start} is greater than ending index {end}"
                ));
            }
            let step = match self.step {
                Some(step) if step <= 0 => return Err("step must be > 0".into()),
                Some(step) => step as usize,
                None => 1,
            };
            found.extend(items[start as usize..end as usize].iter().step_by(step));
        }
        Ok(found)
    }
}

/// The Go type a JSON value decodes to (`encoding/json` into `interface{}`), as client-go's
/// errors name it.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

impl Step {
    /// A step that finds values in each value on its own and cannot fail.
    fn apply<'a>(&self, value: &'a Value) -> Vec<&'a Value> {
        match (self, value) {
            (Step::Field(name), Value::Object(map)) => map.get(name).into_iter().collect(),
            (Step::Descendants, _) => {
                let mut all = Vec::new();
                descendants(value, &mut all);
                all
            }
            (Step::Wildcard, Value::Array(items)) => items.iter().collect(),
            (Step::Wildcard, Value::Object(map)) => map.values().collect(),
            _ => Vec::new(),
        }
    }
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
    /// Whether `item` passes. An existence test passes when its path fails too (client-go's
    /// failing step hands back the values it was given, which are there); a comparison's
    /// failure fails the template.
    fn passes(&self, root: &Value, item: &Value) -> Result<bool, String> {
        let found = self.left.eval(root, item);
        let Some((op, operand)) = &self.compare else {
            return Ok(found.map_or(true, |found| !found.is_empty()));
        };
        let found = found?;
        let right = match operand {
            Operand::Literal(value) => Some(value),
            Operand::Path(path) => path.eval(root, item)?.into_iter().next(),
        };
        let (Some(left), Some(right)) = (found.first(), right) else {
            return Ok(false);
        };
        let ordering = match (left, right) {
            (Value::Number(a), Value::Number(b)) => a.as_f64().partial_cmp(&b.as_f64()),
            (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
            (a, b) => (a == &b).then_some(std::cmp::Ordering::Equal),
        };
        Ok(match (op, ordering) {
            (Op::Eq, Some(o)) => o.is_eq(),
            (Op::Ne, o) => o.is_none_or(|o| o.is_ne()),
            (Op::Lt, Some(o)) => o.is_lt(),
            (Op::Le, Some(o)) => o.is_le(),
            (Op::Gt, Some(o)) => o.is_gt(),
            (Op::Ge, Some(o)) => o.is_ge(),
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests;
