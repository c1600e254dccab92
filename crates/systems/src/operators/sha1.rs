//! SHA-1 as hex, the hash JobSet's `job-key` and LeaderWorkerSet's `group-key` and
//! `subgroup-key` are (upstream `sha1.Sum` of `"<namespace>/<name>"`): the keys their injected
//! affinity selects by, so they must be the cluster's exact values. Small enough to carry
//! rather than add a dependency for one function.

/// `sha1(text)` as 40 lowercase hex characters.
pub fn hex(text: &str) -> String {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut message = text.as_bytes().to_vec();
    let bits = (message.len() as u64).wrapping_mul(8);
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&bits.to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, word) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*word);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (state, add) in h.iter_mut().zip([a, b, c, d, e]) {
            *state = state.wrapping_add(add);
        }
    }
    h.iter().map(|word| format!("{word:08x}")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha1_matches_the_standard_vectors_and_upstream_keys() {
        // (input, digest): FIPS 180 vectors, then keys upstream tests assert (LWS
        // TestGenGroupUniqueKey: "default/test-sample", "leaderworkerset/test-sample").
        let cases = [
            ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
            ),
            (
                "default/test-sample",
                "95e88034e460983f51a9952fe128729fbc0663b5",
            ),
            (
                "leaderworkerset/test-sample",
                "39f5d7e9122b9d94d3932e3720b43fd3b56347e8",
            ),
        ];
        for (input, digest) in cases {
            assert_eq!(super::hex(input), digest, "{input:?}");
        }
    }
}
