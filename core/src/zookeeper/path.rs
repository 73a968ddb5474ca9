//! Znode path rules (`org.apache.zookeeper.common.PathUtils.validatePath`).

/// Why a path is not a valid znode path, in words a learner can act on.
pub fn validate_path(path: &str, sequential: bool) -> Result<(), String> {
    if plainly_valid(path.as_bytes(), sequential) {
        return Ok(());
    }
    explain_invalid_path(path, sequential)
}

/// The common case without allocating: a printable-ASCII path that passes
/// every rule. `false` means "ask the full check", not "invalid".
fn plainly_valid(path: &[u8], sequential: bool) -> bool {
    let Some((&b'/', rest)) = path.split_first() else { return false };
    if rest.is_empty() {
        return true;
    }
    // Printable ASCII throughout: a fold with no early exit, which the
    // compiler turns into a few wide comparisons (every create checks its
    // path, 200,000 of them in a big topic's creation).
    if !rest.iter().fold(true, |ok, &b| ok & (b.wrapping_sub(0x20) < 0x5f)) {
        return false;
    }
    // No empty or relative segment; a sequential create's last segment
    // gets the counter appended, so it may be either.
    let mut segments = rest.split(|&b| b == b'/').peekable();
    while let Some(segment) = segments.next() {
        let relative = segment.is_empty() || segment == b"." || segment == b"..";
        if relative && !(sequential && segments.peek().is_none()) {
            return false;
        }
    }
    true
}

fn explain_invalid_path(path: &str, sequential: bool) -> Result<(), String> {
    // A sequential create may end in '/': the server appends the counter.
    let checked = if sequential { format!("{path}1") } else { path.to_string() };
    let path = checked.as_str();
    if path.is_empty() {
        return Err("a path cannot be empty".into());
    }
    if !path.starts_with('/') {
        return Err(format!("path '{path}' must start with '/'"));
    }
    if path.len() == 1 {
        return Ok(());
    }
    if path.ends_with('/') {
        return Err(format!("path '{path}' must not end with '/'"));
    }
    for segment in path[1..].split('/') {
        if segment.is_empty() {
            return Err(format!("path '{path}' has an empty segment ('//')"));
        }
        if segment == "." || segment == ".." {
            return Err(format!("path '{path}' has a relative segment '{segment}'"));
        }
    }
    if let Some(c) = path.chars().find(|&c| forbidden_char(c)) {
        return Err(format!("path '{}' has the invalid character U+{:04X}", path.escape_debug(), c as u32));
    }
    Ok(())
}

fn forbidden_char(c: char) -> bool {
    matches!(c as u32, 0x0000..=0x001F | 0x007F..=0x009F | 0xD800..=0xF8FF | 0xFFF0..=0xFFFF)
}

/// The parent of a valid non-root path (`/a/b` → `/a`, `/a` → `/`).
pub fn parent(path: &str) -> &str {
    // By bytes: '/' is ASCII, so it never falls inside a character, and a
    // byte search is a fraction of `rfind`'s character searcher (every
    // create and every fired watch asks for a parent).
    match path.bytes().rposition(|b| b == b'/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// The last segment of a valid non-root path (`/a/b` → `b`).
pub fn name(path: &str) -> &str {
    // By bytes, as `parent`: every create names its node among its siblings.
    path.bytes().rposition(|b| b == b'/').map_or(path, |i| &path[i + 1..])
}

/// `/` + `child` → `/child`; `/a` + `child` → `/a/child`.
pub fn join(parent: &str, child: &str) -> String {
    if parent == "/" {
        format!("/{child}")
    } else {
        format!("{parent}/{child}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_check_agrees_with_the_full_one() {
        let paths = [
            "",
            "/",
            "a",
            "/a",
            "/a/",
            "//",
            "/a//b",
            "/a/./b",
            "/a/../b",
            "/.",
            "/..",
            "/a/.",
            "/a/..",
            "/...",
            "/a/...",
            "/./a",
            "/a/b/",
            "/.a",
            "/a.",
            "/a/b-c.d_e",
            "/a\u{1}b",
            "/a\u{7f}",
            "/é",
            "/a/\u{e000}",
            "/a b",
            "/~",
            "/brokers/topics/t/partitions/0/state",
        ];
        for p in paths {
            for seq in [false, true] {
                assert_eq!(validate_path(p, seq).is_ok(), explain_invalid_path(p, seq).is_ok(), "{p:?} sequential={seq}");
                if plainly_valid(p.as_bytes(), seq) {
                    assert!(explain_invalid_path(p, seq).is_ok(), "{p:?} sequential={seq}");
                }
            }
        }
    }

    #[test]
    fn zookeeper_path_rules() {
        assert!(validate_path("/", false).is_ok());
        assert!(validate_path("/a/b-c.d_e", false).is_ok());
        assert!(validate_path("a", false).is_err());
        assert!(validate_path("/a/", false).is_err());
        assert!(validate_path("/a/", true).is_ok());
        assert!(validate_path("/a//b", false).is_err());
        assert!(validate_path("/a/./b", false).is_err());
        assert!(validate_path("/a/..", false).is_err());
        assert!(validate_path("/a\u{1}b", false).is_err());
        assert!(validate_path("", false).is_err());
    }

    #[test]
    fn parents_and_names() {
        assert_eq!(parent("/a"), "/");
        assert_eq!(parent("/a/b/c"), "/a/b");
        assert_eq!(name("/a/b/c"), "c");
        assert_eq!(join("/", "x"), "/x");
        assert_eq!(join("/a", "x"), "/a/x");
    }
}
