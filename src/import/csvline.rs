//! One line of a profiler's CSV into fields. Profilers write one record per line, between lines the
//! profiled program may print anything (an unbalanced quote included), so lines are split one at a
//! time instead of handing the stream to a CSV reader that would read across them.

/// The fields of `line`: quoted (`"a,b"`, `""` for a quote) or bare, separated by commas; a trailing
/// comma gives a last empty field.
pub fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted => {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            }
            '"' if cur.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            ',' if !quoted => {
                out.push(std::mem::take(&mut cur));
                was_quoted = false;
            }
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Whether `line` could be a profiler's quoted CSV row (its first field is quoted).
pub fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('"')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_bare_and_trailing_fields() {
        assert_eq!(fields(r#""a","b,c",3,"#), vec!["a", "b,c", "3", ""]);
        assert_eq!(fields(r#""say ""hi""",x"#), vec![r#"say "hi""#, "x"]);
        assert_eq!(fields("s,ms,,KB"), vec!["s", "ms", "", "KB"]);
        assert_eq!(fields(""), vec![""]);
        // An unbalanced quote ends with the line.
        assert_eq!(fields(r#""open,1"#), vec!["open,1"]);
    }
}
