//! Where a JSON value ends, found without decoding it: the reader cuts a state's `items` into
//! whole items this way, on the one thread that reads the file, so this scan is on the critical
//! path of every load.
//!
//! Only brackets are matched and strings skipped: the decoder checks the value itself. A
//! container is scanned 64 bytes at a time from masks of its quotes and brackets (SSE2, which
//! every x86-64 has), the way simdjson finds structure: bytes inside strings are those after an
//! odd number of quotes, a prefix XOR of the quote mask. A chunk holding a backslash, whose
//! escapes the masks do not follow, and the last partial chunk are scanned a byte at a time
//! with the same state, so both ways give the same end.

/// How a scan from a value's first byte ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scan {
    /// The value ends before this index.
    End(usize),
    /// The buffer ends inside the value.
    Unfinished,
    /// The byte at this index cannot start a value.
    Invalid(usize),
}

/// Find the end of the value starting at `bytes[at]`.
pub(super) fn scan_value(bytes: &[u8], at: usize) -> Scan {
    let Some(&first) = bytes.get(at) else {
        return Scan::Unfinished;
    };
    let end = match first {
        b'{' | b'[' => container_end(bytes, at),
        b'"' => string_end(bytes, at + 1),
        // A scalar ends at the first delimiter; the decoder checks its spelling.
        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => bytes[at..]
            .iter()
            .position(|b| matches!(b, b',' | b']' | b'}') || b.is_ascii_whitespace())
            .map(|len| at + len),
        _ => return Scan::Invalid(at),
    };
    end.map_or(Scan::Unfinished, Scan::End)
}

/// The index after the closing quote of a string whose body starts at `at`.
pub(super) fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let i = at + memchr::memchr2(b'"', b'\\', &bytes[at..])?;
        if bytes[i] == b'"' {
            return Some(i + 1);
        }
        // An escape: skip the backslash and the escaped byte.
        at = i + 2;
        if at > bytes.len() {
            return None;
        }
    }
}

const CHUNK: usize = 64;

/// The index after the bracket closing the one at `bytes[at]`.
fn container_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut scan = Nesting::default();
    let mut i = at;
    while let Some(chunk) = bytes.get(i..i + CHUNK) {
        let found = match Masks::of(chunk) {
            Some(masks) if masks.backslash == 0 && !scan.escaped => scan.masks(&masks),
            _ => scan.bytes(chunk),
        };
        if let Some(end) = found {
            return Some(i + end);
        }
        i += CHUNK;
    }
    scan.bytes(&bytes[i..]).map(|end| i + end)
}

/// A scan's state between chunks.
#[derive(Debug, Default)]
struct Nesting {
    depth: usize,
    in_string: bool,
    /// The previous byte was a backslash inside a string.
    escaped: bool,
}

impl Nesting {
    /// Scan `chunk` a byte at a time: the index after the bracket that closes the outermost
    /// one, if the chunk holds it.
    fn bytes(&mut self, chunk: &[u8]) -> Option<usize> {
        for (k, &byte) in chunk.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match byte {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(k + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The same as [`Nesting::bytes`] for a whole chunk without backslashes, from its masks.
    fn masks(&mut self, masks: &Masks) -> Option<usize> {
        let carried = if self.in_string { u64::MAX } else { 0 };
        // Set from an opening quote up to (not including) its closing quote.
        let inside = prefix_xor(masks.quote) ^ carried;
        self.in_string = inside >> (CHUNK - 1) == 1;
        let opens = masks.open & !inside;
        let closes = masks.close & !inside;
        if self.depth > closes.count_ones() as usize {
            // Cannot reach the outermost bracket's close in this chunk.
            self.depth = self.depth + opens.count_ones() as usize - closes.count_ones() as usize;
            return None;
        }
        let mut brackets = opens | closes;
        while brackets != 0 {
            let k = brackets.trailing_zeros() as usize;
            if opens >> k & 1 == 1 {
                self.depth += 1;
            } else {
                self.depth -= 1;
                if self.depth == 0 {
                    return Some(k + 1);
                }
            }
            brackets &= brackets - 1;
        }
        None
    }
}

/// Bit `k` of `x`'s prefix XOR is the XOR of its bits `0..=k`.
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Bit `k` set where byte `k` of a 64-byte chunk is a quote, a backslash, an opening or a
/// closing bracket.
#[derive(Debug, Default)]
struct Masks {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
}

impl Masks {
    /// The masks of a 64-byte chunk; `None` where no vector unit is used.
    #[cfg(target_arch = "x86_64")]
    fn of(chunk: &[u8]) -> Option<Masks> {
        assert_eq!(chunk.len(), CHUNK);
        // SAFETY: SSE2 is part of every x86-64, so the function's target feature is there.
        Some(unsafe { Masks::of_sse2(chunk) })
    }

    /// # Safety
    /// `chunk` holds at least 64 bytes.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    unsafe fn of_sse2(chunk: &[u8]) -> Masks {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        #[target_feature(enable = "sse2")]
        fn bits(v: __m128i, byte: u8) -> u64 {
            u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))) as u16)
        }
        let mut masks = Masks::default();
        for part in 0..CHUNK / 16 {
            // SAFETY: the 16 bytes at `part * 16` are in the chunk; the load takes unaligned
            // addresses.
            let v = unsafe { _mm_loadu_si128(chunk.as_ptr().add(part * 16).cast()) };
            // `{` and `[` differ only in bit 5, as do `}` and `]`: one comparison each.
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let shift = part * 16;
            masks.quote |= bits(v, b'"') << shift;
            masks.backslash |= bits(v, b'\\') << shift;
            masks.open |= bits(folded, b'{') << shift;
            masks.close |= bits(folded, b'}') << shift;
        }
        masks
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(_chunk: &[u8]) -> Option<Masks> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The byte-at-a-time scan alone: what the chunked scan must agree with.
    fn reference_end(bytes: &[u8], at: usize) -> Option<usize> {
        Nesting::default().bytes(&bytes[at..]).map(|end| at + end)
    }

    /// `filler` repeated to push the interesting part across chunk boundaries.
    fn padded(filler: &str, times: usize, rest: &str) -> String {
        format!("{}{rest}", filler.repeat(times))
    }

    #[test]
    fn ends_of_values() {
        let long_string = format!("\"{}\"", "x".repeat(200));
        let escapes_at_a_boundary = format!("{{\"{}\\\"}}\": 1}} ", "a".repeat(61));
        let cases: Vec<(String, Scan)> = vec![
            ("{}".into(), Scan::End(2)),
            ("[1, 2] ,".into(), Scan::End(6)),
            ("\"a\\\"b\" x".into(), Scan::End(6)),
            ("true,".into(), Scan::End(4)),
            ("-12]".into(), Scan::End(3)),
            ("12".into(), Scan::Unfinished),
            ("x".into(), Scan::Invalid(0)),
            ("".into(), Scan::Unfinished),
            ("{\"a\": [1, {\"b\": \"}]\"}]".into(), Scan::Unfinished),
            (format!("{{\"k\": {long_string}}},"), Scan::End(209)),
            (
                format!("{{\"k\": {}}}", padded("[", 70, &"]".repeat(70))),
                Scan::End(147),
            ),
            (
                escapes_at_a_boundary.clone(),
                Scan::End(escapes_at_a_boundary.len() - 1),
            ),
            (format!("{{{}\"\\\\\"}} ", " ".repeat(62)), Scan::End(68)),
        ];
        for (text, expected) in cases {
            assert_eq!(scan_value(text.as_bytes(), 0), expected, "{text}");
        }
    }

    /// Text of brackets, quotes, backslashes and filler after `start` spaces and an opening.
    fn case() -> impl Strategy<Value = (Vec<u8>, u8, usize)> {
        (
            proptest::collection::vec(
                // Mostly filler and openings, so that values run across several chunks.
                prop_oneof![
                    3 => Just(b'{'), 2 => Just(b'}'), 3 => Just(b'['), 2 => Just(b']'),
                    2 => Just(b'"'), 1 => Just(b'\\'), 8 => Just(b' '), 8 => Just(b'a'),
                    1 => Just(b'\n'),
                ],
                0..600,
            ),
            prop_oneof![Just(b'{'), Just(b'[')],
            0usize..64,
        )
    }

    /// Where the value ends, if it does, once both scans agree.
    fn check((body, open, start): &(Vec<u8>, u8, usize)) -> Result<Option<usize>, TestCaseError> {
        let mut bytes = vec![b' '; *start];
        bytes.push(*open);
        bytes.extend(body);
        let end = reference_end(&bytes, *start);
        prop_assert_eq!(container_end(&bytes, *start), end);
        Ok(end.map(|end| end - start))
    }

    proptest! {
        /// The chunked scan ends where the byte scan does, from any start.
        #[test]
        fn chunked_scan_agrees_with_the_byte_scan(case in case()) {
            check(&case)?;
        }
    }

    /// The property is not vacuous: of 128 cases drawn with a fixed seed, many values end (the
    /// scans agree on a position, not only on "unfinished"), a few only past the first 64-byte
    /// chunk (3 of 128: the generated values mostly close within it), and many run to the end
    /// of the text unfinished, through every chunk.
    #[test]
    fn the_generated_values_end_across_chunks() {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
        let mut runner = TestRunner::new_with_rng(
            ProptestConfig::default(),
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        );
        let n = 128;
        let (mut ended, mut long, mut unfinished) = (0, 0, 0);
        for _ in 0..n {
            let case = case().new_tree(&mut runner).unwrap().current();
            match check(&case).unwrap_or_else(|e| panic!("{e}: {case:?}")) {
                Some(length) => {
                    ended += 1;
                    long += usize::from(length > 64);
                }
                None => unfinished += 1,
            }
        }
        eprintln!("ended {ended}, past a chunk {long}, unfinished {unfinished} of {n}");
        for (what, hits, min_percent) in [
            ("values that end", ended, 20),
            ("values that end past the first chunk", long, 2),
            ("values left unfinished", unfinished, 20),
        ] {
            assert!(hits * 100 >= n * min_percent, "{what}: {hits} of {n}");
        }
    }
}
