//! `org.apache.kafka.common.utils.Sanitizer`: user principals and client ids
//! become znode names (and metric tags), so anything outside
//! `[A-Za-z0-9._-]` is URL-encoded (`URLEncoder`, UTF-8), with `*` as `%2A`
//! and a space as `%20` rather than `+`. `/config/users/CN%3Dalice` is the
//! principal `CN=alice`.

/// `Sanitizer.sanitize`.
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `Sanitizer.desanitize` (`URLDecoder`): `%XX` back to bytes, `+` to a
/// space. A malformed escape is kept as written rather than failing.
pub fn desanitize(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => match name.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                Some(b) => {
                    out.push(b);
                    i += 3;
                    continue;
                }
                None => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A config entity name as a znode name: `<default>` stays as it is (the
/// literal `ConfigEntityName.Default`); anything else is sanitized.
pub fn sanitize_entity(name: &str) -> String {
    if name == super::dynamic_config::DEFAULT_ENTITY {
        name.to_string()
    } else {
        sanitize(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_kafka_sanitizer() {
        assert_eq!(sanitize("alice"), "alice");
        assert_eq!(sanitize("app-1.v2_x"), "app-1.v2_x");
        assert_eq!(sanitize("CN=alice, O=org"), "CN%3Dalice%2C%20O%3Dorg");
        assert_eq!(sanitize("a*b"), "a%2Ab");
        assert_eq!(sanitize("user/1"), "user%2F1");
        assert_eq!(sanitize("ü"), "%C3%BC");
        assert_eq!(sanitize_entity("<default>"), "<default>");
        assert_eq!(sanitize_entity("<x>"), "%3Cx%3E");
    }

    #[test]
    fn desanitize_inverts_sanitize() {
        for s in ["alice", "CN=alice, O=org", "a*b", "user/1", "ü", "100%", "a+b"] {
            assert_eq!(desanitize(&sanitize(s)), s);
        }
        assert_eq!(desanitize("a+b"), "a b");
        assert_eq!(desanitize("bad%zz"), "bad%zz");
    }
}
