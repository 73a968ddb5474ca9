//! Sharing a scenario in an address: `#kzs=TEXT`, where TEXT is the
//! scenario's UTF-8 text in base64url without padding (ui-contract.md).
//!
//! Long scenarios are compressed (our extension, docs/sharing.md): the value
//! is then `~` followed by the base64url of a compressed payload. `~` is not
//! a base64url character, so every plain value keeps meaning what it meant.
//! The payload is a format byte (1), the text's length as a LEB128 varint,
//! then the text in the LZ4 block format (sequences of a token, literals, a
//! two-byte little-endian offset and a match length). LZ4 because its
//! decoder is short enough to check every bound. A commented scenario's
//! link gets a third shorter; a generated one (the same commands over and
//! over, as a big cluster needs) four to ten times shorter.
//!
//! Untrusted input: every failure is an error a learner can read.

use crate::scenario::parser::MAX_SCRIPT_BYTES;

/// Decodes base64url without padding (padding and the `+` `/` of plain
/// base64 are tolerated, since people paste both).
pub fn decode_base64url(encoded: &str) -> Result<Vec<u8>, String> {
    let encoded = encoded.trim_end_matches('=');
    if encoded.len() % 4 == 1 {
        return Err(format!("the #kzs value is {} characters long, which no base64url text is", encoded.len()));
    }
    let mut out = Vec::with_capacity(encoded.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in encoded.chars().enumerate() {
        let value = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '-' | '+' => 62,
            '_' | '/' => 63,
            _ => return Err(format!("character {} of the #kzs value, '{c}', is not base64url (A-Z a-z 0-9 - _)", i + 1)),
        };
        acc = (acc << 6) | value;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// base64url without padding.
pub fn encode_base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// The scenario text a `#kzs` value carries: base64url (after a `~`, of a
/// compressed payload), then UTF-8.
pub fn scenario_from_kzs(value: &str) -> Result<String, String> {
    let bytes = match value.strip_prefix('~').or_else(|| value.strip_prefix("%7E")).or_else(|| value.strip_prefix("%7e")) {
        Some(packed) => decompress(&decode_base64url(packed)?)?,
        None => decode_base64url(value)?,
    };
    String::from_utf8(bytes).map_err(|e| {
        format!("the #kzs value decodes to bytes that are not UTF-8 text (byte {} is invalid)", e.utf8_error().valid_up_to() + 1)
    })
}

/// Scenarios shorter than this stay plain base64url: a reader can decode
/// them with any tool, and compression would hardly pay.
pub const COMPRESS_FROM_BYTES: usize = 512;

/// The `#kzs` value for a scenario: plain base64url for a short text, `~`
/// and the compressed payload for a long one (when that is shorter).
pub fn kzs_value(text: &str) -> String {
    let plain = encode_base64url(text.as_bytes());
    if text.len() < COMPRESS_FROM_BYTES {
        return plain;
    }
    let packed = format!("~{}", encode_base64url(&compress(text.as_bytes())));
    if packed.len() < plain.len() {
        packed
    } else {
        plain
    }
}

const FORMAT_LZ4: u8 = 1;
const MIN_MATCH: usize = 4;
const MAX_OFFSET: usize = 65_535;
const HASH_BITS: u32 = 12;

/// Compresses `bytes` into the payload described in the module docs.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![FORMAT_LZ4];
    push_varint(&mut out, bytes.len() as u64);
    let mut table = vec![usize::MAX; 1 << HASH_BITS];
    let (mut anchor, mut i) = (0, 0);
    while i + MIN_MATCH <= bytes.len() {
        let h = hash4(&bytes[i..i + 4]);
        let candidate = std::mem::replace(&mut table[h], i);
        if candidate != usize::MAX && i - candidate <= MAX_OFFSET && bytes[candidate..candidate + 4] == bytes[i..i + 4] {
            let len = MIN_MATCH + bytes[i + 4..].iter().zip(&bytes[candidate + 4..]).take_while(|(a, b)| a == b).count();
            push_sequence(&mut out, &bytes[anchor..i], Some((i - candidate, len)));
            i += len;
            anchor = i;
        } else {
            i += 1;
        }
    }
    push_sequence(&mut out, &bytes[anchor..], None);
    out
}

/// Undoes [`compress`], checking every length and offset against the input
/// and the declared size (at most a scenario's largest, 16 MiB).
pub fn decompress(payload: &[u8]) -> Result<Vec<u8>, String> {
    let bad = |why: &str| format!("the compressed #kzs value is damaged: {why}");
    let (&format, mut rest) = payload.split_first().ok_or_else(|| bad("it is empty"))?;
    if format != FORMAT_LZ4 {
        return Err(bad(&format!("unknown format {format} (this app knows format {FORMAT_LZ4})")));
    }
    let declared = read_varint(&mut rest).ok_or_else(|| bad("its length is cut short"))?;
    if declared > MAX_SCRIPT_BYTES as u64 {
        return Err(format!("the compressed #kzs scenario says it is {declared} bytes long; the limit is {MAX_SCRIPT_BYTES}"));
    }
    let declared = declared as usize;
    let mut out: Vec<u8> = Vec::with_capacity(declared.min(1 << 20));
    loop {
        let (&token, tail) = rest.split_first().ok_or_else(|| bad("a sequence is missing"))?;
        rest = tail;
        let literals = read_length(&mut rest, usize::from(token >> 4)).ok_or_else(|| bad("a literal length is cut short"))?;
        if literals > rest.len() || out.len() + literals > declared {
            return Err(bad("a literal run is longer than the text"));
        }
        out.extend_from_slice(&rest[..literals]);
        rest = &rest[literals..];
        if rest.is_empty() {
            break;
        }
        let [lo, hi, tail @ ..] = rest else { return Err(bad("an offset is cut short")) };
        rest = tail;
        let offset = usize::from(u16::from_le_bytes([*lo, *hi]));
        let len = MIN_MATCH + read_length(&mut rest, usize::from(token & 15)).ok_or_else(|| bad("a match length is cut short"))?;
        if offset == 0 || offset > out.len() {
            return Err(bad("a match points before the start of the text"));
        }
        if out.len() + len > declared {
            return Err(bad("a match runs past the end of the text"));
        }
        let start = out.len() - offset;
        for k in 0..len {
            out.push(out[start + k]);
        }
    }
    if out.len() != declared {
        return Err(bad(&format!("it holds {} bytes, not the {declared} it declares", out.len())));
    }
    Ok(out)
}

fn hash4(four: &[u8]) -> usize {
    let v = u32::from_le_bytes([four[0], four[1], four[2], four[3]]);
    (v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
}

/// One LZ4 sequence: a token with both lengths' low nibbles, the literals,
/// then (unless it is the last) the match's offset and length.
fn push_sequence(out: &mut Vec<u8>, literals: &[u8], matched: Option<(usize, usize)>) {
    let lit = literals.len();
    let m = matched.map_or(0, |(_, len)| len - MIN_MATCH);
    out.push(((lit.min(15) as u8) << 4) | m.min(15) as u8);
    push_length(out, lit);
    out.extend_from_slice(literals);
    if let Some((offset, _)) = matched {
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        push_length(out, m);
    }
}

fn push_length(out: &mut Vec<u8>, n: usize) {
    if n < 15 {
        return;
    }
    let mut rest = n - 15;
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
}

fn read_length(rest: &mut &[u8], nibble: usize) -> Option<usize> {
    let mut n = nibble;
    if nibble == 15 {
        loop {
            let (&b, tail) = rest.split_first()?;
            *rest = tail;
            n = n.checked_add(usize::from(b))?;
            if b != 255 {
                break;
            }
        }
    }
    Some(n)
}

fn push_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(rest: &mut &[u8]) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, tail) = rest.split_first()?;
        *rest = tail;
        n |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(n);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_garbage() {
        let text = "zk-session a\nzk a create /x \"héllo\"\n";
        assert_eq!(scenario_from_kzs(&encode_base64url(text.as_bytes())).unwrap(), text);
        assert!(scenario_from_kzs("a").is_err());
        assert!(scenario_from_kzs("!!!!").unwrap_err().contains("not base64url"));
        assert!(scenario_from_kzs(&encode_base64url(&[0xff, 0xfe])).unwrap_err().contains("not UTF-8"));
    }

    #[test]
    fn long_scenarios_travel_compressed_and_short_ones_plain() {
        let short = "zk-session a\n";
        assert_eq!(kzs_value(short), encode_base64url(short.as_bytes()));
        let long = "zk-session a\n".to_string() + &"zk a create /app/n- hello ephemeral sequential\nexpect znode /app exists\n".repeat(60);
        let value = kzs_value(&long);
        assert!(value.starts_with('~'), "{}", &value[..20]);
        assert!(value.len() * 4 < encode_base64url(long.as_bytes()).len(), "{} bytes", value.len());
        assert_eq!(scenario_from_kzs(&value).unwrap(), long);
        assert_eq!(scenario_from_kzs(&format!("%7E{}", &value[1..])).unwrap(), long);
    }

    #[test]
    fn the_built_in_scenarios_shrink() {
        for (name, text) in [
            ("controller-failover", include_str!("../../static/scenarios/controller-failover.kzs")),
            ("config-change", include_str!("../../static/scenarios/config-change.kzs")),
            ("log-dir-failure", include_str!("../../static/scenarios/log-dir-failure.kzs")),
        ] {
            let (plain, packed) = (encode_base64url(text.as_bytes()).len(), kzs_value(text).len());
            eprintln!("{name}: {} bytes of text, #kzs {plain} plain, {packed} compressed", text.len());
            // Prose comments shrink little without entropy coding; a third off is the floor.
            assert!(packed * 4 < plain * 3, "{name}: {packed} vs {plain}");
        }
    }

    #[test]
    fn compression_round_trips_every_shape() {
        let mut texts: Vec<Vec<u8>> =
            vec![vec![], b"a".to_vec(), b"aaaa".to_vec(), vec![b'x'; 100_000], "中文 ✓ ".repeat(300).into_bytes()];
        let mut seed = 7u64;
        texts.push(
            (0..70_000)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    b"abc \n"[(seed >> 60) as usize % 5]
                })
                .collect(),
        );
        for text in texts {
            assert_eq!(decompress(&compress(&text)).unwrap(), text, "{} bytes", text.len());
        }
    }

    #[test]
    fn damaged_payloads_are_refused_with_a_reason() {
        let good = compress(b"zk-session a\nzk-session a\nzk-session a\n");
        assert!(decompress(&[]).unwrap_err().contains("empty"));
        assert!(decompress(&[9, 0]).unwrap_err().contains("unknown format 9"));
        assert!(decompress(&good[..good.len() - 3]).is_err());
        assert!(decompress(&[1, 0xff, 0xff, 0xff, 0xff, 0x7f]).unwrap_err().contains("the limit is"));
        // A match that points before the start: token 0x00 (no literals, match 4), offset 5.
        assert!(decompress(&[1, 4, 0x00, 5, 0]).unwrap_err().contains("before the start"));
        // A declared length the sequences do not fill.
        assert!(decompress(&[1, 9, 0x10, b'a']).unwrap_err().contains("not the 9"));
        assert!(scenario_from_kzs("~!!").unwrap_err().contains("base64url"));
    }
}
