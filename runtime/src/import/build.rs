//! Building a spec as a syntax tree, for the compiler's formatter to print. The importers
//! never write spec text by hand: values go through [`taskc_compiler::fmt::format`], so the
//! output is canonical and every string is quoted correctly.

use taskc_compiler::span::Span;
use taskc_compiler::syntax::ast::{
    Block, Call, Comment, Document, Ident, IntLit, List, Statement, StrLit, StrStyle, Trivia, Value,
};

fn sp() -> Span {
    Span::new(0, 0)
}

/// A name (`bugfix`, `pytest`, a repository name).
pub fn ident(name: &str) -> Value {
    Value::Ident(Ident {
        name: name.to_string(),
        span: sp(),
    })
}

/// A string in the style that reads best: a block string for several lines, a raw string
/// when it holds quotes or backslashes, else `"…"`. The formatter falls back to `"…"` when a
/// style cannot hold the value.
pub fn string(value: &str) -> Value {
    let style = if value.contains('\n') && value.ends_with('\n') {
        StrStyle::Block
    } else if value.contains(['"', '\\']) && !value.contains(['\n', '\r']) {
        StrStyle::Raw { hashes: 1 }
    } else {
        StrStyle::Quoted
    };
    Value::Str(StrLit {
        value: value.to_string(),
        style,
        span: sp(),
    })
}

pub fn int(value: u64) -> Value {
    Value::Int(IntLit { value, span: sp() })
}

/// `name("arg")`.
pub fn call(name: &str, arg: &str) -> Value {
    Value::Call(Call {
        name: Ident {
            name: name.to_string(),
            span: sp(),
        },
        args: vec![string(arg)],
        span: sp(),
    })
}

/// `name(arg)` with a name as its argument (`repo(api)`).
pub fn call_ident(name: &str, arg: &str) -> Value {
    Value::Call(Call {
        name: Ident {
            name: name.to_string(),
            span: sp(),
        },
        args: vec![ident(arg)],
        span: sp(),
    })
}

pub fn list(items: &[String]) -> Value {
    Value::List(List {
        items: items.iter().map(|s| string(s)).collect(),
        span: sp(),
    })
}

/// One statement under construction.
#[derive(Debug, Clone)]
pub struct Stmt(Statement);

impl Stmt {
    pub fn new(name: &str, args: Vec<Value>) -> Stmt {
        Stmt(Statement {
            name: Ident {
                name: name.to_string(),
                span: sp(),
            },
            args,
            block: None,
            leading: Vec::new(),
            trailing: None,
            span: sp(),
        })
    }

    /// Give the statement a block (possibly empty).
    pub fn block(mut self, children: Vec<Stmt>) -> Stmt {
        self.0.block = Some(Block {
            statements: children.into_iter().map(|s| s.0).collect(),
            dangling: Vec::new(),
            span: sp(),
        });
        self
    }

    /// Comment lines above the statement; each line of `text` becomes `// …` lines,
    /// wrapped at word boundaries to keep within the formatter's width.
    pub fn comment(mut self, text: &str) -> Stmt {
        for line in text.lines() {
            for part in wrap(line.trim_end(), COMMENT_WIDTH) {
                self.0.leading.push(Trivia::Comment(Comment {
                    text: part,
                    span: sp(),
                }));
            }
        }
        self
    }

    /// A blank line before the statement.
    pub fn spaced(mut self) -> Stmt {
        self.0.leading.insert(0, Trivia::BlankLine);
        self
    }
}

/// Comment text width (the formatter's width less indentation and `// `).
const COMMENT_WIDTH: usize = 88;

/// `text` in lines of at most `width` characters, broken at spaces (a longer word stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    lines.push(cur);
    lines
}

/// The whole spec, printed canonically.
pub fn render(statements: Vec<Stmt>) -> String {
    let doc = Document {
        statements: statements.into_iter().map(|s| s.0).collect(),
        dangling: Vec::new(),
        span: sp(),
    };
    taskc_compiler::fmt::format(&doc)
}
