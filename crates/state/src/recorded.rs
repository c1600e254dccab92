//! Recorded cluster state: the output of `kubectl get nodes,pods,... -A -o json|yaml`.
//!
//! JSON is the format of large states, so it streams: the file is read a block at a time, the
//! `items` array is split into items by a scanner that only matches brackets and skips strings
//! (no decoding), and batches of items are decoded on every core straight into the slim model
//! types, skipping unknown fields. A batch's bytes are dropped as soon as it is decoded, so
//! memory holds the decoded model plus a few blocks of text, not the whole file. YAML is read
//! whole, cut into documents and runs of List entries, and parsed in parallel
//! ([`super::yaml_state`]).
//!
//! Every state is bounded in size ([`LoadOptions::max_bytes`]), and a NUL byte ends the read
//! at its block: `--state /dev/zero` is an error, not a machine out of memory.

use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use std::sync::mpsc;

use rustc_hash::FxHashMap;

use super::json_scan::{Scan, scan_value};
use super::{ClusterState, Run, cache};
use crate::item::{DecodedBatch, decode_json_object};
use df_manifest::tree::position_at;
use df_manifest::{LoadError, Pos};
use df_model::Object;

/// The default bound on one state file (`--max-state-size`, 4 GiB): eight times the 496 MB dump
/// of a 5,000-node / 150,000-pod cluster.
pub const DEFAULT_MAX_STATE_BYTES: u64 = 4 << 30;

/// How the error for a state over the size limit begins (the limit follows), so the command
/// line can say which flag raises it.
pub const STATE_TOO_LARGE: &str = "the state is larger than the limit of";

/// How state files are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// A file larger than this is refused with an error naming the limit.
    pub max_bytes: u64,
    /// Read each file's objects from its binary cache when the cache is fresh, and write the
    /// cache when it is missing or refused ([`super::cache`]).
    pub use_cache: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_bytes: DEFAULT_MAX_STATE_BYTES,
            use_cache: false,
        }
    }
}

/// Load and merge several state files, in order (later objects win).
pub fn load_files(paths: &[String]) -> Result<ClusterState, LoadError> {
    load_files_with(paths, LoadOptions::default())
}

/// [`load_files`] with explicit options. A cache that could not be used or written is said
/// among the state's warnings; the state is then read from its file as usual.
pub fn load_files_with(paths: &[String], options: LoadOptions) -> Result<ClusterState, LoadError> {
    // Objects in runs, in file order: joining them into one list would hold every object
    // twice at the peak.
    let mut runs: Vec<Run> = Vec::new();
    let mut cache_warnings = Vec::new();
    // The first file's that records one: a state is one cluster's.
    let mut server_version = None;
    for path in paths {
        let file = df_manifest::display_name(path);
        let opened = match path.as_str() {
            "-" => None,
            _ => Some(open_state(file, Path::new(path))?),
        };
        // A pipe or device has no content to fingerprint: its cache could never be told fresh.
        let cached = options.use_cache && opened.as_ref().is_some_and(|(_, len)| len.is_some());
        if cached {
            match cache::read(Path::new(path)) {
                Ok(cached) => {
                    runs.extend(cached.runs);
                    server_version = server_version.or(cached.server_version);
                    continue;
                }
                Err(cache::CacheError::Missing { .. }) => {}
                Err(refused) => {
                    cache_warnings.push(format!("{refused}; read {file} and wrote the cache anew"))
                }
            }
        }
        let recorded = match opened {
            None => read_batches(file, std::io::stdin().lock(), None, options, Sizes::DEFAULT),
            Some((opened, len)) => read_batches(file, opened, len, options, Sizes::DEFAULT),
        }?;
        if cached {
            let objects = recorded.objects();
            let version = recorded.server_version.as_deref();
            if let Err(e) = cache::write(Path::new(path), &objects, version) {
                cache_warnings.push(format!("the state cache was not written: {e}"));
            }
        }
        server_version = server_version.or(recorded.server_version);
        runs.extend(
            recorded
                .batches
                .into_iter()
                .map(|b| Run::Objects(b.objects)),
        );
    }
    let mut state = ClusterState::from_runs(runs);
    state.warnings.extend(cache_warnings);
    state.server_version = server_version;
    Ok(state)
}

/// One state file's objects, and the API server version its List recorded (a snapshot's
/// [`SERVER_VERSION_ANNOTATION`]).
struct Recorded {
    batches: Vec<DecodedBatch>,
    server_version: Option<String>,
}

impl Recorded {
    fn objects(&self) -> Vec<&Object> {
        self.batches.iter().flat_map(|b| &b.objects).collect()
    }
}

/// The annotation of a snapshot's List that records the API server's version (`/version`'s
/// `gitVersion`), so that commands reading the snapshot simulate the cluster's release. A
/// List's metadata is not sent to any server: kubectl reads only its items.
pub const SERVER_VERSION_ANNOTATION: &str = "kubectl-dataflow.io/server-version";

/// The part of a List's `metadata` a state reads.
#[derive(serde::Deserialize, Default)]
struct ListMeta {
    #[serde(default)]
    annotations: Option<std::collections::BTreeMap<String, serde_json::Value>>,
}

impl ListMeta {
    fn server_version(&self) -> Option<String> {
        let value = self.annotations.as_ref()?.get(SERVER_VERSION_ANNOTATION)?;
        value.as_str().map(str::to_string)
    }
}

/// Read a state file and write its binary cache beside it (`snapshot` does this for the file
/// it wrote, so the next command that reads it with the cache skips the decoding).
pub fn write_cache(path: &Path, options: LoadOptions) -> Result<(), LoadError> {
    let file = path.display().to_string();
    let (opened, len) = open_state(&file, path)?;
    let recorded = read_batches(&file, opened, len, options, Sizes::DEFAULT)?;
    let version = recorded.server_version.as_deref();
    cache::write(path, &recorded.objects(), version).map_err(|e| LoadError::Io {
        file,
        message: format!("the state cache was not written: {e}"),
    })
}

/// Open a state file, with its length when it is a regular file. A directory is refused; a
/// pipe or a device is read as a stream like stdin, in blocks, its NUL bytes and size bounded
/// as any state's (a FIFO is what `--state <(kubectl get ...)` opens).
fn open_state(file: &str, path: &Path) -> Result<(std::fs::File, Option<u64>), LoadError> {
    let opened = std::fs::File::open(path).map_err(|e| io_error(file, &e))?;
    let meta = opened.metadata().map_err(|e| io_error(file, &e))?;
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(LoadError::Io {
            file: file.to_string(),
            message: "a directory; expected a YAML or JSON state file".into(),
        });
    }
    Ok((opened, kind.is_file().then_some(meta.len())))
}

/// How the error for a state that outgrows the memory the process may take reads: an endless
/// pipe or device, or a file larger than the address-space limit allows.
pub const STATE_DOES_NOT_FIT: &str =
    "the state does not fit in the memory this process may take (an endless pipe or device?)";

fn io_error(file: &str, e: &std::io::Error) -> LoadError {
    LoadError::Io {
        file: file.to_string(),
        message: if e.kind() == std::io::ErrorKind::NotFound {
            "no such file or directory".into()
        } else {
            e.to_string()
        },
    }
}

/// Decode one state file's objects from memory.
pub fn parse_state(file: &str, bytes: &[u8]) -> Result<Vec<Object>, LoadError> {
    read_state(file, bytes, LoadOptions::default())
}

/// Decode one state file's objects from a reader, JSON streaming or YAML. Two nodes with the
/// same name in one file are an error naming both places (across files the later one wins).
pub(crate) fn read_state(
    file: &str,
    reader: impl Read,
    options: LoadOptions,
) -> Result<Vec<Object>, LoadError> {
    let recorded = read_batches(file, reader, None, options, Sizes::DEFAULT)?;
    Ok(recorded
        .batches
        .into_iter()
        .flat_map(|batch| batch.objects)
        .collect())
}

/// How much is read at once; a block's whole items are decoded together. Tests make it tiny
/// so that every item straddles reads and batches.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    block: usize,
}

impl Sizes {
    /// A read large enough that per-call costs vanish, small enough that the item scan and
    /// the newline count find it in the core's cache where the read just put it: with 4 MB
    /// blocks, which they read back from memory, an explain took a fifth more CPU.
    const DEFAULT: Sizes = Sizes { block: 256 << 10 };
}

/// Read a state from `reader`; `length` is the file's when it is a regular file, for a YAML
/// text to be read into one buffer of its size (doubling a buffer copies it, and with mimalloc
/// the old and new buffers are both resident at the copy).
fn read_batches(
    file: &str,
    reader: impl Read,
    length: Option<u64>,
    options: LoadOptions,
    sizes: Sizes,
) -> Result<Recorded, LoadError> {
    let mut input = Input::new(file, reader, options.max_bytes, sizes);
    let first = loop {
        match input.buf[input.start..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
        {
            Some(i) => break Some(input.buf[input.start + i]),
            None if input.eof => break None,
            None => input.fill(0)?,
        }
    };
    let recorded = if first == Some(b'{') {
        read_json(&mut input)?
    } else {
        input.read_rest(length)?;
        let server_version = yaml_list_meta(&input.buf).server_version();
        let batches = vec![parse_yaml(file, input.buf)?];
        Recorded {
            batches,
            server_version,
        }
    };
    check_unique_nodes(file, &recorded.batches)?;
    Ok(recorded)
}

/// The `metadata` of a YAML List, read from the lines before its `items:` (a snapshot writes
/// it first); none when those lines hold no metadata or do not parse alone (the whole parse
/// then says what is wrong, if anything).
fn yaml_list_meta(text: &[u8]) -> ListMeta {
    let items = text
        .split(|&b| b == b'\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len() + 1;
            Some((start, line))
        })
        .find(|(_, line)| line.starts_with(b"items:"))
        .map(|(start, _)| start);
    #[derive(serde::Deserialize, Default)]
    struct Header {
        #[serde(default)]
        metadata: Option<ListMeta>,
    }
    items
        .and_then(|end| std::str::from_utf8(&text[..end]).ok())
        .filter(|header| header.contains("metadata:"))
        .and_then(|header| serde_saphyr::from_str::<Header>(header).ok())
        .and_then(|header| header.metadata)
        .unwrap_or_default()
}

fn check_unique_nodes(file: &str, batches: &[DecodedBatch]) -> Result<(), LoadError> {
    let mut seen: FxHashMap<&str, Pos> = FxHashMap::default();
    for (name, pos) in batches.iter().flat_map(DecodedBatch::nodes) {
        if let Some(first) = seen.insert(name, pos) {
            return Err(LoadError::Decode {
                file: file.to_string(),
                pos,
                path: "metadata.name".into(),
                message: format!(
                    "node {name:?} is listed twice in one state, here and at {file}:{first}"
                ),
            });
        }
    }
    Ok(())
}

/// Bytes read so far, of which `buf[start..]` are not consumed yet; `buf[0]` is at `offset`
/// in the file and at `pos`.
struct Input<'f, R> {
    file: &'f str,
    reader: R,
    max_bytes: u64,
    sizes: Sizes,
    buf: Vec<u8>,
    start: usize,
    offset: u64,
    pos: Pos,
    /// A buffer index whose position is known, so positions are found counting forward.
    mark: (usize, Pos),
    eof: bool,
}

impl<'f, R: Read> Input<'f, R> {
    fn new(file: &'f str, reader: R, max_bytes: u64, sizes: Sizes) -> Self {
        Input {
            file,
            reader,
            max_bytes,
            sizes,
            buf: Vec::new(),
            start: 0,
            offset: 0,
            pos: Pos { line: 1, column: 1 },
            mark: (0, Pos { line: 1, column: 1 }),
            eof: false,
        }
    }

    /// Drop the consumed bytes and read at least a block (and at least `more`) further bytes,
    /// or up to the end. Asking for as many bytes as are buffered when an unfinished value
    /// must be scanned again keeps a long value linear to read.
    fn fill(&mut self, more: usize) -> Result<(), LoadError> {
        if self.start > 0 {
            self.pos = self.advance_to(self.start);
            self.offset += self.start as u64;
            self.buf.drain(..self.start);
            self.start = 0;
            self.mark = (0, self.pos);
        }
        let want = more.max(self.sizes.block);
        // An endless pipe or device grows the buffer until the address space runs out:
        // refused then, instead of aborting on the allocation.
        self.buf
            .try_reserve_exact(want)
            .map_err(|_| LoadError::Io {
                file: self.file.to_string(),
                message: STATE_DOES_NOT_FIT.into(),
            })?;
        // Reads into the spare capacity as it is: zeroing it first was 2% of a load.
        let read_from = self.buf.len();
        let got = (&mut self.reader)
            .take(want as u64)
            .read_to_end(&mut self.buf)
            .map_err(|e| io_error(self.file, &e))?;
        if got < want {
            self.eof = true;
        }
        // JSON and YAML text never hold a NUL byte: a binary file, or a device such as
        // /dev/zero that would otherwise be read until the size limit, stops at its first block.
        if let Some(at) = memchr::memchr(0, &self.buf[read_from..]) {
            let at = self.advance_to(read_from + at);
            return Err(LoadError::Io {
                file: self.file.to_string(),
                message: format!(
                    "binary content (NUL byte) at line {}, column {}; expected a YAML or JSON \
                     state",
                    at.line, at.column
                ),
            });
        }
        if self.offset + self.buf.len() as u64 > self.max_bytes {
            return Err(self.too_large());
        }
        Ok(())
    }

    fn too_large(&self) -> LoadError {
        LoadError::Io {
            file: self.file.to_string(),
            message: format!("{STATE_TOO_LARGE} {} bytes", self.max_bytes),
        }
    }

    /// Read to the end of the input: what is left of `length` at once (a file longer than
    /// the size limit is refused before), and past it, or without a length, twice what is
    /// buffered at a time.
    fn read_rest(&mut self, length: Option<u64>) -> Result<(), LoadError> {
        if length.is_some_and(|length| length > self.max_bytes) {
            return Err(self.too_large());
        }
        while !self.eof {
            let read = self.offset + self.buf.len() as u64;
            let rest = length
                .filter(|&length| length > read)
                .map(|length| length - read);
            // One byte more than is left, so that the read that fills it also sees the end.
            let more = rest.map_or(self.buf.len(), |rest| {
                usize::try_from(rest).unwrap_or(usize::MAX - 1) + 1
            });
            self.fill(more)?;
        }
        Ok(())
    }

    /// Position of `buf[at]` in the file, counting on from the last one asked for.
    fn advance_to(&mut self, at: usize) -> Pos {
        let (from, pos) = if at >= self.mark.0 {
            self.mark
        } else {
            (0, self.pos)
        };
        let pos = advance(pos, &self.buf[from..at]);
        self.mark = (at, pos);
        pos
    }

    /// Position of `buf[at]` in the file.
    fn pos_at(&self, at: usize) -> Pos {
        advance(self.pos, &self.buf[..at])
    }

    fn syntax(&self, at: usize, message: &str) -> LoadError {
        LoadError::Syntax {
            file: self.file.to_string(),
            pos: self.pos_at(at.min(self.buf.len().saturating_sub(1))),
            message: message.to_string(),
        }
    }

    /// Index of the first non-whitespace byte at or after `at`, reading more as needed;
    /// `None` at the end of the input.
    fn skip_whitespace(&mut self, mut at: usize) -> Result<Option<usize>, LoadError> {
        loop {
            while at < self.buf.len() && self.buf[at].is_ascii_whitespace() {
                at += 1;
            }
            if at < self.buf.len() {
                return Ok(Some(at));
            }
            if self.eof {
                return Ok(None);
            }
            let keep = at - self.start;
            self.fill(0)?;
            at = self.start + keep;
        }
    }

    /// The start and end (exclusive) of the JSON value starting at `at`, reading more as
    /// needed (which moves the buffer, hence the start). Only brackets are matched and strings
    /// skipped: the decoder checks the value itself.
    fn value_at(&mut self, mut at: usize, eof_message: &str) -> Result<(usize, usize), LoadError> {
        loop {
            match scan_value(&self.buf, at) {
                Scan::End(end) => return Ok((at, end)),
                Scan::Invalid(bad) => return Err(self.syntax(bad, "expected value")),
                Scan::Unfinished if self.eof => {
                    // Let the decoder say what the input ended in, as it would have.
                    let ended = serde_json::from_slice::<serde::de::IgnoredAny>(&self.buf[at..]);
                    return Err(match ended {
                        Err(e) if e.is_eof() => LoadError::Syntax {
                            file: self.file.to_string(),
                            pos: rebase(
                                self.pos_at(at),
                                Pos {
                                    line: e.line(),
                                    column: e.column(),
                                },
                            ),
                            message: json_message(&e),
                        },
                        _ => self.syntax(self.buf.len(), eof_message),
                    });
                }
                Scan::Unfinished => {
                    let keep = at - self.start;
                    let more = self.buf.len() - self.start;
                    self.fill(more)?;
                    at = self.start + keep;
                }
            }
        }
    }
}

/// Where `bytes` end, starting at `pos`.
fn advance(pos: Pos, bytes: &[u8]) -> Pos {
    match memchr::memrchr(b'\n', bytes) {
        None => Pos {
            line: pos.line,
            column: pos.column + bytes.len(),
        },
        Some(last) => Pos {
            line: pos.line + count_newlines(bytes),
            column: bytes.len() - last,
        },
    }
}

/// The `\n` bytes in `bytes`. Every block of a state is counted once to keep positions, so
/// this is written to vectorise: byte-wide counters over runs short enough not to overflow
/// (a plain filter-and-count was 10% of a load).
fn count_newlines(bytes: &[u8]) -> usize {
    bytes
        .chunks(u8::MAX as usize)
        .map(|run| {
            let in_run = run.iter().fold(0u8, |n, &b| n + u8::from(b == b'\n'));
            usize::from(in_run)
        })
        .sum()
}

/// `inner` (1-based, relative to a text that starts at `base`) as a position in the file.
fn rebase(base: Pos, inner: Pos) -> Pos {
    if inner.line <= 1 {
        Pos {
            line: base.line,
            column: base.column + inner.column.saturating_sub(1),
        }
    } else {
        Pos {
            line: base.line + inner.line - 1,
            column: inner.column,
        }
    }
}

/// Items handed to a decoder thread: `bytes` holds whole items, `items` their ranges.
struct Batch {
    seq: usize,
    first_index: usize,
    pos: Pos,
    bytes: Vec<u8>,
    items: Vec<(usize, usize)>,
}

/// What a batch decodes to, positions relative to the batch start.
type Decoded = Result<DecodedBatch, LoadError>;

fn read_json<R: Read>(input: &mut Input<'_, R>) -> Result<Recorded, LoadError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (to_workers, work) = mpsc::sync_channel::<Batch>(threads * 2);
    let work = Mutex::new(work);
    let (results, from_workers) = mpsc::channel::<(usize, Pos, Decoded)>();
    let file = input.file;
    let shape = std::thread::scope(|scope| {
        for _ in 0..threads {
            let results = results.clone();
            let work = &work;
            scope.spawn(move || {
                loop {
                    let next = work.lock().map(|queue| queue.recv());
                    let Ok(Ok(batch)) = next else { break };
                    let decoded = decode_batch(file, &batch);
                    if results.send((batch.seq, batch.pos, decoded)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(results);
        let shape = split_list(input, &to_workers);
        drop(to_workers);
        shape
    })?;
    let mut batches: Vec<(usize, Pos, Decoded)> = from_workers.into_iter().collect();
    batches.sort_by_key(|(seq, _, _)| *seq);
    let mut decoded = Vec::with_capacity(batches.len());
    for (_, base, batch) in batches {
        let mut batch = batch.map_err(|e| rebase_error(base, e))?;
        for pos in &mut batch.node_positions {
            *pos = rebase(base, *pos);
        }
        decoded.push(batch);
    }
    match shape {
        ListShape::List { meta } => Ok(Recorded {
            batches: decoded,
            server_version: meta.server_version(),
        }),
        ListShape::Single { start, end } => {
            let text = &input.buf[start..end];
            let base = input.pos_at(start);
            let object = decode_item(file, text, None).map_err(|e| rebase_error(base, e))?;
            let node_positions = match object {
                Object::Node(_) => vec![base],
                _ => Vec::new(),
            };
            Ok(Recorded {
                batches: vec![DecodedBatch {
                    objects: vec![object],
                    node_positions,
                }],
                server_version: None,
            })
        }
    }
}

fn rebase_error(base: Pos, error: LoadError) -> LoadError {
    match error {
        LoadError::Syntax { file, pos, message } => LoadError::Syntax {
            file,
            pos: rebase(base, pos),
            message,
        },
        LoadError::Decode {
            file,
            pos,
            path,
            message,
        } => LoadError::Decode {
            file,
            pos: rebase(base, pos),
            path,
            message,
        },
        io => io,
    }
}

/// What the top-level object turned out to be.
enum ListShape {
    /// Its `items` were sent to the decoders; its `metadata`.
    List { meta: ListMeta },
    /// One object, at `buf[start..end]`.
    Single { start: usize, end: usize },
}

/// Walk the top-level object: stream the items of its `items` array to the decoders, skip the
/// other fields, remembering `kind` and `metadata`.
fn split_list<R: Read>(
    input: &mut Input<'_, R>,
    to_workers: &mpsc::SyncSender<Batch>,
) -> Result<ListShape, LoadError> {
    const EOF_OBJECT: &str = "EOF while parsing an object";
    let object_start = input
        .skip_whitespace(input.start)?
        .expect("the caller saw the `{`");
    let mut kind: Option<String> = None;
    let mut meta = ListMeta::default();
    // Where the `items` array was, once it was streamed.
    let mut items_pos = None;
    let mut at = object_start + 1;
    let mut first_field = true;
    let object_end = loop {
        let Some(next) = input.skip_whitespace(at)? else {
            return Err(input.syntax(input.buf.len(), EOF_OBJECT));
        };
        at = next;
        if input.buf[at] == b'}' {
            break at + 1;
        }
        if !first_field {
            if input.buf[at] != b',' {
                return Err(input.syntax(at, "expected `,` or `}`"));
            }
            at = input
                .skip_whitespace(at + 1)?
                .ok_or_else(|| input.syntax(input.buf.len(), EOF_OBJECT))?;
        }
        first_field = false;
        if input.buf[at] != b'"' {
            return Err(input.syntax(at, "key must be a string"));
        }
        let (key_start, key_end) = input.value_at(at, EOF_OBJECT)?;
        at = key_start;
        let key: String = serde_json::from_slice(&input.buf[at..key_end])
            .map_err(|e| input.syntax(at, &json_message(&e)))?;
        let key_pos = (key == "items").then(|| input.pos_at(key_start));
        at = input
            .skip_whitespace(key_end)?
            .ok_or_else(|| input.syntax(input.buf.len(), EOF_OBJECT))?;
        if input.buf[at] != b':' {
            return Err(input.syntax(at, "expected `:`"));
        }
        at = input
            .skip_whitespace(at + 1)?
            .ok_or_else(|| input.syntax(input.buf.len(), EOF_OBJECT))?;
        if key_pos.is_some() && input.buf[at] == b'[' && items_pos.is_none() {
            items_pos = key_pos;
            at = stream_items(input, at, to_workers)?;
            continue;
        }
        let (start, end) = input.value_at(at, EOF_OBJECT)?;
        at = start;
        if key == "kind" {
            kind = serde_json::from_slice::<Option<String>>(&input.buf[at..end])
                .map_err(|e| input.syntax(at, &json_message(&e)))?;
        }
        if key == "metadata" {
            // A List's metadata that is not an object is kubectl's error too.
            meta = serde_json::from_slice::<Option<ListMeta>>(&input.buf[at..end])
                .map_err(|e| input.syntax(at, &format!("metadata: {}", json_message(&e))))?
                .unwrap_or_default();
        }
        at = end;
    };
    if let Some(trailing) = input.skip_whitespace(object_end)? {
        return Err(input.syntax(trailing, "trailing characters"));
    }
    let is_list = kind.as_deref().is_some_and(|k| k.ends_with("List"));
    let Some(items_pos) = items_pos else {
        return Ok(ListShape::Single {
            start: object_start,
            end: object_end,
        });
    };
    if !is_list {
        return Err(LoadError::Syntax {
            file: input.file.to_string(),
            pos: items_pos,
            message: format!(
                "a top-level `items` array in an object of kind {:?}: expected a List",
                kind.unwrap_or_default()
            ),
        });
    }
    Ok(ListShape::List { meta })
}

/// Split the array starting at `buf[at]` into items and send them in batches; returns the
/// index after the closing `]`.
///
/// A batch is every whole item the buffer holds when the next one needs more bytes: the
/// buffer itself goes to a decoder and only the unfinished rest is copied into a new one, so
/// the text is not copied on its way to the decoders (copying it was 5% of a load).
fn stream_items<R: Read>(
    input: &mut Input<'_, R>,
    at: usize,
    to_workers: &mpsc::SyncSender<Batch>,
) -> Result<usize, LoadError> {
    let mut at = at + 1;
    let mut index = 0;
    let mut seq = 0;
    // Whole items not sent yet, as ranges of the buffer.
    let mut pending: Vec<(usize, usize)> = Vec::new();
    loop {
        match next_list_item(&input.buf, at, index > 0) {
            ListStep::Item(start, end) => {
                pending.push((start, end));
                index += 1;
                at = end;
            }
            ListStep::Invalid(bad, message) => return Err(input.syntax(bad, message)),
            ListStep::Closing(closing) => {
                if pending.is_empty() {
                    return Ok(closing + 1);
                }
                let shipped = send_items(input, &mut pending, &mut seq, index, to_workers);
                return Ok(closing - shipped + 1);
            }
            ListStep::NeedMore if input.eof => return Err(list_ended(input, at)),
            ListStep::NeedMore if !pending.is_empty() => {
                at -= send_items(input, &mut pending, &mut seq, index, to_workers);
            }
            ListStep::NeedMore => {
                // Keep what is not consumed, and read at least as much again: an item
                // larger than a block is scanned again from its start, in linear time.
                input.start = at;
                input.fill(input.buf.len() - at)?;
                at = input.start;
            }
        }
    }
}

/// The error for a list whose input ends at `buf[at..]`: what the input ended in, as the
/// scanner of single values says it.
fn list_ended<R: Read>(input: &mut Input<'_, R>, at: usize) -> LoadError {
    const EOF_LIST: &str = "EOF while parsing a list";
    let ended = |input: &Input<'_, R>| input.syntax(input.buf.len(), EOF_LIST);
    let value = match input.skip_whitespace(at) {
        Ok(Some(at)) if input.buf[at] == b',' => input.skip_whitespace(at + 1),
        other => other,
    };
    match value {
        Ok(Some(at)) => match input.value_at(at, EOF_LIST) {
            Err(error) => error,
            Ok(_) => ended(input),
        },
        Ok(None) => ended(input),
        Err(error) => error,
    }
}

/// One step through a list's items, on the bytes buffered so far.
enum ListStep {
    /// An item at `buf[start..end]`.
    Item(usize, usize),
    /// The closing `]`, at this index.
    Closing(usize),
    /// The buffer ends before the next item or the `]` does.
    NeedMore,
    Invalid(usize, &'static str),
}

/// The next item of a list from `buf[at]`, after a `,` unless it is the first.
fn next_list_item(buf: &[u8], at: usize, after_first: bool) -> ListStep {
    let skip = |mut at: usize| {
        while at < buf.len() && buf[at].is_ascii_whitespace() {
            at += 1;
        }
        (at < buf.len()).then_some(at)
    };
    let Some(mut at) = skip(at) else {
        return ListStep::NeedMore;
    };
    if buf[at] == b']' {
        return ListStep::Closing(at);
    }
    if after_first {
        if buf[at] != b',' {
            return ListStep::Invalid(at, "expected `,` or `]`");
        }
        match skip(at + 1) {
            Some(next) => at = next,
            None => return ListStep::NeedMore,
        }
    }
    match scan_value(buf, at) {
        Scan::End(end) => ListStep::Item(at, end),
        Scan::Unfinished => ListStep::NeedMore,
        Scan::Invalid(bad) => ListStep::Invalid(bad, "expected value"),
    }
}

/// Send the pending items: the buffer up to the last of them goes to a decoder, what follows
/// it stays as the new buffer. Returns how far the buffer's indexes moved.
fn send_items<R: Read>(
    input: &mut Input<'_, R>,
    pending: &mut Vec<(usize, usize)>,
    seq: &mut usize,
    index: usize,
    to_workers: &mpsc::SyncSender<Batch>,
) -> usize {
    let end = pending.last().map_or(0, |&(_, end)| end);
    let pos = input.pos;
    let next_pos = input.advance_to(end);
    let mut rest = Vec::with_capacity((input.buf.len() - end) + input.sizes.block);
    rest.extend_from_slice(&input.buf[end..]);
    let mut bytes = std::mem::replace(&mut input.buf, rest);
    bytes.truncate(end);
    input.offset += end as u64;
    input.pos = next_pos;
    input.start = 0;
    input.mark = (0, next_pos);
    let batch = Batch {
        seq: *seq,
        first_index: index - pending.len(),
        pos,
        bytes,
        items: std::mem::take(pending),
    };
    *seq += 1;
    // Workers only stop once the list is split: a send cannot fail here.
    let _ = to_workers.send(batch);
    end
}

fn decode_batch(file: &str, batch: &Batch) -> Decoded {
    // The vectorised check: the scalar one was 3% of a load.
    if let Err(e) = simdutf8::compat::from_utf8(&batch.bytes) {
        return Err(LoadError::Syntax {
            file: file.to_string(),
            pos: position_at(&batch.bytes, e.valid_up_to()),
            message: "invalid UTF-8; expected a JSON or YAML state".into(),
        });
    }
    let mut objects = Vec::with_capacity(batch.items.len());
    let mut node_positions = Vec::new();
    let mut pos = Pos { line: 1, column: 1 };
    let mut last = 0;
    for (i, &(start, end)) in batch.items.iter().enumerate() {
        pos = advance(pos, &batch.bytes[last..start]);
        last = start;
        let object = decode_item(file, &batch.bytes[start..end], Some(batch.first_index + i))
            .map_err(|e| rebase_error(pos, e))?;
        if matches!(object, Object::Node(_)) {
            node_positions.push(pos);
        }
        objects.push(object);
    }
    Ok(DecodedBatch {
        objects,
        node_positions,
    })
}

/// Decode one object; `index` is its place in the list, if it is a list item. Errors are
/// positioned relative to the item's first byte.
fn decode_item(file: &str, item: &[u8], index: Option<usize>) -> Result<Object, LoadError> {
    decode_json_object(item).map_err(|(path, message)| {
        let (message, pos) = split_json_position(&message, Pos { line: 1, column: 1 });
        LoadError::Decode {
            file: file.to_string(),
            pos,
            path: match index {
                Some(index) => format!("items[{index}].{path}"),
                None => path,
            },
            message,
        }
    })
}

/// serde_json's message without the " at line L column C" it appends.
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    text.split(" at line ").next().unwrap_or("").to_string()
}

/// serde_json appends " at line L column C" (relative to the item) to its messages; turn that
/// into a position in the whole file.
fn split_json_position(message: &str, item_start: Pos) -> (String, Pos) {
    let Some((text, at)) = message.rsplit_once(" at line ") else {
        return (message.to_string(), item_start);
    };
    let Some((line, column)) = at.split_once(" column ") else {
        return (message.to_string(), item_start);
    };
    let (Ok(line), Ok(column)) = (line.parse::<usize>(), column.parse::<usize>()) else {
        return (message.to_string(), item_start);
    };
    (text.to_string(), rebase(item_start, Pos { line, column }))
}

fn parse_yaml(file: &str, bytes: Vec<u8>) -> Result<DecodedBatch, LoadError> {
    // Checked with SIMD as the JSON batches are: on one core, before the pieces spread out.
    let text = simdutf8::compat::from_utf8(&bytes).map_err(|e| LoadError::Syntax {
        file: file.to_string(),
        pos: position_at(&bytes, e.valid_up_to()),
        message: "invalid UTF-8; expected a JSON or YAML state".into(),
    })?;
    super::yaml_state::parse(file, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON_LIST: &str = r#"{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}},
     "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "team"},
     "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]},
     "status": {"phase": "Running"}}
  ]
}"#;

    /// A List's metadata may record the API server's version (a snapshot writes it); a state
    /// read from the file, or from its cache, keeps it. Items' own annotations do not count.
    #[test]
    fn a_lists_server_version_annotation_is_the_states_server_version() {
        let node = r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}"#;
        let annotated = |version: &str| {
            format!(r#"{{"annotations": {{"{SERVER_VERSION_ANNOTATION}": "{version}"}}}}"#)
        };
        let cases = [
            (
                "s.json",
                format!(
                    r#"{{"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [{node}]}}"#,
                    annotated("v1.36.2")
                ),
                Some("v1.36.2"),
            ),
            // After the items, as other tools may write it.
            (
                "s.json",
                format!(
                    r#"{{"kind": "List", "items": [{node}], "metadata": {}}}"#,
                    annotated("v1.35.0")
                ),
                Some("v1.35.0"),
            ),
            (
                "s.json",
                format!(r#"{{"kind": "List", "metadata": {{}}, "items": [{node}]}}"#),
                None,
            ),
            (
                "s.yaml",
                format!(
                    "apiVersion: v1\nkind: List\nmetadata:\n  annotations:\n    {SERVER_VERSION_ANNOTATION}: v1.37.0\nitems:\n- {node}\n"
                ),
                Some("v1.37.0"),
            ),
            // kubectl's own dump: no version.
            (
                "s.yaml",
                format!(
                    "apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n- {node}\n"
                ),
                None,
            ),
            // A pod's annotation of the same key is the pod's.
            (
                "s.json",
                format!(
                    r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "p", "annotations": {{"{SERVER_VERSION_ANNOTATION}": "v1.33.0"}}}}}}"#
                ),
                None,
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        for (name, text, want) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, &text).unwrap();
            let paths = [path.display().to_string()];
            let from_file = load_files(&paths).unwrap();
            assert_eq!(from_file.server_version.as_deref(), want, "{text}");
            let options = LoadOptions {
                use_cache: true,
                ..LoadOptions::default()
            };
            let written = load_files_with(&paths, options).unwrap();
            let from_cache = load_files_with(&paths, options).unwrap();
            assert!(from_cache.warnings.is_empty(), "{:?}", from_cache.warnings);
            assert_eq!(written.server_version.as_deref(), want, "{text}");
            assert_eq!(from_cache.server_version.as_deref(), want, "cached: {text}");
        }
    }

    #[test]
    fn json_and_yaml_lists_give_the_same_objects() {
        let from_json = parse_state("s.json", JSON_LIST.as_bytes()).unwrap();
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    labels: {zone: a}\n  status:\n    allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p1, namespace: team}\n  spec:\n    nodeName: n1\n    containers:\n    - name: c\n      resources: {requests: {cpu: 500m}}\n  status: {phase: Running}\n";
        let from_yaml = parse_state("s.yaml", yaml.as_bytes()).unwrap();
        assert_eq!(from_json, from_yaml);
        assert_eq!(from_json.len(), 2);
    }

    /// Today's loader before streaming: one buffer, every item decoded in order on one thread.
    /// Kept as the oracle the streaming loader is compared with.
    fn whole_buffer_parse(file: &str, text: &str) -> Result<Vec<Object>, LoadError> {
        #[derive(serde::Deserialize)]
        struct Shape<'a> {
            #[serde(default)]
            kind: String,
            #[serde(borrow, default)]
            items: Option<Vec<&'a serde_json::value::RawValue>>,
        }
        if !text.trim_start().starts_with('{') {
            let (manifests, mut problems) =
                df_manifest::parse_text(&std::sync::Arc::from(file), text);
            return match problems.is_empty() {
                true => Ok(manifests.into_iter().map(|m| m.object).collect()),
                false => Err(problems.swap_remove(0)),
            };
        }
        let shape: Shape<'_> = serde_json::from_str(text).map_err(|e| LoadError::Syntax {
            file: file.to_string(),
            pos: Pos {
                line: e.line(),
                column: e.column(),
            },
            message: json_message(&e),
        })?;
        let items: Vec<&str> = match shape.items {
            Some(items) if shape.kind.ends_with("List") => items.iter().map(|r| r.get()).collect(),
            _ => vec![text],
        };
        let single = items.len() == 1 && items[0].len() == text.len();
        let mut objects = Vec::new();
        for (index, item) in items.into_iter().enumerate() {
            let offset = item.as_ptr() as usize - text.as_ptr() as usize;
            let object = decode_item(file, item.as_bytes(), (!single).then_some(index))
                .map_err(|e| rebase_error(position_at(text.as_bytes(), offset), e))?;
            objects.push(object);
        }
        Ok(objects)
    }

    /// Sizes so small that items straddle reads and batches, to exercise every seam.
    const TINY: Sizes = Sizes { block: 61 };

    fn streamed(file: &str, text: &str, sizes: Sizes) -> Result<Vec<Object>, String> {
        read_batches(file, text.as_bytes(), None, LoadOptions::default(), sizes)
            .map(|recorded| {
                recorded
                    .batches
                    .into_iter()
                    .flat_map(|b| b.objects)
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    /// Every state the project ships (JSON and YAML) and generated ones, compact and
    /// pretty-printed, valid and broken at several places: the streaming loader (JSON batches,
    /// YAML pieces) gives exactly what the whole-buffer loader gave, objects or error, whatever
    /// the read and batch sizes.
    #[test]
    fn streaming_loader_matches_the_whole_buffer_loader() {
        let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/clusters");
        let mut states: Vec<(String, String)> = std::fs::read_dir(shipped)
            .unwrap()
            .map(|entry| {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(path).unwrap())
            })
            .collect();
        states.sort();
        assert_eq!(states.len(), 12, "every shipped state");
        let spec = df_synth::SynthSpec {
            seed: 3,
            nodes: 20,
            pods: 300,
            namespaces: 3,
        };
        let mut realistic = Vec::new();
        df_synth::write_cluster_json(&spec, df_synth::Detail::Realistic, &mut realistic).unwrap();
        let realistic = String::from_utf8(realistic).unwrap();
        let value: serde_json::Value = serde_json::from_str(&realistic).unwrap();
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        states.push(("slim.json".into(), df_synth::cluster_json(&spec)));
        states.push(("realistic.json".into(), realistic));
        // Broken copies: a bad quantity deep in the file, a truncated file, a missing comma,
        // a wrong type, and invalid UTF-8 in a string.
        let breakages = [
            ("\"cpu\": \"250m\"", "\"cpu\": \"lots\""),
            ("\"nodeName\": \"", "\"nodeName\": 7, \"x\": \""),
            (
                "},\n    {\n      \"apiVersion\": \"v1\",\n      \"kind\": \"Pod\"",
                "}\n    {\n      \"apiVersion\": \"v1\",\n      \"kind\": \"Pod\"",
            ),
            ("\"kind\": \"Namespace\"", "\"kind\": [1]"),
        ];
        for (from, to) in breakages {
            assert!(pretty.contains(from), "{from}");
            states.push((format!("broken {to}"), pretty.replacen(from, to, 1)));
        }
        states.push((
            "truncated.json".into(),
            pretty[..pretty.len() / 2].to_string(),
        ));
        states.push(("pretty.json".into(), pretty));
        states.push((
            "single.json".into(),
            r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}"#.into(),
        ));
        states.push((
            "empty-list.json".into(),
            r#"{"kind": "List", "items": []}"#.into(),
        ));
        let mut errors = 0;
        for (name, text) in &states {
            let expected = whole_buffer_parse(name, text).map_err(|e| e.to_string());
            errors += usize::from(expected.is_err());
            for sizes in [Sizes::DEFAULT, TINY] {
                assert_eq!(streamed(name, text, sizes), expected, "{name} {sizes:?}");
            }
        }
        assert_eq!(errors, 5, "each broken copy fails");
    }

    /// Runs of newlines at and around the counter's run length count exactly.
    #[test]
    fn newlines_are_counted_across_runs() {
        for len in [0, 1, 254, 255, 256, 510, 511, 1000] {
            let all = vec![b'\n'; len];
            assert_eq!(count_newlines(&all), len);
            let every_third: Vec<u8> = (0..len)
                .map(|i| if i % 3 == 0 { b'\n' } else { b'x' })
                .collect();
            assert_eq!(count_newlines(&every_third), len.div_ceil(3));
        }
        assert_eq!(
            advance(Pos { line: 4, column: 7 }, b"ab\ncd\nefg"),
            Pos { line: 6, column: 4 }
        );
        assert_eq!(
            advance(Pos { line: 4, column: 7 }, b"abc"),
            Pos {
                line: 4,
                column: 10
            }
        );
    }

    #[test]
    fn structure_errors_are_positioned() {
        let cases = [
            (
                "{\"kind\": \"List\", \"items\": [}",
                "s.json:1:28: expected value",
            ),
            (
                "{\"kind\": \"List\", \"items\": [{}",
                "s.json:1:29: EOF while parsing a list",
            ),
            (
                "{\"kind\": \"List\", \"items\": [{} {}]}",
                "s.json:1:31: expected `,` or `]`",
            ),
            (
                "{\"kind\": \"List\"\n \"items\": []}",
                "s.json:2:2: expected `,` or `}`",
            ),
            (
                "{\"kind\": \"List\", \"items\": []} x",
                "s.json:1:31: trailing characters",
            ),
            (
                "{\"kind\": \"Pod\", \"items\": []}",
                "s.json:1:17: a top-level `items` array in an object of kind \"Pod\": expected a List",
            ),
        ];
        for (text, expected) in cases {
            for sizes in [Sizes::DEFAULT, TINY] {
                assert_eq!(
                    streamed("s.json", text, sizes).unwrap_err(),
                    expected,
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn two_nodes_with_one_name_are_an_error_naming_both() {
        let json = "{\"kind\": \"List\", \"items\": [\n{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}},\n{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n2\"}},\n  {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n1\"}}]}";
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n";
        let cases = [
            (
                json,
                "s:4:3: metadata.name: node \"n1\" is listed twice in one state, here and at s:2:1",
            ),
            (
                yaml,
                "s:11:11: metadata.name: node \"n1\" is listed twice in one state, here and at s:7:11",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                parse_state("s", text.as_bytes()).unwrap_err().to_string(),
                expected
            );
        }
    }

    /// A state larger than the limit is refused once the limit is passed, however long the
    /// input would go on (an endless text; `/dev/zero` stops earlier, at its first NUL byte).
    #[test]
    fn states_beyond_the_size_limit_are_refused() {
        let options = LoadOptions {
            max_bytes: 1_000,
            ..LoadOptions::default()
        };
        let endless = std::io::repeat(b' ');
        let err = read_batches("zero", endless, None, options, TINY)
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "zero: the state is larger than the limit of 1000 bytes"
        );
        let small = JSON_LIST.as_bytes();
        assert_eq!(read_state("s", small, options).unwrap().len(), 2);
    }

    /// A YAML state is read into one buffer of the file's length; a length that is wrong (the
    /// file changed since it was opened) reads the same objects, and the size limit holds.
    #[test]
    fn yaml_read_by_the_file_length_reads_every_byte_once() {
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: '4'}}\n";
        let len = yaml.len() as u64;
        let too_large = |max_bytes| format!("s: {STATE_TOO_LARGE} {max_bytes} bytes");
        let limit = |max_bytes| LoadOptions {
            max_bytes,
            ..LoadOptions::default()
        };
        let cases = [
            (Some(len), limit(len), Ok(1)),
            (Some(len - 40), limit(len), Ok(1)),
            (Some(len + 40), limit(len + 40), Ok(1)),
            (Some(0), limit(len), Ok(1)),
            (None, limit(len), Ok(1)),
            (Some(len - 40), limit(len - 1), Err(too_large(len - 1))),
            (Some(u64::MAX), limit(len), Err(too_large(len))),
            (Some(len), limit(len - 1), Err(too_large(len - 1))),
        ];
        for sizes in [TINY, Sizes::DEFAULT] {
            for (length, options, expected) in &cases {
                let read = read_batches("s", yaml.as_bytes(), *length, *options, sizes);
                let got = read.map(|r| r.objects().len()).map_err(|e| e.to_string());
                assert_eq!(&got, expected, "{length:?} {sizes:?}");
            }
        }
    }

    #[test]
    fn json_errors_point_at_the_item_and_field() {
        let broken = JSON_LIST.replace("\"500m\"", "\"five\"");
        let err = parse_state("s.json", broken.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.json:8:101: items[1].spec.containers[0].resources.requests.cpu: invalid quantity \"five\": expected a number"
        );
        let err = parse_state("s.json", b"{\"kind\": \"List\", \"items\": [}").unwrap_err();
        assert_eq!(err.to_string(), "s.json:1:28: expected value");
    }
}
