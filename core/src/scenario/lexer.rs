//! Splits a scenario line into tokens: bare words separated by spaces, JSON
//! strings for values with spaces or `#`, and `#` comments.

use super::error::ScenarioError;

/// One token of a line, with the 1-based column it starts at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The token as written (quotes and escapes included).
    pub raw: String,
    /// The token's value: a whole-token JSON string decoded, else `raw`.
    pub text: String,
    /// Whether the whole token was a JSON string.
    pub quoted: bool,
    pub col: usize,
}

/// Tokenizes one line. `line_no` is used for errors only.
pub fn tokenize(line: &str, line_no: usize) -> Result<Vec<Token>, ScenarioError> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' || c == '\t' || c == '\r' {
            i += 1;
            continue;
        }
        if c == '#' {
            break;
        }
        if c.is_control() {
            return Err(ScenarioError::at(
                line_no,
                i + 1,
                format!("unexpected control character U+{:04X}; write it inside a JSON string as \\u{:04x}", c as u32, c as u32),
            ));
        }
        let start = i;
        // A token runs to the next space; a '"' inside it opens a JSON string
        // that runs to its closing quote, spaces and '#' included.
        while i < chars.len() && chars[i] != ' ' && chars[i] != '\t' && chars[i] != '\r' && chars[i] != '#' {
            if chars[i].is_control() {
                let c = chars[i] as u32;
                return Err(ScenarioError::at(
                    line_no,
                    i + 1,
                    format!("unexpected control character U+{c:04X}; write it inside a JSON string as \\u{c:04x}"),
                ));
            }
            if chars[i] == '"' {
                i = skip_json_string(&chars, i).ok_or_else(|| {
                    ScenarioError::at(line_no, i + 1, "unterminated string: a '\"' opens a JSON string that must close on the same line")
                })?;
            } else {
                i += 1;
            }
        }
        let raw: String = chars[start..i].iter().collect();
        let quoted = raw.starts_with('"') && skip_json_string(&chars, start) == Some(i);
        let text = if quoted { decode_json_string(&raw).map_err(|e| ScenarioError::at(line_no, start + 1, e))? } else { raw.clone() };
        tokens.push(Token { raw, text, quoted, col: start + 1 });
    }
    Ok(tokens)
}

/// Given `chars[i] == '"'`, the index just after the matching closing quote.
fn skip_json_string(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            '"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// Decodes a JSON string literal (`"a\"b"` → `a"b`).
pub fn decode_json_string(raw: &str) -> Result<String, String> {
    serde_json::from_str::<String>(raw).map_err(|e| format!("invalid JSON string {raw}: {e}"))
}

/// The value of `KEY=VALUE` where VALUE may be a JSON string.
pub fn split_key_value(raw: &str) -> Option<(String, Result<String, String>)> {
    let eq = raw.find('=')?;
    let key = raw[..eq].to_string();
    let value = &raw[eq + 1..];
    let value = if value.starts_with('"') { decode_json_string(value) } else { Ok(value.to_string()) };
    Some((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        tokenize(line, 1).unwrap().into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn words_strings_and_comments() {
        assert_eq!(texts("zk a create /x v1 # a comment"), vec!["zk", "a", "create", "/x", "v1"]);
        assert_eq!(texts(r#"zk a set /x "a b # c""#), vec!["zk", "a", "set", "/x", "a b # c"]);
        assert_eq!(texts(r#"expect znode /c data.config["retention.ms"] == "1000""#)[3], r#"data.config["retention.ms"]"#);
        assert_eq!(texts("   "), Vec::<String>::new());
    }

    #[test]
    fn columns_are_one_based() {
        let t = tokenize("  run 5s", 1).unwrap();
        assert_eq!((t[0].col, t[1].col), (3, 7));
    }

    #[test]
    fn unterminated_strings_are_located() {
        let e = tokenize(r#"zk a set /x "oops"#, 4).unwrap_err();
        assert_eq!((e.line, e.col), (4, 13));
    }

    #[test]
    fn key_values() {
        let (k, v) = split_key_value(r#"listener="PLAINTEXT://h:1""#).unwrap();
        assert_eq!((k.as_str(), v.unwrap().as_str()), ("listener", "PLAINTEXT://h:1"));
    }
}
