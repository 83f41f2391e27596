//! Comparing documents apart from where they came from.

use crate::span::Span;
use crate::syntax::ast::{Block, Comment, Document, Ident, Statement, Trivia, Value};

/// A copy of `doc` with every span set to `0..0`, so two parses of differently laid out
/// texts compare equal when they hold the same statements, values and comments.
pub fn strip_spans(doc: &Document) -> Document {
    Document {
        statements: doc.statements.iter().map(statement).collect(),
        dangling: doc.dangling.iter().map(trivia).collect(),
        span: Span::default(),
    }
}

fn statement(s: &Statement) -> Statement {
    Statement {
        name: ident(&s.name),
        args: s.args.iter().map(value).collect(),
        block: s.block.as_ref().map(block),
        leading: s.leading.iter().map(trivia).collect(),
        trailing: s.trailing.as_ref().map(comment),
        span: Span::default(),
    }
}

fn block(b: &Block) -> Block {
    Block {
        statements: b.statements.iter().map(statement).collect(),
        dangling: b.dangling.iter().map(trivia).collect(),
        span: Span::default(),
    }
}

fn trivia(t: &Trivia) -> Trivia {
    match t {
        Trivia::Comment(c) => Trivia::Comment(comment(c)),
        Trivia::BlankLine => Trivia::BlankLine,
    }
}

fn comment(c: &Comment) -> Comment {
    Comment {
        text: c.text.clone(),
        span: Span::default(),
    }
}

fn ident(i: &Ident) -> Ident {
    Ident {
        name: i.name.clone(),
        span: Span::default(),
    }
}

fn value(v: &Value) -> Value {
    match v {
        Value::Str(s) => {
            let mut s = s.clone();
            s.span = Span::default();
            Value::Str(s)
        }
        Value::Ident(i) => Value::Ident(ident(i)),
        Value::Int(i) => {
            let mut i = i.clone();
            i.span = Span::default();
            Value::Int(i)
        }
        Value::Call(c) => {
            let mut c2 = c.clone();
            c2.name = ident(&c.name);
            c2.args = c.args.iter().map(value).collect();
            c2.span = Span::default();
            Value::Call(c2)
        }
        Value::List(l) => {
            let mut l2 = l.clone();
            l2.items = l.items.iter().map(value).collect();
            l2.span = Span::default();
            Value::List(l2)
        }
    }
}
