//! One line of a profiler's CSV into fields. Profilers write one record per line, between lines the
//! profiled program may print anything (an unbalanced quote included), so lines are split one at a
//! time instead of handing the stream to a CSV reader that would read across them.

use std::borrow::Cow;

/// The fields of `line`: quoted (`"a,b"`, `""` for a quote) or bare, separated by commas; a trailing
/// comma gives a last empty field.
pub fn fields(line: &str) -> Vec<String> {
    split(line).into_iter().map(Cow::into_owned).collect()
}

/// [`fields`] borrowed from `line` where no quote inside a field needs unescaping (the common case:
/// no allocation per field).
pub fn split(line: &str) -> Vec<Cow<'_, str>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        if b.get(i) == Some(&b'"') {
            // A quoted field: up to the quote that is not doubled.
            let start = i + 1;
            let mut j = start;
            let mut escaped = false;
            loop {
                match b.get(j) {
                    Some(b'"') if b.get(j + 1) == Some(&b'"') => {
                        escaped = true;
                        j += 2;
                    }
                    Some(b'"') | None => break,
                    Some(_) => j += 1,
                }
            }
            if escaped || b.get(j).is_none() || !matches!(b.get(j + 1), Some(b',') | None) {
                // Doubled quotes, an unclosed quote, or text after the closing quote: the slow way.
                return slow(line);
            }
            out.push(Cow::Borrowed(&line[start..j]));
            i = j + 1;
        } else {
            let end = line[i..].find(',').map_or(line.len(), |k| i + k);
            if line[i..end].contains('"') {
                return slow(line);
            }
            out.push(Cow::Borrowed(&line[i..end]));
            i = end;
        }
        if i >= line.len() {
            return out;
        }
        i += 1; // the comma
        if i == line.len() {
            out.push(Cow::Borrowed(""));
            return out;
        }
    }
}

/// Character by character, for the lines [`split`] cannot slice.
fn slow(line: &str) -> Vec<Cow<'_, str>> {
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
                out.push(Cow::Owned(std::mem::take(&mut cur)));
                was_quoted = false;
            }
            c => cur.push(c),
        }
    }
    out.push(Cow::Owned(cur));
    out
}

/// Whether `line` could be a profiler's quoted CSV row (its first field is quoted).
pub fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('"')
}

/// The lines that could be quoted CSV rows: the tool's banners and the program's output between them
/// dropped (read errors kept).
pub fn quoted<'a>(
    lines: &'a mut dyn Iterator<Item = crate::error::Result<String>>,
) -> impl Iterator<Item = crate::error::Result<String>> + 'a {
    lines.filter(|l| l.as_ref().map_or(true, |l| is_quoted(l)))
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
        assert_eq!(fields(r#""a"b,c"#), vec!["ab", "c"]);
        assert_eq!(fields(","), vec!["", ""]);
        assert_eq!(fields(r#""x","#), vec!["x", ""]);
        assert!(split(r#""a","b c",7,"#).iter().all(|f| matches!(f, Cow::Borrowed(_))));
    }
}
