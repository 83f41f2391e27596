//! YAML read into a small tree whose every node knows its byte offset, so an importer's
//! diagnostics point at the line and column of the value they are about.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A YAML value and where it starts (a byte offset into the file's text).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub at: usize,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A scalar: strings, numbers and booleans alike, as written; `quoted` when the author
    /// quoted it (so `"1"` is a string and `1` may be read as a number).
    Scalar {
        text: String,
        quoted: bool,
    },
    /// `~`, `null` or nothing.
    Null,
    Seq(Vec<Node>),
    /// Keys in order, each with its own offset.
    Map(Vec<(String, usize, Node)>),
}

impl Node {
    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(m) => m.iter().find(|(k, _, _)| k == key).map(|(_, _, v)| v),
            _ => None,
        }
    }

    /// The offset of `key` itself in a mapping.
    pub fn key_at(&self, key: &str) -> Option<usize> {
        match &self.value {
            Value::Map(m) => m.iter().find(|(k, _, _)| k == key).map(|(_, at, _)| *at),
            _ => None,
        }
    }

    /// A scalar's text.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn entries(&self) -> &[(String, usize, Node)] {
        match &self.value {
            Value::Map(m) => m,
            _ => &[],
        }
    }

    pub fn items(&self) -> &[Node] {
        match &self.value {
            Value::Seq(s) => s,
            _ => &[],
        }
    }

    /// "a mapping", "a list", … for messages.
    pub fn describe(&self) -> &'static str {
        match &self.value {
            Value::Scalar { .. } => "a scalar",
            Value::Null => "nothing (null)",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

/// A YAML syntax error: message and byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    pub at: usize,
}

/// Parse the first document of `text`. An empty file is `Null`.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    let mut b = Builder {
        text,
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        error: None,
    };
    let mut parser = Parser::new_from_str(text);
    parser.load(&mut b, false).map_err(|e| YamlError {
        message: e.info().to_string(),
        at: offset(text, e.marker()),
    })?;
    if let Some(e) = b.error {
        return Err(e);
    }
    Ok(b.root.unwrap_or(Node {
        at: 0,
        value: Value::Null,
    }))
}

/// Byte offset of a marker (line 1-based, column 0-based in characters).
fn offset(text: &str, m: &Marker) -> usize {
    let mut line_start = 0;
    for _ in 1..m.line() {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[line_start..];
    line.char_indices()
        .nth(m.col())
        .map_or(text.len().min(line_start + line.len()), |(i, _)| {
            line_start + i
        })
}

enum Frame {
    Seq(usize, usize, Vec<Node>),
    /// Start offset, anchor, entries so far, and a key waiting for its value.
    Map(
        usize,
        usize,
        Vec<(String, usize, Node)>,
        Option<(String, usize)>,
    ),
}

struct Builder<'t> {
    text: &'t str,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
    error: Option<YamlError>,
}

impl Builder<'_> {
    fn push_value(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq(_, _, items)) => items.push(node),
            Some(Frame::Map(_, _, entries, pending)) => match pending.take() {
                Some((k, at)) => entries.push((k, at, node)),
                None => match node.value {
                    Value::Scalar { text, .. } => *pending = Some((text, node.at)),
                    Value::Null => *pending = Some((String::new(), node.at)),
                    _ => {
                        if self.error.is_none() {
                            self.error = Some(YamlError {
                                message:
                                    "a mapping key must be a plain value, not a list or mapping"
                                        .into(),
                                at: node.at,
                            });
                        }
                    }
                },
            },
        }
    }
}

impl MarkedEventReceiver for Builder<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let at = offset(self.text, &mark);
        match ev {
            Event::Scalar(text, style, anchor, _) => {
                let quoted = !matches!(style, TScalarStyle::Plain);
                let value =
                    if !quoted && matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL") {
                        Value::Null
                    } else {
                        Value::Scalar { text, quoted }
                    };
                self.push_value(Node { at, value }, anchor);
            }
            Event::Alias(id) => {
                let node = self.anchors.get(&id).cloned().map_or(
                    Node {
                        at,
                        value: Value::Null,
                    },
                    |n| Node { at, value: n.value },
                );
                self.push_value(node, 0);
            }
            Event::SequenceStart(anchor, _) => self.stack.push(Frame::Seq(at, anchor, Vec::new())),
            Event::MappingStart(anchor, _) => {
                self.stack.push(Frame::Map(at, anchor, Vec::new(), None))
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq(start, anchor, items)) = self.stack.pop() {
                    self.push_value(
                        Node {
                            at: start,
                            value: Value::Seq(items),
                        },
                        anchor,
                    );
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map(start, anchor, entries, _)) = self.stack.pop() {
                    self.push_value(
                        Node {
                            at: start,
                            value: Value::Map(entries),
                        },
                        anchor,
                    );
                }
            }
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_point_at_values() {
        let text = "a: 1\nb:\n  - x\n  - 'y'\nc: &k {d: e}\nf: *k\n";
        let n = parse(text).unwrap();
        let b = n.get("b").unwrap();
        assert_eq!(b.items().len(), 2);
        assert_eq!(&text[b.items()[1].at..b.items()[1].at + 3], "'y'");
        assert_eq!(n.get("f").unwrap().get("d").unwrap().as_str(), Some("e"));
        assert_eq!(n.key_at("c"), Some(text.find("c:").unwrap()));
    }

    #[test]
    fn syntax_errors_have_offsets() {
        let text = "a: [1, 2\nb: c\n";
        let e = parse(text).unwrap_err();
        assert!(e.at <= text.len());
        assert!(!e.message.is_empty());
    }
}
