//! The page written out: a small tree of elements with text escaped, void elements closed so that the
//! page is well-formed XML too, the tables with their filter controls (hidden until the script shows
//! them), and the inline style sheet and script.

use super::{Block, Page, Section, Table};

const CSS: &str = include_str!("../assets/report.css");
const JS: &str = include_str!("../assets/report.js");

/// A node of the page.
enum Node {
    /// An element: name, attributes, children.
    El(&'static str, Vec<(&'static str, String)>, Vec<Node>),
    /// Text (escaped when written).
    Text(String),
    /// Markup written as it is (the SVG figures, the style sheet and the script).
    Raw(String),
}

/// An element.
fn el(name: &'static str, attrs: Vec<(&'static str, String)>, children: Vec<Node>) -> Node {
    Node::El(name, attrs, children)
}

/// An element holding text only.
fn txt(name: &'static str, attrs: Vec<(&'static str, String)>, text: impl Into<String>) -> Node {
    Node::El(name, attrs, vec![Node::Text(text.into())])
}

/// `&`, `<`, `>`, `"` and `'` escaped (text and attribute values alike).
fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// Elements HTML writes without an end tag.
const VOID: &[&str] = &["meta", "input", "br", "hr"];

impl Node {
    fn write(&self, out: &mut String) {
        match self {
            Node::Text(t) => escape(t, out),
            Node::Raw(r) => out.push_str(r),
            Node::El(name, attrs, children) => {
                out.push('<');
                out.push_str(name);
                for (k, v) in attrs {
                    out.push(' ');
                    out.push_str(k);
                    out.push_str("=\"");
                    escape(v, out);
                    out.push('"');
                }
                if VOID.contains(name) {
                    out.push_str("/>");
                    return;
                }
                out.push('>');
                for c in children {
                    c.write(out);
                }
                out.push_str("</");
                out.push_str(name);
                out.push('>');
                if matches!(*name, "tr" | "section" | "figure" | "li" | "div" | "p" | "table" | "thead" | "tbody") {
                    out.push('\n');
                }
            }
        }
    }
}

/// A `(block, status, reason)` list.
fn problem_list(items: &[(String, String, String)]) -> Node {
    el(
        "ul",
        vec![("class", "problems".into())],
        items
            .iter()
            .map(|(what, status, why)| {
                let mut li = vec![txt("strong", vec![], what.clone()), Node::Text(format!(" {status}"))];
                if !why.is_empty() {
                    li.push(Node::Text(format!(": {why}")));
                }
                el("li", vec![("class", status.clone())], li)
            })
            .collect(),
    )
}

fn number_text(v: f64) -> String {
    // Rust's shortest form that reads back to the same f64.
    format!("{v}")
}

fn table_node(t: &Table, id: &str) -> Vec<Node> {
    let statuses = {
        let mut s: Vec<&str> = t.rows.iter().map(|r| r.status.as_str()).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let sources = {
        let mut s: Vec<&str> = t.rows.iter().flat_map(|r| r.provenance.split_whitespace()).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let select = |class: &str, label: &str, options: &[&str]| {
        let mut opts = vec![txt("option", vec![("value", String::new())], "all")];
        opts.extend(options.iter().map(|o| txt("option", vec![("value", o.to_string())], *o)));
        el("label", vec![], vec![Node::Text(format!("{label} ")), el("select", vec![("class", class.into())], opts)])
    };
    let controls = el(
        "div",
        vec![("class", "controls".into()), ("data-for", id.into()), ("hidden", "hidden".into())],
        vec![
            el(
                "label",
                vec![],
                vec![
                    Node::Text("Filter ".into()),
                    el(
                        "input",
                        vec![
                            ("type", "search".into()),
                            ("class", "filter".into()),
                            ("placeholder", "words that every row shown contains".into()),
                        ],
                        vec![],
                    ),
                ],
            ),
            select("status", "Status", &statuses),
            select("provenance", "Provenance", &sources),
            txt("span", vec![("class", "count".into())], ""),
        ],
    );
    let head = el(
        "tr",
        vec![],
        t.columns
            .iter()
            .map(|c| {
                let mut kids = vec![Node::Text(c.label.clone())];
                if !c.sub.is_empty() {
                    kids.push(txt("small", vec![], c.sub.clone()));
                }
                el("th", vec![("scope", "col".into())], kids)
            })
            .collect(),
    );
    let body: Vec<Node> = t
        .rows
        .iter()
        .map(|r| {
            let cells = r
                .cells
                .iter()
                .zip(&t.columns)
                .map(|(c, column)| {
                    let mut class: Vec<String> = Vec::new();
                    if column.numeric {
                        class.push("num".into());
                    }
                    if let Some(s) = c.source {
                        class.push(format!("src-{}", s.as_str()));
                    }
                    if column.label == "reason" {
                        class.push("reason".into());
                    }
                    if column.label == "details" {
                        class.push("details".into());
                    }
                    let mut attrs = Vec::new();
                    if !class.is_empty() {
                        attrs.push(("class", class.join(" ")));
                    }
                    if let Some(v) = c.value {
                        attrs.push(("data-value", number_text(v)));
                    }
                    let mut kids = Vec::new();
                    if column.label == "provenance" {
                        for s in c.text.split_whitespace() {
                            kids.push(txt("span", vec![("class", format!("tag {s}"))], s));
                        }
                    } else {
                        kids.push(Node::Text(c.text.clone()));
                    }
                    if let Some((summary, body)) = &c.details {
                        kids.push(el(
                            "details",
                            vec![],
                            vec![txt("summary", vec![], summary.clone()), txt("pre", vec![], body.clone())],
                        ));
                    }
                    el("td", attrs, kids)
                })
                .collect();
            el(
                "tr",
                vec![
                    ("class", r.status.clone()),
                    ("data-status", r.status.clone()),
                    ("data-provenance", r.provenance.clone()),
                ],
                cells,
            )
        })
        .collect();
    vec![
        controls,
        el(
            "div",
            vec![("class", "scroll".into())],
            vec![el(
                "table",
                vec![("id", id.into()), ("class", "records".into())],
                vec![el("thead", vec![], vec![head]), el("tbody", vec![], body)],
            )],
        ),
    ]
}

fn section_node(s: &Section, level: usize, ids: &mut usize) -> Node {
    let h = match level {
        0 => "h2",
        1 => "h3",
        _ => "h4",
    };
    let mut kids = vec![txt(h, vec![], s.heading.clone())];
    for b in &s.blocks {
        match b {
            Block::Facts(f) => kids.push(el(
                "dl",
                vec![("class", "facts".into())],
                f.iter().flat_map(|(k, v)| [txt("dt", vec![], k.clone()), txt("dd", vec![], v.clone())]).collect(),
            )),
            Block::Text(t) => kids.push(txt("p", vec![], t.clone())),
            Block::Pre(t) => kids.push(txt("pre", vec![("class", "out".into())], t.clone())),
            Block::Figures(f) => kids.push(el(
                "div",
                vec![("class", "figures".into())],
                f.iter()
                    .map(|(caption, svg)| {
                        el("figure", vec![], vec![Node::Raw(svg.clone()), txt("figcaption", vec![], caption.clone())])
                    })
                    .collect(),
            )),
            Block::Table(t) => {
                *ids += 1;
                kids.extend(table_node(t, &format!("records-{ids}")));
            }
            Block::Problems(p) => kids.push(problem_list(p)),
        }
    }
    for sub in &s.sub {
        kids.push(section_node(sub, level + 1, ids));
    }
    el("section", vec![], kids)
}

/// The page as HTML (also well-formed XML).
pub(super) fn render(page: &Page) -> String {
    let mut ids = 0;
    let sections: Vec<Node> = page.sections.iter().map(|s| section_node(s, 0, &mut ids)).collect();
    let mut body =
        vec![txt("h1", vec![], page.title.clone()), txt("p", vec![("class", "sub".into())], page.subtitle.clone())];
    body.extend(sections);
    body.push(el("script", vec![], vec![Node::Raw(format!("//<![CDATA[\n{JS}//]]>\n"))]));
    let doc = el(
        "html",
        vec![("lang", "en".into())],
        vec![
            el(
                "head",
                vec![],
                vec![
                    el("meta", vec![("charset", "utf-8".into())], vec![]),
                    el(
                        "meta",
                        vec![("name", "viewport".into()), ("content", "width=device-width, initial-scale=1".into())],
                        vec![],
                    ),
                    txt("title", vec![], page.title.clone()),
                    el("style", vec![], vec![Node::Raw(CSS.to_string())]),
                ],
            ),
            el("body", vec![], body),
        ],
    );
    let mut out = String::from("<!DOCTYPE html>\n");
    doc.write(&mut out);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_void_elements_closed() {
        let mut out = String::new();
        el("p", vec![("title", "a \"b\" <c>".into())], vec![Node::Text("x & y < z".into()), el("br", vec![], vec![])])
            .write(&mut out);
        assert_eq!(out, "<p title=\"a &quot;b&quot; &lt;c&gt;\">x &amp; y &lt; z<br/></p>\n");
    }
}
