//! `--state` of special files (issue 33): devices, pipes that never end, directories and
//! broken binary caches, each run under a 3 GB address-space limit (`ulimit -v 3000000`). The
//! binary answers with one clear line and exit 2, or reads on (a broken cache is only a
//! warning), and never aborts on an allocation sized from what the file claims.

use std::io::Write as _;
use std::path::Path;

use crate::input::{outcome_under, write};

/// The address space of the check, in KiB.
const ADDRESS_SPACE_KIB: u64 = 3_000_000;

const FLOW: &str = "testdata/flows/three-step.yaml";

fn plan_with_state(state: &str) -> (i32, String) {
    outcome_under(ADDRESS_SPACE_KIB, &["plan", "-f", FLOW, "--state", state])
}

/// A FIFO at `path` whose writer sends `head` and then `filler` forever, until the reader
/// closes it.
/// What an endless FIFO's writer sends: its head, then a filler byte forever.
type Writer = (&'static str, u8);

fn endless_fifo(path: &Path, head: &'static str, filler: u8) -> std::thread::JoinHandle<()> {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `name` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0, "mkfifo");
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let mut fifo = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        let block = vec![filler; 1 << 16];
        // The write fails (a broken pipe) once the binary has closed its end.
        if fifo.write_all(head.as_bytes()).is_ok() {
            while fifo.write_all(&block).is_ok() {}
        }
    })
}

#[test]
fn devices_pipes_and_directories_get_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let shown = |name: &str| dir.path().join(name).display().to_string();
    let cases: [(&str, Option<Writer>, String); 4] = [
        (
            "/dev/zero",
            None,
            "binary content (NUL byte) at line 1, column 1; expected a YAML or JSON state".into(),
        ),
        (
            "endless.yaml",
            Some(("apiVersion: v1\nitems:\n- ", b'a')),
            "the state does not fit in the memory this process may take (an endless pipe or \
             device?)"
                .into(),
        ),
        (
            "endless.json",
            Some(("{\"apiVersion\": \"v1\", \"items\": [\"", b'a')),
            "the state does not fit in the memory this process may take (an endless pipe or \
             device?)"
                .into(),
        ),
        (
            "a-directory",
            None,
            "a directory; expected a YAML or JSON state file".into(),
        ),
    ];
    std::fs::create_dir(dir.path().join("a-directory")).unwrap();
    for (name, fifo, message) in cases {
        let state = match name.starts_with('/') {
            true => name.to_string(),
            false => shown(name),
        };
        let writer = fifo.map(|(head, filler)| endless_fifo(Path::new(&state), head, filler));
        let got = plan_with_state(&state);
        assert_eq!(got, (2, format!("error: {state}: {message}\n")), "{name}");
        if let Some(writer) = writer {
            writer.join().unwrap();
        }
    }
}

/// The offset of the chunk count in a cache this build writes with no server version: after
/// the magic, the format, the version and its length, the fingerprint (size, modification
/// time, SHA-256), the pods' distinctness and the empty server version's length.
fn chunk_count_at() -> usize {
    8 + 4 + 4 + env!("CARGO_PKG_VERSION").len() + 8 + 16 + 32 + 1 + 4
}

/// A cache cut short or whose header claims more than the file holds is refused with a warning,
/// before any room is made for what it claims, and the state is read from its file.
#[test]
fn a_truncated_or_lying_cache_is_refused_before_anything_is_allocated_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("testdata/clusters/three-zone.yaml").unwrap();
    let state = write(dir.path(), "state.yaml", &text);
    let cache = format!("{state}.dfcache");
    let count = chunk_count_at();
    type Edit = fn(&mut Vec<u8>, usize);
    let cases: [(&str, Edit, &str); 4] = [
        ("cut short", |b, _| b.truncate(b.len() / 2), "cut short"),
        (
            "4 billion chunks",
            |b, at| b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes()),
            "cut short",
        ),
        (
            "a chunk of 16 EiB",
            |b, at| b[at + 4..at + 12].copy_from_slice(&u64::MAX.to_le_bytes()),
            "cut short",
        ),
        (
            "4 billion pods in a chunk",
            |b, at| b[at + 12..at + 16].copy_from_slice(&u32::MAX.to_le_bytes()),
            "more pods than a chunk can hold",
        ),
    ];
    let args = ["plan", "-f", FLOW, "--state", &state, "--state-cache"];
    let (code, written) = outcome_under(ADDRESS_SPACE_KIB, &args);
    assert_eq!((code, written.as_str()), (0, ""));
    let good = std::fs::read(&cache).unwrap();
    for (name, edit, reason) in cases {
        let mut bytes = good.clone();
        edit(&mut bytes, count);
        std::fs::write(&cache, bytes).unwrap();
        let expected = format!(
            "warning: {cache}: not a readable state cache ({reason}); read {state} and wrote the \
             cache anew\n"
        );
        assert_eq!(
            outcome_under(ADDRESS_SPACE_KIB, &args),
            (0, expected),
            "{name}"
        );
        assert_eq!(std::fs::read(&cache).unwrap(), good, "{name}: rewritten");
    }
}
