//! `-o custom-columns=HEADER:PATH,...`, as kubectl prints it: one row per object, each cell
//! the values its JSONPath finds (joined by `,`; `<none>` when there is none or only
//! `null`, which the JSON contracts use for "absent"), columns
//! aligned as kubectl's tabwriter aligns them (three spaces between columns, the last column
//! not padded). Cells are made terminal-safe before their display width is measured, so an
//! escaped control character, a CJK name or an emoji cannot shift the columns after it
//! (kubectl's tabwriter counts characters, and misaligns wide ones).

use serde_json::Value;

use super::jsonpath::{self, EvalError, JsonPathError, Template};
use super::{cell_text, display_width};

/// Spaces between columns (kubectl's tabwriter padding).
const PADDING: usize = 3;

/// A parsed `HEADER:PATH,...` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Columns {
    columns: Vec<(String, Template)>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ColumnsError {
    #[error("custom-columns {0:?}: expected HEADER:JSONPATH[,HEADER:JSONPATH...]")]
    Shape(String),
    #[error(transparent)]
    Path(#[from] JsonPathError),
}

impl Columns {
    /// kubectl's relaxed paths: `.a.b`, `a.b` and `{.a.b}` are the same column.
    pub fn parse(spec: &str) -> Result<Columns, ColumnsError> {
        let columns = spec
            .split(',')
            .map(|column| {
                let (header, path) = column
                    .split_once(':')
                    .filter(|(h, p)| !h.is_empty() && !p.is_empty())
                    .ok_or_else(|| ColumnsError::Shape(column.to_string()))?;
                let path = path.trim();
                let path = path
                    .strip_prefix('{')
                    .and_then(|p| p.strip_suffix('}'))
                    .unwrap_or(path);
                let path = if path.starts_with(['.', '$', '@', '[']) {
                    path.to_string()
                } else {
                    format!(".{path}")
                };
                Ok((header.to_string(), Template::parse(&format!("{{{path}}}"))?))
            })
            .collect::<Result<_, ColumnsError>>()?;
        Ok(Columns { columns })
    }

    /// The table of `rows`, with the header row unless `headers` is false; a path that fails
    /// on a row fails the table, with client-go's bare error as kubectl prints it.
    pub fn render(&self, rows: &[&Value], headers: bool) -> Result<String, EvalError> {
        let mut lines: Vec<Vec<String>> = Vec::new();
        if headers {
            lines.push(
                self.columns
                    .iter()
                    .map(|(h, _)| cell_text(h).into_owned())
                    .collect(),
            );
        }
        for row in rows {
            let mut cells = Vec::with_capacity(self.columns.len());
            for (_, template) in &self.columns {
                let mut found = template.values(row)?;
                found.retain(|v| !v.is_null());
                let cell = if found.is_empty() {
                    "<none>".to_string()
                } else {
                    found
                        .into_iter()
                        .map(jsonpath::print)
                        .collect::<Vec<_>>()
                        .join(",")
                };
                cells.push(cell_text(&cell).into_owned());
            }
            lines.push(cells);
        }
        Ok(aligned(&lines))
    }
}

/// Lines of [`cell_text`] cells, each column as wide as its widest cell (in terminal columns)
/// plus the padding, the last column as it is.
pub fn aligned(lines: &[Vec<String>]) -> String {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            lines
                .iter()
                .filter_map(|line| line.get(i))
                .map(|cell| display_width(cell))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for line in lines {
        for (i, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < line.len() {
                let pad = widths[i] - display_width(cell) + PADDING;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn columns_as_kubectl_prints_them() {
        let rows = [
            json!({"name": "train-0", "node": "gpu-1", "labels": {"app": "bert"}}),
            json!({"name": "eval", "node": null, "zones": ["a", "b"]}),
            json!({"name": "bad\u{1b}[31mname", "node": "n"}),
        ];
        let rows: Vec<&Value> = rows.iter().collect();
        let cases = [
            (
                "NAME:.name,NODE:.node",
                true,
                "NAME                NODE\ntrain-0             gpu-1\neval                <none>\nbad\\u{1b}[31mname   n\n",
            ),
            (
                "NAME:name,APP:{.labels.app},ZONES:.zones[*]",
                false,
                "train-0             bert     <none>\neval                <none>   a,b\nbad\\u{1b}[31mname   <none>   <none>\n",
            ),
        ];
        for (spec, headers, want) in cases {
            let columns = Columns::parse(spec).unwrap();
            assert_eq!(
                columns.render(&rows, headers).as_deref(),
                Ok(want),
                "{spec}"
            );
        }
    }

    /// Wide names (CJK, emoji) are measured in terminal columns, and a tab or line break in a
    /// value is escaped rather than breaking the row.
    #[test]
    fn wide_and_broken_values_keep_the_columns() {
        let rows = [
            json!({"name": "数据-0", "node": "a"}),
            json!({"name": "🚀", "node": "b"}),
            json!({"name": "x\ty\nz", "node": "c"}),
        ];
        let rows: Vec<&Value> = rows.iter().collect();
        let columns = Columns::parse("名前:.name,NODE:.node").unwrap();
        assert_eq!(
            columns.render(&rows, true).as_deref(),
            Ok("名前            NODE\n数据-0          a\n🚀              b\nx\\u{9}y\\u{a}z   c\n")
        );
    }

    /// kubectl's custom-columns printer returns the engine's error as it is.
    #[test]
    fn a_path_failing_on_a_row_fails_the_table() {
        let rows = [json!({"ports": [80, 443]}), json!({"ports": [53]})];
        let rows: Vec<&Value> = rows.iter().collect();
        let columns = Columns::parse("FIRST:.ports[0],SECOND:.ports[1]").unwrap();
        assert_eq!(
            columns.render(&rows, true),
            Err(EvalError(
                "array index out of bounds: index 1, length 1".into()
            ))
        );
    }

    #[test]
    fn bad_specs_say_the_expected_shape() {
        let cases = [
            (
                "NAME",
                "custom-columns \"NAME\": expected HEADER:JSONPATH[,HEADER:JSONPATH...]",
            ),
            (
                "NAME:.name,:.x",
                "custom-columns \":.x\": expected HEADER:JSONPATH[,HEADER:JSONPATH...]",
            ),
            (
                "NAME:.a[?(@.b<>1)]",
                "jsonpath template \"{.a[?(@.b<>1)]}\": unrecognized filter operator <>",
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(
                Columns::parse(spec).unwrap_err().to_string(),
                want,
                "{spec}"
            );
        }
    }
}
