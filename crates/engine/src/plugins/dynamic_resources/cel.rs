//! Device selectors: CEL expressions over `device`, compiled and evaluated as the structured
//! allocator's CEL environment does (k8s.io/dynamic-resource-allocation/cel), on the `cel`
//! crate.
//!
//! What the crate lacks is added here: the checks cel-go's type checker makes at compile time
//! that selectors meet (an undeclared variable, an unknown field of `device`, a result that
//! cannot be a bool), `cel.bind`, the Kubernetes quantity and semver libraries (values that
//! compare by value: `40G < 40Gi`, `1.10.0 > 1.9.5`), and a bound on evaluation. The crate has
//! no cost tracking, so instead of the API server's runtime limit (1,000,000 cost units, which
//! cancels evaluation) each expression's worst case is estimated from its syntax and the
//! bounds of a device's data, and an expression above the limit is never evaluated: a
//! hostile selector is refused, at its position, and can never hang a plan.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use cel::common::ast::{Expr, IdedExpr, LiteralValue, operators};
use cel::common::traits::{Container, Indexer, Iterable, Sizer};
use cel::common::types::{self, CelBool, CelMap, CelMapKey, CelString, Type};
use cel::common::value::{CowVal, Val};
use cel::extractors::{Arguments, This};
use cel::objects::{Key, Map, Opaque};
use cel::parser::Macro;
use cel::{Context, Env, ExecutionError, Program, Value};

use crate::versions::KubeVersion;
use df_model::Quantity;
use df_model::dra::{Device, DeviceAttribute};

/// `CELSelectorExpressionMaxCost`: the runtime cost limit of one evaluation, and the estimated
/// cost the API server accepts.
pub(crate) const MAX_COST: u64 = 1_000_000;
/// `CELSelectorExpressionMaxLength`.
const MAX_LENGTH: usize = 10 * 1024;
/// Bounds of a device's data that the API server validates, which the estimate relies on: at
/// most 32 attributes and capacities together, values of at most 64 characters.
const MAX_ENTRIES: u64 = 32;
const MAX_VALUE_LENGTH: u64 = 64;

/// Why an expression cannot be used: its text, and where in the expression (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CelError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for CelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A compiled selector and its estimated worst-case cost.
pub(crate) struct Selector {
    program: Program,
    pub(crate) cost: u64,
}

/// The environment selectors are compiled in: the standard library and macros, optional
/// syntax (`.?`, `orValue`), the strings extension, and `cel.bind`.
fn environment() -> Arc<Env> {
    static ENV: std::sync::OnceLock<Arc<Env>> = std::sync::OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Env::stdlib().with_optional_support(true);
        // Both are in cel-go's base environment, which the scheduler's is.
        let _ = env.add_extension(cel::extensions::strings);
        let _ = env.add_macro(Macro::receiver("bind", 3, expand_bind));
        Arc::new(env)
    })
    .clone()
}

/// `cel.bind(name, init, expr)`: `expr` with `name` bound to `init`, as cel-go expands it, a
/// comprehension over no elements whose accumulator is the binding.
fn expand_bind(
    helper: &mut cel::parser::MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, cel::parser::ParseError> {
    if !matches!(target.as_ref().map(|t| &t.expr), Some(Expr::Ident(name)) if name == "cel") {
        return Ok(None);
    }
    let Expr::Ident(name) = &args[0].expr else {
        return Err(helper.new_error(
            args[0].id,
            "cel.bind() variable name must be a simple identifier",
        ));
    };
    let name = name.clone();
    let result = args.pop().unwrap_or_default();
    let init = args.pop().unwrap_or_default();
    let range = helper.next_expr(Expr::List(cel::common::ast::ListExpr::new(Vec::new())));
    let condition = helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into())));
    let step = helper.next_expr(Expr::Ident(name.clone()));
    Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(
        cel::common::ast::ComprehensionExpr {
            iter_range: range,
            iter_var: "#unused".to_string(),
            iter_var2: None,
            accu_var: name,
            accu_init: init,
            loop_cond: condition,
            loop_step: step,
            result,
        },
    )))))
}

/// Compile `expression` for `version`'s `device` type: parse it and check it as cel-go's
/// checker would, then estimate its cost. Errors carry cel-go's texts.
pub(crate) fn compile(expression: &str, version: KubeVersion) -> Result<Selector, CelError> {
    // The parser recurses deeply per level of nesting (in debug builds, more than a test
    // thread's 2 MiB holds at 24 levels): it runs on a thread of its own with room to spare.
    const STACK: usize = 64 << 20;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, || compile_here(expression, version))
            .ok()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_else(|| {
                Err(CelError {
                    message: "compilation failed: the compiler could not run".into(),
                    line: 1,
                    column: 1,
                })
            })
    })
}

fn compile_here(expression: &str, version: KubeVersion) -> Result<Selector, CelError> {
    if expression.len() > MAX_LENGTH {
        return Err(CelError {
            message: format!(
                "compilation failed: expression too long ({} bytes, at most {MAX_LENGTH})",
                expression.len()
            ),
            line: 1,
            column: 1,
        });
    }
    if let Some(problem) = too_deep(expression) {
        return Err(CelError {
            message: format!("compilation failed: {problem}"),
            line: 1,
            column: 1,
        });
    }
    let program = environment().compile(expression).map_err(|errors| {
        let (line, column) = errors.errors.first().map_or((1, 1), |e| {
            (e.pos.0.max(1) as usize, e.pos.1.max(0) as usize + 1)
        });
        CelError {
            message: format!("compilation failed: {errors}"),
            line,
            column,
        }
    })?;
    let checker = Checker {
        source: expression,
        program: &program,
        version,
    };
    let kind = checker.check(program.expression(), &mut Vec::new())?;
    if !matches!(kind, Kind::Bool | Kind::Dyn) {
        return Err(checker.error(
            program.expression(),
            &format!(
                "must evaluate to bool or the unknown type, not {}",
                kind.name()
            ),
        ));
    }
    let cost = estimate(program.expression()).cost;
    Ok(Selector { program, cost })
}

/// Nesting, unary operators in a row, and binary operators, at most (selectors use a few):
/// the parser and the checks here recurse once per level, and a hostile expression of 10 KiB
/// would otherwise exhaust a thread's stack.
const MAX_NESTING: usize = 24;
const MAX_OPERATORS: usize = 250;

/// Why `expression` is too deep to parse safely, read from its characters outside string
/// literals.
fn too_deep(expression: &str) -> Option<String> {
    let (mut depth, mut deepest, mut unary, mut operators) = (0usize, 0usize, 0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    let mut chars = expression.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                chars.next();
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '!' | '-'
                if !previous.is_alphanumeric()
                    && !matches!(previous, ')' | ']' | '}' | '"' | '\'') =>
            {
                unary += 1;
                if unary > MAX_NESTING {
                    return Some(format!("more than {MAX_NESTING} unary operators in a row"));
                }
            }
            _ => {}
        }
        if matches!(
            c,
            '&' | '|' | '+' | '-' | '*' | '/' | '%' | '=' | '<' | '>' | '?' | '.' | ','
        ) {
            operators += 1;
        }
        if !c.is_whitespace() {
            if !matches!(c, '!' | '-') {
                unary = 0;
            }
            previous = c;
        }
    }
    if deepest > MAX_NESTING {
        return Some(format!("expression nests more than {MAX_NESTING} levels"));
    }
    (operators > MAX_OPERATORS).then(|| format!("more than {MAX_OPERATORS} operators"))
}

/// Whether `expression` is a selector the API server accepts: it compiles, and its estimated
/// cost is within the limit (lint's check, with the expression's position).
pub fn check(expression: &str, version: KubeVersion) -> Result<(), CelError> {
    let selector = compile(expression, version)?;
    if selector.cost > MAX_COST {
        return Err(CelError {
            message: format!(
                "too complex: estimated cost {} exceeds the cost limit of {MAX_COST} (the API server refuses it; the scheduler would cancel it)",
                selector.cost
            ),
            line: 1,
            column: 1,
        });
    }
    Ok(())
}

/// What the checker knows of an expression's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Double,
    String,
    List,
    Map,
    Null,
    Dyn,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Double => "double",
            Kind::String => "string",
            Kind::List => "list(dyn)",
            Kind::Map => "map(dyn, dyn)",
            Kind::Null => "null_type",
            Kind::Dyn => "dyn",
        }
    }
}

/// The part of cel-go's checker selectors meet: every identifier is `device` or a variable a
/// macro binds, `device` has only its declared fields, and the literal types of a result.
struct Checker<'e> {
    source: &'e str,
    program: &'e Program,
    version: KubeVersion,
}

impl Checker<'_> {
    fn error(&self, at: &IdedExpr, message: &str) -> CelError {
        let offset = self
            .program
            .source_info()
            .offset_for(at.id)
            .map_or(0, |(start, _)| start as usize);
        let before = &self.source[..offset.min(self.source.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        let text = self.source.lines().nth(line - 1).unwrap_or("");
        CelError {
            message: format!(
                "compilation failed: ERROR: <input>:{line}:{column}: {message}\n | {text}\n | {:.>column$}",
                "^"
            ),
            line,
            column,
        }
    }

    /// The fields `device` declares in this release's environment.
    fn device_field(&self, field: &str) -> bool {
        matches!(field, "driver" | "attributes" | "capacity")
            || (field == "allowMultipleAllocations" && self.version.minor >= 34)
    }

    fn check(&self, e: &IdedExpr, scope: &mut Vec<String>) -> Result<Kind, CelError> {
        Ok(match &e.expr {
            Expr::Literal(literal) => match literal {
                LiteralValue::Boolean(_) => Kind::Bool,
                LiteralValue::Int(_) | LiteralValue::UInt(_) => Kind::Int,
                LiteralValue::Double(_) => Kind::Double,
                LiteralValue::String(_) | LiteralValue::Bytes(_) => Kind::String,
                LiteralValue::Null => Kind::Null,
            },
            Expr::Ident(name) => {
                if name != "device" && !scope.iter().any(|s| s == name) {
                    return Err(self.error(
                        e,
                        &format!("undeclared reference to '{name}' (in container '')"),
                    ));
                }
                Kind::Dyn
            }
            Expr::Select(select) => {
                if matches!(&select.operand.expr, Expr::Ident(n) if n == "device" && !scope.contains(n))
                    && !self.device_field(&select.field)
                {
                    return Err(self.error(e, &format!("undefined field '{}'", select.field)));
                }
                self.check(&select.operand, scope)?;
                if select.test { Kind::Bool } else { Kind::Dyn }
            }
            Expr::Call(call) => {
                if let Some(target) = &call.target {
                    self.check(target, scope)?;
                }
                let mut kinds = Vec::with_capacity(call.args.len());
                for arg in &call.args {
                    kinds.push(self.check(arg, scope)?);
                }
                call_kind(&call.func_name, &kinds)
            }
            Expr::List(list) => {
                for element in &list.elements {
                    self.check(element, scope)?;
                }
                Kind::List
            }
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let cel::common::ast::EntryExpr::MapEntry(entry) = &entry.expr {
                        self.check(&entry.key, scope)?;
                        self.check(&entry.value, scope)?;
                    }
                }
                Kind::Map
            }
            Expr::Comprehension(c) => {
                self.check(&c.iter_range, scope)?;
                self.check(&c.accu_init, scope)?;
                let bound = 2 + usize::from(c.iter_var2.is_some());
                scope.push(c.iter_var.clone());
                scope.extend(c.iter_var2.clone());
                scope.push(c.accu_var.clone());
                let checked = self
                    .check(&c.loop_cond, scope)
                    .and_then(|_| self.check(&c.loop_step, scope))
                    .and_then(|_| self.check(&c.result, scope));
                scope.truncate(scope.len() - bound);
                checked?
            }
            Expr::Struct(_) | Expr::Unspecified => Kind::Dyn,
        })
    }
}

/// The result type of the operators and functions whose type does not depend on data.
fn call_kind(function: &str, args: &[Kind]) -> Kind {
    match function {
        operators::LOGICAL_AND
        | operators::LOGICAL_OR
        | operators::LOGICAL_NOT
        | operators::EQUALS
        | operators::NOT_EQUALS
        | operators::LESS
        | operators::LESS_EQUALS
        | operators::GREATER
        | operators::GREATER_EQUALS
        | operators::IN
        | "has"
        | "matches"
        | "startsWith"
        | "endsWith"
        | "contains"
        | "isGreaterThan"
        | "isLessThan"
        | "isQuantity"
        | "isSemver"
        | "isInteger" => Kind::Bool,
        operators::ADD
        | operators::SUBSTRACT
        | operators::MULTIPLY
        | operators::DIVIDE
        | operators::MODULO => match args.first() {
            Some(k @ (Kind::Int | Kind::Double | Kind::String | Kind::List)) => *k,
            _ => Kind::Dyn,
        },
        "size" | "compareTo" | "major" | "minor" | "patch" | "sign" | "asInteger" => Kind::Int,
        _ => Kind::Dyn,
    }
}

/// An estimate: the cost and, for a list, string or map, the most elements or characters it
/// can have.
#[derive(Debug, Clone, Copy)]
struct Estimate {
    cost: u64,
    size: u64,
}

/// cel-go's estimate, conservatively: a literal costs 0, a variable, field or index 1, a call 1
/// plus its arguments, a string function a tenth of its input's length more, a regular
/// expression that times the pattern's length, and a comprehension its range plus, per
/// element, its condition and step. Sizes come from literals and from a device's bounds.
fn estimate(e: &IdedExpr) -> Estimate {
    let unknown = Estimate {
        cost: 1,
        size: MAX_ENTRIES.max(MAX_VALUE_LENGTH),
    };
    match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => Estimate {
            cost: 0,
            size: s.len() as u64,
        },
        Expr::Literal(_) => Estimate { cost: 0, size: 0 },
        Expr::Ident(_) => unknown,
        Expr::Select(s) => Estimate {
            cost: estimate(&s.operand).cost.saturating_add(1),
            // `device.attributes` and `device.capacity` hold at most 32 domains.
            size: if matches!(s.field.as_str(), "attributes" | "capacity") {
                MAX_ENTRIES
            } else {
                unknown.size
            },
        },
        Expr::List(list) => {
            let cost = list
                .elements
                .iter()
                .fold(1u64, |c, x| c.saturating_add(estimate(x).cost));
            Estimate {
                cost,
                size: list.elements.len() as u64,
            }
        }
        Expr::Map(map) => {
            let mut cost = 1u64;
            for entry in &map.entries {
                if let cel::common::ast::EntryExpr::MapEntry(entry) = &entry.expr {
                    cost = cost
                        .saturating_add(estimate(&entry.key).cost)
                        .saturating_add(estimate(&entry.value).cost);
                }
            }
            Estimate {
                cost,
                size: map.entries.len() as u64,
            }
        }
        Expr::Comprehension(c) => {
            let range = estimate(&c.iter_range);
            let per_element = estimate(&c.loop_cond)
                .cost
                .saturating_add(estimate(&c.loop_step).cost)
                .saturating_add(1);
            let cost = range
                .cost
                .saturating_add(estimate(&c.accu_init).cost)
                .saturating_add(range.size.saturating_mul(per_element))
                .saturating_add(estimate(&c.result).cost);
            Estimate {
                cost,
                size: range.size,
            }
        }
        Expr::Call(call) => {
            let target = call.target.as_deref().map(estimate);
            let args: Vec<Estimate> = call.args.iter().map(estimate).collect();
            let mut cost = args
                .iter()
                .chain(&target)
                .fold(1u64, |c, a| c.saturating_add(a.cost));
            let input = target.or(args.first().copied()).map_or(0, |a| a.size);
            let tenth = |n: u64| n.div_ceil(10);
            let mut size = unknown.size;
            match call.func_name.as_str() {
                "matches" | "find" | "findAll" => {
                    let pattern = args.last().map_or(1, |a| a.size.max(1));
                    cost = cost.saturating_add(tenth(input).saturating_mul(pattern));
                }
                "split" => {
                    cost = cost.saturating_add(tenth(input));
                    size = input.saturating_add(1);
                }
                "startsWith"
                | "endsWith"
                | "contains"
                | "indexOf"
                | "lastIndexOf"
                | "lowerAscii"
                | "upperAscii"
                | "replace"
                | "substring"
                | "trim"
                | "join"
                | "charAt"
                | operators::EQUALS
                | operators::NOT_EQUALS
                | operators::ADD => {
                    cost = cost.saturating_add(tenth(input));
                    size = args.iter().chain(&target).map(|a| a.size).sum();
                }
                _ => {}
            }
            Estimate { cost, size }
        }
        Expr::Struct(_) | Expr::Unspecified => unknown,
    }
}

/// A Kubernetes quantity as `quantity()` returns it: compared by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CelQuantity(Quantity);

impl Opaque for CelQuantity {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Quantity"
    }
}

/// A semantic version as `semver()` returns it: compared by precedence (build metadata aside).
#[derive(Debug, Clone, PartialEq, Eq)]
struct CelSemver(semver::Version);

impl CelSemver {
    fn precedence(&self, other: &CelSemver) -> Ordering {
        let (a, b) = (&self.0, &other.0);
        (a.major, a.minor, a.patch, &a.pre).cmp(&(b.major, b.minor, b.patch, &b.pre))
    }
}

impl Opaque for CelSemver {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Semver"
    }
}

/// Parse a version as the Kubernetes semver library does; `normalize` first drops a leading
/// `v`, pads missing minor and patch parts and strips leading zeros (`v1.02` is `1.2.0`).
fn parse_semver(text: &str, normalize: bool) -> Result<semver::Version, String> {
    let text = if normalize {
        let text = text.strip_prefix('v').unwrap_or(text);
        let (core, rest) = match text.find(['-', '+']) {
            Some(i) => text.split_at(i),
            None => (text, ""),
        };
        let mut parts: Vec<String> = core
            .split('.')
            .map(|p| {
                let trimmed = p.trim_start_matches('0');
                if trimmed.is_empty() && !p.is_empty() {
                    "0".into()
                } else {
                    trimmed.into()
                }
            })
            .collect();
        while parts.len() < 3 {
            parts.push("0".into());
        }
        format!("{}{rest}", parts.join("."))
    } else {
        text.to_string()
    };
    semver::Version::parse(&text).map_err(|e| e.to_string())
}

fn fail(function: &str, message: impl fmt::Display) -> ExecutionError {
    ExecutionError::FunctionError {
        function: function.to_string(),
        message: message.to_string(),
    }
}

fn quantity_of(value: &Value) -> Option<Quantity> {
    match value {
        Value::Opaque(o) => o.downcast_ref::<CelQuantity>().map(|q| q.0),
        _ => None,
    }
}

fn semver_of(value: &Value) -> Option<&CelSemver> {
    match value {
        Value::Opaque(o) => o.downcast_ref::<CelSemver>(),
        _ => None,
    }
}

/// `compareTo`, `isGreaterThan` and `isLessThan` of the quantity and semver libraries.
fn compare(function: &str, this: &Value, other: &Value) -> Result<Ordering, ExecutionError> {
    if let (Some(a), Some(b)) = (quantity_of(this), quantity_of(other)) {
        return Ok(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (semver_of(this), semver_of(other)) {
        return Ok(a.precedence(b));
    }
    Err(fail(function, "no such overload"))
}

fn string_argument(function: &str, args: &[Value], index: usize) -> Result<String, ExecutionError> {
    match args.get(index) {
        Some(Value::String(s)) => Ok(s.to_string()),
        _ => Err(fail(function, "no such overload")),
    }
}

fn normalize_argument(args: &[Value]) -> bool {
    matches!(args.get(1), Some(Value::Bool(true)))
}

/// The root context selectors are evaluated in: the Kubernetes library functions. Built once
/// per allocation; each device gets an inner scope with its `device`.
pub(crate) fn root_context() -> Context<'static, 'static> {
    let mut cx = Context::with_env(environment());
    let _ = cx.add_function(
        "quantity",
        |s: Arc<String>| -> Result<Value, ExecutionError> {
            Quantity::parse(&s)
                .map(|q| Value::Opaque(Arc::new(CelQuantity(q))))
                .map_err(|e| fail("quantity", e))
        },
    );
    let _ = cx.add_function("isQuantity", |s: Arc<String>| Quantity::parse(&s).is_ok());
    let _ = cx.add_function("semver", |Arguments(args): Arguments| {
        let text = string_argument("semver", &args, 0)?;
        parse_semver(&text, normalize_argument(&args))
            .map(|v| Value::Opaque(Arc::new(CelSemver(v))))
            .map_err(|e| fail("semver", format!("could not parse {text:?} as semver: {e}")))
    });
    let _ = cx.add_function("isSemver", |Arguments(args): Arguments| {
        let text = string_argument("isSemver", &args, 0)?;
        Ok::<_, ExecutionError>(Value::Bool(
            parse_semver(&text, normalize_argument(&args)).is_ok(),
        ))
    });
    let _ = cx.add_function("compareTo", |This(this): This<Value>, other: Value| {
        compare("compareTo", &this, &other).map(|o| Value::Int(o as i64))
    });
    let _ = cx.add_function("isGreaterThan", |This(this): This<Value>, other: Value| {
        compare("isGreaterThan", &this, &other).map(|o| Value::Bool(o == Ordering::Greater))
    });
    let _ = cx.add_function("isLessThan", |This(this): This<Value>, other: Value| {
        compare("isLessThan", &this, &other).map(|o| Value::Bool(o == Ordering::Less))
    });
    for (name, part) in [("major", 0), ("minor", 1), ("patch", 2)] {
        let _ = cx.add_function(name, move |This(this): This<Value>| {
            let v = semver_of(&this).ok_or_else(|| fail(name, "no such overload"))?;
            let value = [v.0.major, v.0.minor, v.0.patch][part];
            Ok::<_, ExecutionError>(Value::Int(value as i64))
        });
    }
    let _ = cx.add_function("isInteger", |This(this): This<Value>| {
        let q = quantity_of(&this).ok_or_else(|| fail("isInteger", "no such overload"))?;
        Ok::<_, ExecutionError>(Value::Bool(q.milli_value() % 1000 == 0))
    });
    let _ = cx.add_function("asInteger", |This(this): This<Value>| {
        let q = quantity_of(&this).ok_or_else(|| fail("asInteger", "no such overload"))?;
        if q.milli_value() % 1000 != 0 {
            return Err(fail("asInteger", "cannot convert value to integer"));
        }
        Ok(Value::Int(q.milli_value() / 1000))
    });
    let _ = cx.add_function("asApproximateFloat", |This(this): This<Value>| {
        let q = quantity_of(&this).ok_or_else(|| fail("asApproximateFloat", "no such overload"))?;
        Ok::<_, ExecutionError>(Value::Float(q.milli_value() as f64 / 1000.0))
    });
    let _ = cx.add_function("sign", |This(this): This<Value>| {
        let q = quantity_of(&this).ok_or_else(|| fail("sign", "no such overload"))?;
        Ok::<_, ExecutionError>(Value::Int(q.milli_value().signum()))
    });
    cx
}

/// A map of attribute or capacity domains: an unknown domain reads as an empty map, as the
/// DRA environment declares (`device.attributes["x.example.com"].y` fails on `y`, not on the
/// domain); `in`, `size` and iteration see only the device's own domains.
#[derive(Debug, Clone, Default)]
struct Domains {
    known: CelMap<'static>,
    empty: CelMap<'static>,
}

impl Val for Domains {
    fn get_type(&self) -> &Type {
        &types::MAP_TYPE
    }

    fn cel_type() -> &'static Type {
        &types::MAP_TYPE
    }

    fn as_container(&self) -> Option<&dyn Container> {
        Some(&self.known)
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        Some(&self.known)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        Some(&self.known)
    }

    fn equals(&self, other: &dyn Val) -> bool {
        self.known.equals(other)
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(self.clone())
    }
}

impl Indexer for Domains {
    fn get<'b, 'w>(&'b self, key: &dyn Val) -> Result<CowVal<'b, 'w>, ExecutionError>
    where
        Self: 'w,
    {
        match self.known.get(key) {
            Err(ExecutionError::NoSuchKey(_)) => Ok(CowVal::Borrowed(&self.empty)),
            other => other,
        }
    }

    fn steal<'w>(self: Box<Self>, key: &dyn Val) -> Result<Box<dyn Val + 'w>, ExecutionError>
    where
        Self: 'w,
    {
        self.get(key).map(CowVal::into_owned)
    }
}

/// A qualified name split as the environment splits it: `domain/id`, a bare id in `driver`'s
/// domain.
fn split_name<'n>(name: &'n str, driver: &'n str) -> (&'n str, &'n str) {
    name.split_once('/').unwrap_or((driver, name))
}

fn attribute_value(name: &str, attribute: &DeviceAttribute) -> Result<Value, ExecutionError> {
    Ok(if let Some(i) = attribute.int {
        Value::Int(i)
    } else if let Some(b) = attribute.bool {
        Value::Bool(b)
    } else if let Some(s) = &attribute.string {
        Value::String(Arc::new(s.clone()))
    } else if let Some(v) = &attribute.version {
        let version = semver::Version::parse(v).map_err(|e| ExecutionError::FunctionError {
            function: "device".into(),
            message: format!("attribute {name}: parse semantic version: {e}"),
        })?;
        Value::Opaque(Arc::new(CelSemver(version)))
    } else {
        Value::Null
    })
}

/// Group `entries` by domain into maps of their ids.
fn domains(
    entries: impl Iterator<Item = (String, String, Value)>,
) -> Result<Domains, ExecutionError> {
    let mut by_domain: HashMap<String, HashMap<Key, Value>> = HashMap::new();
    for (domain, id, value) in entries {
        by_domain
            .entry(domain)
            .or_default()
            .insert(Key::from(id), value);
    }
    let mut known: HashMap<CelMapKey<'static>, Box<dyn Val>> = HashMap::new();
    for (domain, ids) in by_domain {
        let map: Box<dyn Val> = Value::Map(Map { map: Arc::new(ids) }).try_into()?;
        known.insert(CelMapKey::String(CelString::from(domain)), map);
    }
    Ok(Domains {
        known: CelMap::from(known),
        empty: CelMap::default(),
    })
}

/// The `device` variable of one device of `driver`'s slice. A version attribute that is not
/// semantic version text fails every evaluation on the device, as upstream.
pub(crate) fn device_value(
    driver: &str,
    device: &Device,
    version: KubeVersion,
) -> Result<Box<dyn Val>, ExecutionError> {
    let attributes = device
        .attributes
        .iter()
        .map(|(name, attribute)| {
            let (domain, id) = split_name(name, driver);
            Ok((
                domain.to_string(),
                id.to_string(),
                attribute_value(name, attribute)?,
            ))
        })
        .collect::<Result<Vec<_>, ExecutionError>>()?;
    let capacity = device.capacity.iter().map(|(name, capacity)| {
        let (domain, id) = split_name(name, driver);
        let value = Value::Opaque(Arc::new(CelQuantity(capacity.value)));
        (domain.to_string(), id.to_string(), value)
    });
    let mut fields: HashMap<CelMapKey<'static>, Box<dyn Val>> = HashMap::new();
    let mut field = |name: &'static str, value: Box<dyn Val>| {
        fields.insert(CelMapKey::String(CelString::from(name)), value);
    };
    field("driver", Box::new(CelString::from(driver.to_string())));
    field("attributes", Box::new(domains(attributes.into_iter())?));
    field("capacity", Box::new(domains(capacity)?));
    if version.minor >= 34 {
        field("allowMultipleAllocations", Box::new(CelBool::from(false)));
    }
    Ok(Box::new(CelMap::from(fields)))
}

/// cel-go's spelling of an evaluation error.
fn runtime_message(error: &ExecutionError) -> String {
    match error {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::FunctionError { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

impl Selector {
    /// Evaluate on `device` (a value from [`device_value`]) in an inner scope of `root`: whether
    /// the device is selected, or cel-go's runtime error. An expression whose estimate is
    /// above the limit is not evaluated: the runtime error kube-scheduler would most likely
    /// stop at, with the estimate.
    pub(crate) fn matches(
        &self,
        root: &Context<'static, 'static>,
        device: &dyn Val,
    ) -> Result<bool, String> {
        if self.cost > MAX_COST {
            return Err(format!(
                "operation cancelled: actual cost limit exceeded (estimated cost {} exceeds the limit of {MAX_COST}; not evaluated)",
                self.cost
            ));
        }
        let mut scope = root.new_inner_scope();
        scope.add_variable_as_val("device", device.clone_as_boxed());
        match self.program.execute(&scope) {
            Ok(Value::Bool(b)) => Ok(b),
            Ok(other) => Err(format!(
                "CEL result of type {:?} could not be converted to bool",
                other.type_of()
            )),
            Err(e) => Err(runtime_message(&e)),
        }
    }
}

#[cfg(test)]
mod tests;
