//! YAML states (`kubectl get -o yaml`), decoded in parallel in pieces.
//!
//! A positioned YAML tree costs about thirty times its text, so a 400 MB state parsed whole
//! needs 12 GB. The text is cut instead, by lines and without parsing, into documents (`---`)
//! and, inside a `List`, into runs of whole `items` entries (an entry starts where a `-` sits
//! at the entries' indentation). Each piece is parsed on its own on every core, its tree
//! dropped once its objects are out, so memory holds the text, the objects and a few pieces'
//! trees. A piece is a List of its entries behind a three-line header, which keeps every
//! entry's lines and columns: only the line numbers move, by a known amount.
//!
//! Cutting by lines relies on how YAML indents, not on a parse; whatever the cut cannot vouch
//! for (directives, `...`, tabs in the indentation, a piece or the List's other fields that do
//! not parse alone, such as an alias to an anchor in another piece) sends the whole text to the
//! one-tree parse, which then gives exactly the objects or the error it always gave.
//!
//! Even a piece's tree made the load of a large YAML state twenty times that of the same state
//! as JSON: an allocation per node, then a JSON value per node. So each entry of a run is read
//! first by [`block_json`], which knows only the YAML kubectl prints and writes it as JSON for
//! the JSON state's decoder; an entry it declines is parsed alone into a tree as before.

use std::borrow::Cow;
use std::sync::Arc;

use crate::item::{DecodedBatch, decode_json_object};
use df_manifest::{LoadError, Pos, block_json, validate};
use df_model::Object;

/// Entries are grouped into pieces of about this many bytes: enough to keep a core busy, few
/// enough in flight that their trees stay small next to the objects.
const PIECE_BYTES: usize = 2 << 20;

/// What goes before a run of entries so that it parses as the List it came from.
const LIST_HEADER: &str = "apiVersion: v1\nkind: List\nitems:\n";

/// A part of the text parsed on its own: `text`, starting at line `first_line` of the file,
/// behind `header` when it is a run of List entries.
struct Piece<'t> {
    header: &'static str,
    text: Cow<'t, str>,
    first_line: usize,
    /// The List's own fields, with its entries cut out: must decode to no object.
    list_remainder: bool,
}

impl Piece<'_> {
    /// The file position of a position in the piece's parsed text (header included).
    fn file_pos(&self, pos: Pos) -> Pos {
        let header_lines = self.header.matches('\n').count();
        Pos {
            line: pos.line + self.first_line - 1 - header_lines,
            column: pos.column,
        }
    }
}

/// How the entries of a run are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryReader {
    /// [`block_json`] first, the tree for what it declines.
    KubectlFirst,
    /// Always the tree (what the tests compare the first with).
    #[cfg(test)]
    Tree,
}

/// Decode a YAML state: in pieces on every core when the text can be cut, else whole.
pub(super) fn parse(file: &str, text: &str) -> Result<DecodedBatch, LoadError> {
    parse_in_pieces_of(file, text, PIECE_BYTES, EntryReader::KubectlFirst)
}

fn parse_in_pieces_of(
    file: &str,
    text: &str,
    piece_bytes: usize,
    reader: EntryReader,
) -> Result<DecodedBatch, LoadError> {
    let file: Arc<str> = Arc::from(file);
    match cut(text, piece_bytes) {
        Some(pieces) if pieces.len() > 1 => {
            decode_pieces(&file, &pieces, reader).map_or_else(|| parse_whole(&file, text), Ok)
        }
        _ => parse_whole(&file, text),
    }
}

/// The one-tree parse: exact objects and errors, at thirty times the text in memory.
fn parse_whole(file: &Arc<str>, text: &str) -> Result<DecodedBatch, LoadError> {
    let (manifests, mut problems) = df_manifest::parse_text(file, text);
    if !problems.is_empty() {
        return Err(problems.swap_remove(0));
    }
    Ok(batch_of(manifests, |pos| pos))
}

/// The objects of `manifests`, with their nodes' positions mapped into the file by `to_file`.
fn batch_of(manifests: Vec<df_manifest::Manifest>, to_file: impl Fn(Pos) -> Pos) -> DecodedBatch {
    let node_positions = manifests
        .iter()
        .filter(|m| matches!(m.object, Object::Node(_)))
        .map(|m| to_file(m.pos_of("metadata.name")))
        .collect();
    DecodedBatch {
        objects: manifests.into_iter().map(|m| m.object).collect(),
        node_positions,
    }
}

/// Parse every piece on every core; `None` when one of them did not decode cleanly on its
/// own, which only the whole text can judge.
fn decode_pieces(
    file: &Arc<str>,
    pieces: &[Piece<'_>],
    reader: EntryReader,
) -> Option<DecodedBatch> {
    let batches = df_parallel::try_map(pieces, |piece| {
        match (piece.header, reader) {
            (LIST_HEADER, EntryReader::KubectlFirst) => decode_entries(file, piece),
            _ => decode_piece(file, piece),
        }
        .ok_or(())
    });
    let mut whole = DecodedBatch::default();
    for batch in batches.ok()? {
        whole.append(batch);
    }
    Some(whole)
}

/// Decode a run of entries one by one: by [`block_json`] when it can, else each alone
/// into a tree; `None` when one of those did not decode cleanly.
fn decode_entries(file: &Arc<str>, run: &Piece<'_>) -> Option<DecodedBatch> {
    let mut batch = DecodedBatch::default();
    let mut json = Vec::new();
    for (lines_before, entry) in entries(&run.text) {
        let first_line = run.first_line + lines_before;
        match decode_kubectl_entry(entry, &mut json) {
            Some((object, node_position)) => {
                if let Some(pos) = node_position {
                    batch.node_positions.push(Pos {
                        line: first_line + pos.line - 1,
                        column: pos.column,
                    });
                }
                batch.objects.push(object);
            }
            None => batch.append(decode_piece(
                file,
                &Piece {
                    header: LIST_HEADER,
                    text: Cow::Borrowed(entry),
                    first_line,
                    list_remainder: false,
                },
            )?),
        }
    }
    Some(batch)
}

/// One entry read by [`block_json`] and decoded as a JSON item, with, for a node, the position
/// of its `metadata.name` (relative to the entry); `None` when the reader declines the text or
/// the object does not decode and validate as the tree's path would have it.
fn decode_kubectl_entry(entry: &str, json: &mut Vec<u8>) -> Option<(Object, Option<Pos>)> {
    json.clear();
    let identity = block_json::entry_to_json(entry, json)?;
    // The tree's path refuses an empty type, and renames an object named by `generateName`.
    if !identity.api_version
        || !identity.kind
        || (identity.generate_name && identity.name.is_none())
    {
        return None;
    }
    let object = decode_json_object(json).ok()?;
    validate::validate(&object).ok()?;
    let node_position = match object {
        Object::Node(_) => Some(identity.name?),
        _ => None,
    };
    Some((object, node_position))
}

/// The entries of a run (it starts with its first entry's `-`), each with the number of lines
/// before it in the run: an entry starts at each `-` in the first one's column.
fn entries(run: &str) -> Vec<(usize, &str)> {
    let mut lines = lines(run);
    let Some(mut entry) = lines.next() else {
        return Vec::new();
    };
    let indent = entry.indent;
    let mut entries = Vec::new();
    for line in lines {
        if line.indent == indent && line.is_entry() {
            entries.push((entry.number - 1, &run[entry.start..line.start]));
            entry = line;
        }
    }
    entries.push((entry.number - 1, &run[entry.start..]));
    entries
}

fn decode_piece(file: &Arc<str>, piece: &Piece<'_>) -> Option<DecodedBatch> {
    let text = match piece.header {
        "" => Cow::Borrowed(&*piece.text),
        header => Cow::Owned(format!("{header}{}", piece.text)),
    };
    let (manifests, problems) = df_manifest::parse_text(file, &text);
    if !problems.is_empty() || (piece.list_remainder && !manifests.is_empty()) {
        return None;
    }
    Some(batch_of(manifests, |pos| piece.file_pos(pos)))
}

/// One line of the text: its bytes without the line break, where it starts and where the next
/// one does, its number (from 1) and indentation.
#[derive(Clone, Copy)]
struct Line<'t> {
    text: &'t str,
    start: usize,
    next: usize,
    number: usize,
    indent: usize,
}

impl Line<'_> {
    /// The line after its indentation.
    fn body(&self) -> &str {
        &self.text[self.indent..]
    }

    /// Blank or a comment: says nothing about where an entry ends.
    fn is_filler(&self) -> bool {
        self.body().is_empty() || self.body().starts_with('#')
    }

    /// `---` (a new document), alone or before content.
    fn is_document_start(&self) -> bool {
        self.text
            .strip_prefix("---")
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
    }

    /// A sequence entry at its indentation: `-` then a space or nothing.
    fn is_entry(&self) -> bool {
        self.body()
            .strip_prefix('-')
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    }

    /// A directive, a document end or a tab in the indentation: beyond what the cut vouches for.
    fn is_suspicious(&self) -> bool {
        self.text.starts_with('%') || self.text.starts_with("...") || self.body().starts_with('\t')
    }
}

/// The lines of a text, each line break found by a vectorised search.
fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    let (mut start, mut number) = (0, 0);
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i);
        let body = &text[start..end];
        let body = body.strip_suffix('\r').unwrap_or(body);
        number += 1;
        let line = Line {
            text: body,
            start,
            next: (end + 1).min(text.len()),
            number,
            indent: body.bytes().take_while(|&b| b == b' ').count(),
        };
        start = end + 1;
        Some(line)
    })
}

/// Cut the text into pieces of about `piece_bytes`, in one pass over its lines; `None` when a
/// line is beyond what the cut vouches for.
fn cut(text: &str, piece_bytes: usize) -> Option<Vec<Piece<'_>>> {
    let mut pieces = Vec::new();
    let mut document: Option<DocumentCut<'_>> = None;
    for line in lines(text) {
        if line.is_suspicious() {
            return None;
        }
        match &mut document {
            Some(cut) if !line.is_document_start() => cut.add(text, line, piece_bytes, &mut pieces),
            _ => {
                if let Some(cut) = document.take() {
                    cut.finish(text, line.start, &mut pieces);
                }
                document = Some(DocumentCut {
                    first: line,
                    stage: Stage::Fields,
                });
            }
        }
    }
    if let Some(cut) = document {
        cut.finish(text, text.len(), &mut pieces);
    }
    Some(pieces)
}

/// How far the cut of one document has come.
#[derive(Clone, Copy)]
enum Stage<'t> {
    /// Before the `items:` line.
    Fields,
    /// After `items:` (the List's fields up to it end at byte `items_end`), before any entry.
    Items { items_end: usize },
    /// In the entries (their dashes in column `indent`), the current run starting at `run`.
    Entries {
        items_end: usize,
        indent: usize,
        run: Line<'t>,
    },
    /// Past the entries: the List's other fields start at byte `after`.
    After { items_end: usize, after: usize },
    /// Not a List the cut understands: the document is one piece.
    Whole,
}

/// One document being cut: a List's entries into runs, the rest as it is.
struct DocumentCut<'t> {
    first: Line<'t>,
    stage: Stage<'t>,
}

impl<'t> DocumentCut<'t> {
    fn add(
        &mut self,
        text: &'t str,
        line: Line<'t>,
        piece_bytes: usize,
        pieces: &mut Vec<Piece<'t>>,
    ) {
        self.stage = match self.stage {
            Stage::Fields if line.text.trim_end() == "items:" => Stage::Items {
                items_end: line.next,
            },
            Stage::Items { items_end } if !line.is_filler() => match line.is_entry() {
                true => Stage::Entries {
                    items_end,
                    indent: line.indent,
                    run: line,
                },
                false => Stage::Whole,
            },
            // Entries go on while lines are deeper than the dashes, or dashes at their indentation.
            Stage::Entries {
                items_end,
                indent,
                run,
            } if !line.is_filler() => {
                let entry = line.indent == indent && line.is_entry();
                if line.indent < indent || (line.indent == indent && !entry) {
                    pieces.push(run_piece(text, run, line.start));
                    Stage::After {
                        items_end,
                        after: line.start,
                    }
                } else if entry && line.start - run.start >= piece_bytes {
                    pieces.push(run_piece(text, run, line.start));
                    Stage::Entries {
                        items_end,
                        indent,
                        run: line,
                    }
                } else {
                    self.stage
                }
            }
            stage => stage,
        }
    }

    /// The document ends at byte `end`: its last pieces.
    fn finish(self, text: &'t str, end: usize, pieces: &mut Vec<Piece<'t>>) {
        let start = self.first.start;
        let (items_end, after) = match self.stage {
            Stage::Entries { items_end, run, .. } => {
                pieces.push(run_piece(text, run, end));
                (items_end, end)
            }
            Stage::After { items_end, after } => (items_end, after),
            Stage::Fields | Stage::Items { .. } | Stage::Whole => {
                pieces.push(Piece {
                    header: "",
                    text: Cow::Borrowed(&text[start..end]),
                    first_line: self.first.number,
                    list_remainder: false,
                });
                return;
            }
        };
        // The List without its entries: the lines before and after them, parsed as one text
        // whose line numbers past `items:` do not matter (it must decode to nothing).
        pieces.push(Piece {
            header: "",
            text: Cow::Owned(format!("{}{}", &text[start..items_end], &text[after..end])),
            first_line: self.first.number,
            list_remainder: true,
        });
    }
}

/// The run of entries from `run` to byte `end`, as a piece.
fn run_piece<'t>(text: &'t str, run: Line<'t>, end: usize) -> Piece<'t> {
    Piece {
        header: LIST_HEADER,
        text: Cow::Borrowed(&text[run.start..end]),
        first_line: run.number,
        list_remainder: false,
    }
}

#[cfg(test)]
mod tests;
