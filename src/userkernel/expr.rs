//! Expressions of kernel files (`ceil(n / (block_size_x * tile_x))`, `block_size_x * tile_x <= 1024`):
//! a small parser and evaluator of our own, because the crates that evaluate expressions do not fit:
//! evalexpr reports no position for its errors (we must name the column), truncates `7 / 2` to 3 so that
//! `ceil(n / 16)` silently comes out wrong, and spells Python's `and`/`or`/`**` as `&&`/`||`/`^`;
//! fasteval and meval compute in f64 only, where 64-bit sizes lose digits.
//!
//! The language is Python's arithmetic, as Kernel Tuner users write it, with C's `&&`/`||`/`!` too:
//! integers (i64, every operation checked: an overflow is an error, never a wrap), floats, booleans and
//! strings (compared only); `+ - * / // % **`, comparisons (chained as in Python), `and or not`, and the
//! functions `ceil floor min max abs int float sqrt log2`. `/` is true division, but a quotient of two
//! integers stays an integer when it is exact, and `ceil(a / b)` / `floor(a / b)` of integers are computed
//! exactly (no rounding through f64).

use std::fmt;

/// A value: what names stand for and what expressions give.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A 64-bit signed integer.
    Int(i64),
    /// A 64-bit float (never NaN or infinite: those are errors).
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A string (a compile-time parameter such as a type name); only compared.
    Str(String),
}

impl fmt::Display for Value {
    /// Integers and booleans as C would read them (`1`/`0` for booleans); floats with a decimal point.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) if x.fract() == 0.0 && x.abs() < 1e15 => write!(f, "{x:.1}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{}", u8::from(*b)),
            Value::Str(s) => write!(f, "{s}"),
        }
    }
}

impl Value {
    /// Parses a command-line word: an integer, a float, `true`/`false`, or else a string.
    pub fn parse_word(word: &str) -> Value {
        let w = word.trim();
        if let Ok(i) = w.replace('_', "").parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(x) = w.parse::<f64>()
            && x.is_finite()
        {
            return Value::Float(x);
        }
        match w {
            "true" | "True" => Value::Bool(true),
            "false" | "False" => Value::Bool(false),
            _ => Value::Str(w.to_string()),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a boolean",
            Value::Str(_) => "a string",
        }
    }

    fn num(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }
}

/// What went wrong, and where: `offset` is a byte offset in the expression's text.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    /// Byte offset in the expression.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
}

fn err<T>(offset: usize, message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError { offset, message: message.into() })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::FloorDiv => "//",
            Op::Mod => "%",
            Op::Pow => "**",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::And => "and",
            Op::Or => "or",
            Op::BitAnd => "&",
            Op::BitOr => "|",
            Op::BitXor => "^",
            Op::Shl => "<<",
            Op::Shr => ">>",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Lit(Value),
    Var(String),
    Neg(Box<Ast>),
    Not(Box<Ast>),
    /// `~x`: an integer's bits inverted.
    Invert(Box<Ast>),
    Bin(Op, Box<Ast>, Box<Ast>),
    /// `a < b <= c`: each pair compared, all must hold.
    Chain(Vec<Ast>, Vec<Op>),
    Call(String, Vec<Ast>),
}

#[derive(Clone, Debug, PartialEq)]
struct Ast {
    at: usize,
    node: Node,
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    text: String,
    ast: Ast,
}

const FUNCTIONS: &[(&str, usize, usize)] = &[
    ("ceil", 1, 1),
    ("floor", 1, 1),
    ("min", 1, usize::MAX),
    ("max", 1, usize::MAX),
    ("abs", 1, 1),
    ("int", 1, 1),
    ("float", 1, 1),
    ("sqrt", 1, 1),
    ("log2", 1, 1),
];

/// Words that are not names.
pub const RESERVED: &[&str] = &["and", "or", "not", "true", "false", "True", "False"];

impl Expr {
    /// Parses `text`; the error's offset points at the offending character.
    pub fn parse(text: &str) -> Result<Expr, ExprError> {
        let tokens = lex(text)?;
        let mut p = Parser { tokens, pos: 0, end: text.len() };
        let ast = p.or()?;
        if let Some(t) = p.peek() {
            return err(t.at, format!("unexpected '{}'", t.text));
        }
        Ok(Expr { text: text.to_string(), ast })
    }

    /// The expression's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Every name the expression reads, with its offset, in order of appearance.
    pub fn names(&self) -> Vec<(&str, usize)> {
        fn walk<'a>(a: &'a Ast, out: &mut Vec<(&'a str, usize)>) {
            match &a.node {
                Node::Lit(_) => {}
                Node::Var(n) => out.push((n, a.at)),
                Node::Neg(x) | Node::Not(x) | Node::Invert(x) => walk(x, out),
                Node::Bin(_, l, r) => {
                    walk(l, out);
                    walk(r, out);
                }
                Node::Chain(xs, _) | Node::Call(_, xs) => xs.iter().for_each(|x| walk(x, out)),
            }
        }
        let mut out = Vec::new();
        walk(&self.ast, &mut out);
        out
    }

    /// Evaluates with `lookup` giving the value of each name.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, ExprError> {
        eval(&self.ast, lookup)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    Float(f64),
    Str(String),
    Name(String),
    Sym(&'static str),
}

#[derive(Clone, Debug)]
struct Token {
    at: usize,
    tok: Tok,
    text: String,
}

const SYMBOLS: &[&str] = &[
    "**", "//", "==", "!=", "<<", ">>", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "(", ")", ",", "!",
    "&", "|", "^", "~",
];

fn lex(text: &str) -> Result<Vec<Token>, ExprError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                // An exponent's sign: 1e-3.
                if (b[i] == b'e' || b[i] == b'E') && matches!(b.get(i + 1), Some(b'+' | b'-')) {
                    i += 1;
                }
                i += 1;
            }
            let word = &text[start..i];
            let clean = word.replace('_', "");
            let tok = if let Ok(v) = clean.parse::<i64>() {
                Tok::Int(v)
            } else if clean.chars().all(|c| c.is_ascii_digit()) {
                return err(start, format!("integer {word} does not fit in 64 bits"));
            } else if let Some(v) = clean.parse::<f64>().ok().filter(|v| v.is_finite()) {
                Tok::Float(v)
            } else {
                return err(start, format!("'{word}' is not a number"));
            };
            out.push(Token { at: start, tok, text: word.to_string() });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            out.push(Token { at: start, tok: Tok::Name(word.to_string()), text: word.to_string() });
            continue;
        }
        if c == b'\'' || c == b'"' {
            let close = text[i + 1..].find(c as char).map(|k| i + 1 + k);
            let Some(close) = close else { return err(start, "string not closed") };
            let s = &text[i + 1..close];
            out.push(Token { at: start, tok: Tok::Str(s.to_string()), text: text[start..=close].to_string() });
            i = close + 1;
            continue;
        }
        match SYMBOLS.iter().find(|s| text[i..].starts_with(**s)) {
            Some(s) => {
                out.push(Token { at: start, tok: Tok::Sym(s), text: s.to_string() });
                i += s.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return err(start, format!("unexpected character '{ch}'"));
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn at(&self) -> usize {
        self.peek().map_or(self.end, |t| t.at)
    }

    /// Consumes the next token if it is one of `syms` (symbols or keywords); returns which.
    fn eat(&mut self, syms: &[&str]) -> Option<(&'static str, usize)> {
        let t = self.peek()?;
        let hit = match &t.tok {
            Tok::Sym(s) => syms.iter().find(|x| *x == s).map(|_| *s),
            Tok::Name(n) => ["and", "or", "not"].into_iter().find(|k| k == n && syms.contains(k)),
            _ => None,
        }?;
        let at = t.at;
        self.pos += 1;
        Some((hit, at))
    }

    fn expect(&mut self, sym: &str) -> Result<(), ExprError> {
        match self.eat(&[sym]) {
            Some(_) => Ok(()),
            None => match self.peek() {
                Some(t) => err(t.at, format!("expected '{sym}', found '{}'", t.text)),
                None => err(self.end, format!("expected '{sym}' at the end")),
            },
        }
    }

    fn or(&mut self) -> Result<Ast, ExprError> {
        let mut l = self.and()?;
        while let Some((_, at)) = self.eat(&["or", "||"]) {
            let r = self.and()?;
            l = Ast { at, node: Node::Bin(Op::Or, Box::new(l), Box::new(r)) };
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Ast, ExprError> {
        let mut l = self.not()?;
        while let Some((_, at)) = self.eat(&["and", "&&"]) {
            let r = self.not()?;
            l = Ast { at, node: Node::Bin(Op::And, Box::new(l), Box::new(r)) };
        }
        Ok(l)
    }

    fn not(&mut self) -> Result<Ast, ExprError> {
        if let Some((_, at)) = self.eat(&["not", "!"]) {
            let x = self.not()?;
            return Ok(Ast { at, node: Node::Not(Box::new(x)) });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Ast, ExprError> {
        let first = self.bit_or()?;
        let at = first.at;
        let (mut items, mut ops) = (vec![first], Vec::new());
        while let Some((s, _)) = self.eat(&["==", "!=", "<=", ">=", "<", ">"]) {
            ops.push(match s {
                "==" => Op::Eq,
                "!=" => Op::Ne,
                "<=" => Op::Le,
                ">=" => Op::Ge,
                "<" => Op::Lt,
                _ => Op::Gt,
            });
            items.push(self.bit_or()?);
        }
        Ok(if ops.is_empty() { items.remove(0) } else { Ast { at, node: Node::Chain(items, ops) } })
    }

    /// Python's bitwise operators, between the comparisons and the sums: `|` below `^` below `&` below
    /// the shifts (`x & (x - 1) == 0` is `(x & (x - 1)) == 0`, as in Python, not as in C).
    fn bit_or(&mut self) -> Result<Ast, ExprError> {
        self.binary(&["|"], Self::bit_xor)
    }

    fn bit_xor(&mut self) -> Result<Ast, ExprError> {
        self.binary(&["^"], Self::bit_and)
    }

    fn bit_and(&mut self) -> Result<Ast, ExprError> {
        self.binary(&["&"], Self::shift)
    }

    fn shift(&mut self) -> Result<Ast, ExprError> {
        self.binary(&["<<", ">>"], Self::sum)
    }

    /// A left-associative run of `syms` between operands that `next` parses.
    fn binary(&mut self, syms: &[&str], next: fn(&mut Self) -> Result<Ast, ExprError>) -> Result<Ast, ExprError> {
        let mut l = next(self)?;
        while let Some((s, at)) = self.eat(syms) {
            let r = next(self)?;
            let op = match s {
                "|" => Op::BitOr,
                "^" => Op::BitXor,
                "&" => Op::BitAnd,
                "<<" => Op::Shl,
                _ => Op::Shr,
            };
            l = Ast { at, node: Node::Bin(op, Box::new(l), Box::new(r)) };
        }
        Ok(l)
    }

    fn sum(&mut self) -> Result<Ast, ExprError> {
        let mut l = self.term()?;
        while let Some((s, at)) = self.eat(&["+", "-"]) {
            let r = self.term()?;
            let op = if s == "+" { Op::Add } else { Op::Sub };
            l = Ast { at, node: Node::Bin(op, Box::new(l), Box::new(r)) };
        }
        Ok(l)
    }

    fn term(&mut self) -> Result<Ast, ExprError> {
        let mut l = self.unary()?;
        while let Some((s, at)) = self.eat(&["*", "//", "/", "%"]) {
            let r = self.unary()?;
            let op = match s {
                "*" => Op::Mul,
                "//" => Op::FloorDiv,
                "/" => Op::Div,
                _ => Op::Mod,
            };
            l = Ast { at, node: Node::Bin(op, Box::new(l), Box::new(r)) };
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<Ast, ExprError> {
        if let Some((s, at)) = self.eat(&["-", "+", "~"]) {
            let x = self.unary()?;
            return Ok(match s {
                "-" => Ast { at, node: Node::Neg(Box::new(x)) },
                "~" => Ast { at, node: Node::Invert(Box::new(x)) },
                _ => x,
            });
        }
        self.power()
    }

    fn power(&mut self) -> Result<Ast, ExprError> {
        let base = self.atom()?;
        if let Some((_, at)) = self.eat(&["**"]) {
            let exp = self.unary()?;
            return Ok(Ast { at, node: Node::Bin(Op::Pow, Box::new(base), Box::new(exp)) });
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Ast, ExprError> {
        let at = self.at();
        let Some(t) = self.peek().cloned() else { return err(self.end, "expression ends too soon") };
        self.pos += 1;
        let node = match t.tok {
            Tok::Int(i) => Node::Lit(Value::Int(i)),
            Tok::Float(x) => Node::Lit(Value::Float(x)),
            Tok::Str(s) => Node::Lit(Value::Str(s)),
            Tok::Sym("(") => {
                let inner = self.or()?;
                self.expect(")")?;
                return Ok(inner);
            }
            Tok::Name(n) if matches!(n.as_str(), "true" | "True") => Node::Lit(Value::Bool(true)),
            Tok::Name(n) if matches!(n.as_str(), "false" | "False") => Node::Lit(Value::Bool(false)),
            Tok::Name(n) if RESERVED.contains(&n.as_str()) => return err(at, format!("unexpected '{n}'")),
            Tok::Name(n) if self.eat(&["("]).is_some() => {
                let Some(&(_, lo, hi)) = FUNCTIONS.iter().find(|f| f.0 == n) else {
                    let known: Vec<&str> = FUNCTIONS.iter().map(|f| f.0).collect();
                    return err(at, format!("unknown function '{n}' (known: {})", known.join(", ")));
                };
                let mut args = Vec::new();
                if self.eat(&[")"]).is_none() {
                    loop {
                        args.push(self.or()?);
                        if self.eat(&[","]).is_none() {
                            break;
                        }
                    }
                    self.expect(")")?;
                }
                if args.len() < lo || args.len() > hi {
                    let want = if lo == hi { format!("{lo}") } else { format!("at least {lo}") };
                    return err(at, format!("{n}() takes {want} argument(s), {} given", args.len()));
                }
                Node::Call(n, args)
            }
            Tok::Name(n) => Node::Var(n),
            Tok::Sym(s) => return err(at, format!("unexpected '{s}'")),
        };
        Ok(Ast { at, node })
    }
}

fn finite(at: usize, x: f64) -> Result<Value, ExprError> {
    if x.is_finite() { Ok(Value::Float(x)) } else { err(at, "the result is not a finite number") }
}

/// A float as an integer, when it is one exactly and fits.
fn to_int(at: usize, x: f64, what: &str) -> Result<i64, ExprError> {
    if !x.is_finite() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&x) {
        return err(at, format!("{what}({x}) does not fit in 64 bits"));
    }
    Ok(x as i64)
}

fn eval(a: &Ast, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, ExprError> {
    let at = a.at;
    match &a.node {
        Node::Lit(v) => Ok(v.clone()),
        Node::Var(n) => lookup(n).ok_or_else(|| ExprError { offset: at, message: format!("unknown name '{n}'") }),
        Node::Neg(x) => match eval(x, lookup)? {
            Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(|| overflow(at, "-", &[i])),
            Value::Float(f) => Ok(Value::Float(-f)),
            v => err(at, format!("cannot negate {}", v.kind())),
        },
        Node::Not(x) => Ok(Value::Bool(!boolean(x, lookup)?)),
        Node::Invert(x) => match eval(x, lookup)? {
            Value::Int(i) => Ok(Value::Int(!i)),
            v => err(at, format!("cannot apply '~' to {}", v.kind())),
        },
        Node::Bin(op @ (Op::BitAnd | Op::BitOr | Op::BitXor | Op::Shl | Op::Shr), l, r) => {
            bitwise(at, *op, eval(l, lookup)?, eval(r, lookup)?)
        }
        Node::Bin(Op::And, l, r) => Ok(Value::Bool(boolean(l, lookup)? && boolean(r, lookup)?)),
        Node::Bin(Op::Or, l, r) => Ok(Value::Bool(boolean(l, lookup)? || boolean(r, lookup)?)),
        Node::Bin(op, l, r) => arith(at, *op, eval(l, lookup)?, eval(r, lookup)?),
        Node::Chain(items, ops) => {
            let mut left = eval(&items[0], lookup)?;
            for (op, item) in ops.iter().zip(&items[1..]) {
                let right = eval(item, lookup)?;
                if !compare(item.at, *op, &left, &right)? {
                    return Ok(Value::Bool(false));
                }
                left = right;
            }
            Ok(Value::Bool(true))
        }
        Node::Call(f, args) => call(at, f, args, lookup),
    }
}

/// `&`, `|`, `^` of integers (or of booleans, as Python gives), and shifts of integers: a negative
/// shift count is an error, and so is a left shift that overflows 64 bits.
fn bitwise(at: usize, op: Op, l: Value, r: Value) -> Result<Value, ExprError> {
    match (op, &l, &r) {
        (Op::BitAnd, Value::Bool(a), Value::Bool(b)) => Ok(Value::Bool(a & b)),
        (Op::BitOr, Value::Bool(a), Value::Bool(b)) => Ok(Value::Bool(a | b)),
        (Op::BitXor, Value::Bool(a), Value::Bool(b)) => Ok(Value::Bool(a ^ b)),
        (_, Value::Int(a), Value::Int(b)) => {
            let (a, b) = (*a, *b);
            match op {
                Op::BitAnd => Ok(Value::Int(a & b)),
                Op::BitOr => Ok(Value::Int(a | b)),
                Op::BitXor => Ok(Value::Int(a ^ b)),
                _ if b < 0 => err(at, format!("negative shift count: {a} {} {b}", op.text())),
                Op::Shr => Ok(Value::Int(if b >= 64 { if a < 0 { -1 } else { 0 } } else { a >> b })),
                _ => u32::try_from(b)
                    .ok()
                    .filter(|&n| n < 64)
                    .map(|n| a << n)
                    .filter(|v| v >> b == a)
                    .map(Value::Int)
                    .ok_or_else(|| overflow(at, "<<", &[a, b])),
            }
        }
        _ => err(at, format!("cannot apply '{}' to {} and {}", op.text(), l.kind(), r.kind())),
    }
}

fn boolean(a: &Ast, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<bool, ExprError> {
    match eval(a, lookup)? {
        Value::Bool(b) => Ok(b),
        v => err(a.at, format!("expected true or false, found {} ({v})", v.kind())),
    }
}

fn overflow(at: usize, op: &str, xs: &[i64]) -> ExprError {
    let shown: Vec<String> = xs.iter().map(i64::to_string).collect();
    ExprError { offset: at, message: format!("integer overflow: {} overflows 64 bits", shown.join(&format!(" {op} "))) }
}

fn compare(at: usize, op: Op, l: &Value, r: &Value) -> Result<bool, ExprError> {
    use std::cmp::Ordering;
    let ord = match (l, r) {
        (Value::Int(a), Value::Int(b)) => a.cmp(b),
        (Value::Str(a), Value::Str(b)) if matches!(op, Op::Eq | Op::Ne) => a.cmp(b),
        (Value::Bool(a), Value::Bool(b)) if matches!(op, Op::Eq | Op::Ne) => a.cmp(b),
        _ => match (l.num(), r.num()) {
            (Some(a), Some(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            _ => return err(at, format!("cannot compare {} with {} using '{}'", l.kind(), r.kind(), op.text())),
        },
    };
    Ok(match op {
        Op::Eq => ord == Ordering::Equal,
        Op::Ne => ord != Ordering::Equal,
        Op::Lt => ord == Ordering::Less,
        Op::Le => ord != Ordering::Greater,
        Op::Gt => ord == Ordering::Greater,
        _ => ord != Ordering::Less,
    })
}

fn arith(at: usize, op: Op, l: Value, r: Value) -> Result<Value, ExprError> {
    if matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge) {
        return compare(at, op, &l, &r).map(Value::Bool);
    }
    if let (Value::Int(a), Value::Int(b)) = (&l, &r) {
        let (a, b) = (*a, *b);
        let zero = || err(at, format!("division by zero: {a} {} 0", op.text()));
        let v = match op {
            Op::Add => a.checked_add(b),
            Op::Sub => a.checked_sub(b),
            Op::Mul => a.checked_mul(b),
            Op::Div if b == 0 => return zero(),
            Op::Div if a.checked_rem(b) == Some(0) => a.checked_div(b),
            Op::Div => return finite(at, a as f64 / b as f64),
            Op::FloorDiv if b == 0 => return zero(),
            Op::FloorDiv => a.checked_div(b).map(|q| if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q }),
            Op::Mod if b == 0 => return zero(),
            Op::Mod => a.checked_rem(b).map(|m| if m != 0 && ((m < 0) != (b < 0)) { m + b } else { m }),
            Op::Pow if b < 0 => return finite(at, (a as f64).powf(b as f64)),
            Op::Pow => u32::try_from(b).ok().and_then(|e| a.checked_pow(e)),
            _ => unreachable!("logical operators are evaluated by eval"),
        };
        return v.map(Value::Int).ok_or_else(|| overflow(at, op.text(), &[a, b]));
    }
    let (Some(a), Some(b)) = (l.num(), r.num()) else {
        return err(at, format!("cannot apply '{}' to {} and {}", op.text(), l.kind(), r.kind()));
    };
    let v = match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div | Op::FloorDiv | Op::Mod if b == 0.0 => {
            return err(at, format!("division by zero: {a} {} 0", op.text()));
        }
        Op::Div => a / b,
        Op::FloorDiv => (a / b).floor(),
        Op::Mod => a - b * (a / b).floor(),
        Op::Pow => a.powf(b),
        _ => unreachable!("logical operators are evaluated by eval"),
    };
    finite(at, v)
}

fn call(at: usize, f: &str, args: &[Ast], lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, ExprError> {
    // ceil(a / b) and floor(a / b) of integers: exact, whatever their size.
    if let ("ceil" | "floor", [Ast { node: Node::Bin(Op::Div, l, r), at: div_at }]) = (f, args)
        && let (Value::Int(a), Value::Int(b)) = (eval(l, lookup)?, eval(r, lookup)?)
    {
        if b == 0 {
            return err(*div_at, format!("division by zero: {a} / 0"));
        }
        let q = a.checked_div(b).ok_or_else(|| overflow(*div_at, "/", &[a, b]))?;
        let inexact = a % b != 0;
        let positive = (a < 0) == (b < 0);
        return Ok(Value::Int(match (f, inexact, positive) {
            ("ceil", true, true) => q + 1,
            ("floor", true, false) => q - 1,
            _ => q,
        }));
    }
    let vals = args.iter().map(|a| eval(a, lookup)).collect::<Result<Vec<_>, _>>()?;
    let num = |i: usize| {
        vals[i].num().ok_or_else(|| ExprError {
            offset: args[i].at,
            message: format!("{f}() needs a number, found {} ({})", vals[i].kind(), vals[i]),
        })
    };
    match f {
        "ceil" | "floor" | "int" => match vals[0] {
            Value::Int(i) => Ok(Value::Int(i)),
            _ => {
                let x = num(0)?;
                let y = match f {
                    "ceil" => x.ceil(),
                    "floor" => x.floor(),
                    _ => x.trunc(),
                };
                Ok(Value::Int(to_int(at, y, f)?))
            }
        },
        "float" => finite(at, num(0)?),
        "abs" => match vals[0] {
            Value::Int(i) => i.checked_abs().map(Value::Int).ok_or_else(|| overflow(at, "abs", &[i])),
            _ => finite(at, num(0)?.abs()),
        },
        "sqrt" | "log2" => {
            let x = num(0)?;
            if x < 0.0 || (f == "log2" && x == 0.0) {
                return err(at, format!("{f}({x}) is undefined"));
            }
            finite(at, if f == "sqrt" { x.sqrt() } else { x.log2() })
        }
        _ => {
            // min / max: integers stay integers; any float makes the result a float.
            let mut best = vals[0].clone();
            num(0)?;
            for (i, v) in vals.iter().enumerate().skip(1) {
                num(i)?;
                let better = compare(args[i].at, if f == "min" { Op::Lt } else { Op::Gt }, v, &best)?;
                if better {
                    best = v.clone();
                }
            }
            Ok(best)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str, vars: &[(&str, Value)]) -> Result<Value, ExprError> {
        let vars: Vec<(String, Value)> = vars.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
        Expr::parse(s)?.eval(&|n| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()))
    }

    fn int(s: &str) -> i64 {
        match ev(s, &[]).unwrap() {
            Value::Int(i) => i,
            v => panic!("{s} gave {v:?}"),
        }
    }

    #[test]
    fn python_arithmetic() {
        assert_eq!(int("1 + 2 * 3"), 7);
        assert_eq!(int("(1 + 2) * 3"), 9);
        assert_eq!(int("2 ** 10"), 1024);
        assert_eq!(int("-2 ** 2"), -4, "** binds tighter than unary minus, as in Python");
        assert_eq!(int("2 ** 3 ** 2"), 512, "** is right-associative");
        assert_eq!(int("7 // 2"), 3);
        assert_eq!(int("-7 // 2"), -4, "floor division");
        assert_eq!(int("-7 % 3"), 2, "Python's modulo takes the divisor's sign");
        assert_eq!(int("8 / 2"), 4, "an exact quotient stays an integer");
        assert_eq!(ev("7 / 2", &[]).unwrap(), Value::Float(3.5));
        assert_eq!(int("1_000_000 * 4"), 4_000_000);
        assert_eq!(ev("1e-3 * 2", &[]).unwrap(), Value::Float(0.002));
        assert_eq!(int("max(3, 9, 4) - min(5, 2)"), 7);
        assert_eq!(ev("max(1, 2.5)", &[]).unwrap(), Value::Float(2.5));
        assert_eq!(int("abs(-3) + int(2.9) + floor(-0.5)"), 4);
        assert_eq!(int("ceil(sqrt(17))"), 5);
        assert_eq!(int("int(log2(1024))"), 10);
    }

    #[test]
    fn bitwise_operators_bind_as_in_python() {
        // Kernel Tuner's power-of-two test: Python's comparisons bind looser than `&` (C's bind tighter),
        // so `x & (x - 1) == 0` is `(x & (x - 1)) == 0`.
        let pow2 = |x: i64| ev("x & (x - 1) == 0", &[("x", Value::Int(x))]).unwrap();
        assert_eq!((pow2(256), pow2(96), pow2(1)), (Value::Bool(true), Value::Bool(false), Value::Bool(true)));
        assert_eq!(int("6 | 1 ^ 3 & 2"), 6 | (1 ^ (3 & 2)));
        assert_eq!(int("1 << 4 + 1"), 32, "+ binds tighter than <<");
        assert_eq!(int("-16 >> 2"), -4, "arithmetic shift, as Python's");
        assert_eq!(int("~5"), -6);
        assert_eq!(int("1 << 62 >> 62"), 1);
        assert_eq!(ev("(1 < 2) & (3 > 4)", &[]).unwrap(), Value::Bool(false));
        assert!(ev("1 << 63", &[]).unwrap_err().message.contains("overflow"));
        assert!(ev("1 << -1", &[]).unwrap_err().message.contains("negative shift"));
        assert!(ev("1.5 & 1", &[]).unwrap_err().message.contains("cannot apply '&'"));
    }

    #[test]
    fn ceil_of_a_division_is_exact_for_64_bit_sizes() {
        assert_eq!(int("ceil(1000 / 256)"), 4);
        assert_eq!(int("ceil(1024 / 256)"), 4);
        assert_eq!(int("floor(-7 / 2)"), -4);
        assert_eq!(int("ceil(-7 / 2)"), -3);
        // 2^62 + 1 is not representable in f64: the exact path gets the last digit right.
        let n = (1i64 << 62) + 1;
        let v = ev("ceil(n / 2)", &[("n", Value::Int(n))]).unwrap();
        assert_eq!(v, Value::Int((1i64 << 61) + 1));
    }

    #[test]
    fn overflow_is_an_error_never_a_wrap() {
        let e = ev("n * n", &[("n", Value::Int(1 << 32))]).unwrap_err();
        assert!(e.message.contains("overflow"), "{e:?}");
        assert_eq!(e.offset, 2, "points at the operator");
        assert!(ev("9223372036854775807 + 1", &[]).unwrap_err().message.contains("overflow"));
        assert!(ev("2 ** 64", &[]).unwrap_err().message.contains("overflow"));
        assert!(ev("-(-9223372036854775807 - 1)", &[]).unwrap_err().message.contains("overflow"));
        assert!(Expr::parse("99999999999999999999").unwrap_err().message.contains("64 bits"));
        assert!(ev("int(1e30)", &[]).unwrap_err().message.contains("64 bits"));
    }

    #[test]
    fn booleans_and_comparisons() {
        let v = |s: &str| ev(s, &[("bx", Value::Int(64)), ("t", Value::Int(4))]).unwrap();
        assert_eq!(v("bx * t <= 256 and t % 2 == 0"), Value::Bool(true));
        assert_eq!(v("bx * t < 256 || !(t == 4)"), Value::Bool(false));
        assert_eq!(v("not bx > 32"), Value::Bool(false));
        assert_eq!(v("1 < t < 8"), Value::Bool(true), "chained as in Python");
        assert_eq!(v("1 < t < 3"), Value::Bool(false));
        assert_eq!(v("True and true"), Value::Bool(true));
        assert_eq!(ev("ty == 'float'", &[("ty", Value::Str("float".into()))]).unwrap(), Value::Bool(true));
        assert_eq!(v("2.0 == 2"), Value::Bool(true));
    }

    #[test]
    fn errors_point_at_the_column() {
        let e = Expr::parse("ceil(n / (bx * 2)").unwrap_err();
        assert_eq!(e.offset, 17);
        assert!(e.message.contains("expected ')'"), "{e:?}");
        let e = Expr::parse("n + * 2").unwrap_err();
        assert_eq!((e.offset, e.message.as_str()), (4, "unexpected '*'"));
        let e = Expr::parse("n $ 2").unwrap_err();
        assert_eq!(e.offset, 2);
        let e = Expr::parse("cel(n)").unwrap_err();
        assert!(e.message.starts_with("unknown function 'cel'"), "{e:?}");
        let e = Expr::parse("min()").unwrap_err();
        assert!(e.message.contains("at least 1"), "{e:?}");
        let e = ev("n / (m - 3)", &[("n", Value::Int(1)), ("m", Value::Int(3))]).unwrap_err();
        assert_eq!(e.offset, 2);
        assert!(e.message.starts_with("division by zero"));
        let e = ev("n + tile", &[("n", Value::Int(1))]).unwrap_err();
        assert_eq!((e.offset, e.message.as_str()), (4, "unknown name 'tile'"));
        let e = ev("1 + true", &[]).unwrap_err();
        assert!(e.message.contains("cannot apply '+'"), "{e:?}");
        let e = ev("n and 1", &[("n", Value::Int(1))]).unwrap_err();
        assert!(e.message.contains("expected true or false"), "{e:?}");
        assert!(Expr::parse("").unwrap_err().message.contains("too soon"));
        assert!(Expr::parse("'abc").unwrap_err().message.contains("not closed"));
    }

    #[test]
    fn names_in_order_with_offsets() {
        let e = Expr::parse("ceil(n / (block_size_x * tile))").unwrap();
        assert_eq!(e.names(), vec![("n", 5), ("block_size_x", 10), ("tile", 25)]);
    }

    #[test]
    fn command_line_words() {
        assert_eq!(Value::parse_word("16"), Value::Int(16));
        assert_eq!(Value::parse_word("0.5"), Value::Float(0.5));
        assert_eq!(Value::parse_word("float"), Value::Str("float".into()));
        assert_eq!(Value::parse_word("true"), Value::Bool(true));
        assert_eq!(Value::Float(2.0).to_string(), "2.0");
        assert_eq!(Value::Bool(true).to_string(), "1");
    }
}
