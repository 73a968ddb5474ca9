//! Reading the page address (`ui-contract.md`, "Addresses").
//!
//! For now only `#kzs=TEXT`: a scenario carried in the fragment as base64url
//! of its UTF-8 text, without padding.

/// The scenario given as `#kzs=TEXT` in `fragment` (with or without the
/// leading `#`), if there is one: its text, or why it could not be read.
pub fn scenario_from_fragment(fragment: &str) -> Option<Result<String, String>> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let encoded = fragment.split('&').find_map(|part| part.strip_prefix("kzs="))?;
    Some(
        decode_base64url(encoded)
            .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "the #kzs scenario is not UTF-8 text once decoded".to_string())),
    )
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64url_without_padding() {
        assert_eq!(decode_base64url("").unwrap(), b"");
        assert_eq!(decode_base64url("Zg").unwrap(), b"f");
        assert_eq!(decode_base64url("Zm8").unwrap(), b"fo");
        assert_eq!(decode_base64url("Zm9v").unwrap(), b"foo");
        assert_eq!(decode_base64url("Zm9vYg==").unwrap(), b"foob");
        // 0xfb 0xff: '-' and '_' in base64url, '+' and '/' in base64.
        assert_eq!(decode_base64url("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_base64url("+/8").unwrap(), [0xfb, 0xff]);
    }

    #[test]
    fn rejects_what_is_not_base64url() {
        assert!(decode_base64url("Z").unwrap_err().contains("1 characters long"));
        assert!(decode_base64url("Zm9v!A").unwrap_err().contains("character 5"));
    }

    #[test]
    fn finds_kzs_among_other_fragment_parts() {
        // "zk-session a" in base64url.
        let text = Some(Ok("zk-session a".to_string()));
        assert_eq!(scenario_from_fragment("#kzs=emstc2Vzc2lvbiBh"), text);
        assert_eq!(scenario_from_fragment("#step=3&kzs=emstc2Vzc2lvbiBh&lang=en"), text);
        assert_eq!(scenario_from_fragment(""), None);
        assert_eq!(scenario_from_fragment("#step=3"), None);
        assert!(scenario_from_fragment("#kzs=__8").unwrap().unwrap_err().contains("UTF-8"));
    }
}
