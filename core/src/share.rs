//! Sharing a scenario in an address: `#kzs=TEXT`, where TEXT is the
//! scenario's UTF-8 text in base64url without padding (ui-contract.md).
//! Untrusted input: every failure is an error a learner can read.

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

/// The scenario text a `#kzs` value carries: base64url, then UTF-8.
pub fn scenario_from_kzs(value: &str) -> Result<String, String> {
    let bytes = decode_base64url(value)?;
    String::from_utf8(bytes).map_err(|e| {
        format!("the #kzs value decodes to bytes that are not UTF-8 text (byte {} is invalid)", e.utf8_error().valid_up_to() + 1)
    })
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
}
