//! `calculator`: evaluates arithmetic expressions exactly as written.

use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_core::{
    ApiDefinition, ErrorCode, FnTool, ToolBuilder, ToolError, ToolOutput,
    manifest::RenderDisplayControl,
};

/// Arguments of `calculator____evaluate`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvaluateArgs {
    /// The expression, e.g. `2 * (3 + 4) ^ 2 / sqrt(16)`. Operators: `+ - * / % ^`,
    /// parentheses, functions `sqrt abs ln log10 sin cos tan floor ceil round min max pow`,
    /// constants `pi` and `e`.
    pub expression: String,
}

/// The state `calculator____evaluate` returns (served over MCP as its
/// `structuredContent`, under this type's schema as `outputSchema`).
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Evaluated {
    /// The expression as given.
    pub expression: String,
    /// Its value.
    pub value: f64,
}

/// The calculator tool: reads nothing, changes nothing, reaches nothing
/// outside the process (hints read-only, idempotent, closed-world).
pub fn tool() -> Result<FnTool, tool_core::Error> {
    ToolBuilder::new("calculator")
        .title("Calculator")
        .description("Exact arithmetic on expressions.")
        .avatar("🧮")
        .system_role(
            "Use calculator____evaluate for any arithmetic instead of computing in your head.",
        )
        .typed(
            ApiDefinition::new(
                "evaluate",
                "Evaluates an arithmetic expression and returns the number.",
            )
            .with_default_timeout_ms(5_000)
            .with_display_control(RenderDisplayControl::Collapsed)
            .with_hints(super::pure_hints())
            .with_output_schema(schemars::schema_for!(Evaluated).to_value()),
            |args: EvaluateArgs, _ctx| async move {
                let value = evaluate(&args.expression).map_err(|e| {
                    ToolError::new(ErrorCode::new("invalid_expression"), e.to_string())
                        .with_details(
                            json!({"expression": args.expression, "position": e.position}),
                        )
                })?;
                let state = serde_json::to_value(Evaluated {
                    expression: args.expression,
                    value,
                })
                .map_err(|e| ToolError::new(ErrorCode::EXECUTION_FAILED, e.to_string()))?;
                Ok(ToolOutput::with_state(format_number(value), state))
            },
        )
        .build()
}

fn format_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}

/// Why an expression could not be evaluated, and where (0-based character).
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    /// Character position of the problem.
    pub position: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at character {})", self.message, self.position)
    }
}

/// Evaluates `expression`.
pub fn evaluate(expression: &str) -> Result<f64, ExprError> {
    if expression.len() > 10_000 {
        return Err(ExprError {
            position: 0,
            message: "expression longer than 10 000 characters".into(),
        });
    }
    let mut parser = Parser {
        chars: expression.chars().collect(),
        pos: 0,
        depth: 0,
    };
    let value = parser.expression()?;
    parser.skip_ws();
    if parser.pos < parser.chars.len() {
        return Err(parser.error(format!("unexpected `{}`", parser.chars[parser.pos])));
    }
    if !value.is_finite() {
        return Err(ExprError {
            position: 0,
            message: "the result is not a finite number".into(),
        });
    }
    Ok(value)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn error(&self, message: impl Into<String>) -> ExprError {
        ExprError {
            position: self.pos,
            message: message.into(),
        }
    }

    fn skip_ws(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expression(&mut self) -> Result<f64, ExprError> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(self.error("expression nested too deeply"));
        }
        let mut value = self.term()?;
        loop {
            if self.eat('+') {
                value += self.term()?;
            } else if self.eat('-') {
                value -= self.term()?;
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(value)
    }

    fn term(&mut self) -> Result<f64, ExprError> {
        let mut value = self.power()?;
        loop {
            let at = self.pos;
            if self.eat('*') {
                value *= self.power()?;
            } else if self.eat('/') {
                let divisor = self.power()?;
                if divisor == 0.0 {
                    return Err(ExprError {
                        position: at,
                        message: "division by zero".into(),
                    });
                }
                value /= divisor;
            } else if self.eat('%') {
                let divisor = self.power()?;
                if divisor == 0.0 {
                    return Err(ExprError {
                        position: at,
                        message: "remainder by zero".into(),
                    });
                }
                value %= divisor;
            } else {
                break;
            }
        }
        Ok(value)
    }

    fn power(&mut self) -> Result<f64, ExprError> {
        let base = self.unary()?;
        if self.eat('^') {
            // Right-associative: 2^3^2 = 2^9.
            let exponent = self.power()?;
            return Ok(base.powf(exponent));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<f64, ExprError> {
        if self.eat('-') {
            return Ok(-self.unary()?);
        }
        if self.eat('+') {
            return self.unary();
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<f64, ExprError> {
        match self.peek() {
            None => Err(self.error("the expression ended early")),
            Some('(') => {
                self.pos += 1;
                let value = self.expression()?;
                if !self.eat(')') {
                    return Err(self.error("missing `)`"));
                }
                Ok(value)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_ascii_alphabetic() => self.call(),
            Some(c) => Err(self.error(format!("unexpected `{c}`"))),
        }
    }

    fn number(&mut self) -> Result<f64, ExprError> {
        let start = self.pos;
        while self
            .chars
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_digit() || *c == '.')
        {
            self.pos += 1;
        }
        if self
            .chars
            .get(self.pos)
            .is_some_and(|c| *c == 'e' || *c == 'E')
            && self
                .chars
                .get(self.pos + 1)
                .is_some_and(|c| c.is_ascii_digit() || *c == '-' || *c == '+')
        {
            self.pos += 2;
            while self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
                self.pos += 1;
            }
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        text.parse::<f64>().map_err(|_| ExprError {
            position: start,
            message: format!("`{text}` is not a number"),
        })
    }

    fn call(&mut self) -> Result<f64, ExprError> {
        let start = self.pos;
        while self
            .chars
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos]
            .iter()
            .collect::<String>()
            .to_ascii_lowercase();
        match name.as_str() {
            "pi" => return Ok(std::f64::consts::PI),
            "e" => return Ok(std::f64::consts::E),
            _ => {}
        }
        if !self.eat('(') {
            return Err(ExprError {
                position: start,
                message: format!("unknown name `{name}`"),
            });
        }
        let mut args = vec![self.expression()?];
        while self.eat(',') {
            args.push(self.expression()?);
        }
        if !self.eat(')') {
            return Err(self.error("missing `)` after function arguments"));
        }
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(ExprError {
                    position: start,
                    message: format!("`{name}` takes {n} argument(s), got {}", args.len()),
                })
            }
        };
        let value = match name.as_str() {
            "sqrt" => {
                arity(1)?;
                if args[0] < 0.0 {
                    return Err(ExprError {
                        position: start,
                        message: "sqrt of a negative number".into(),
                    });
                }
                args[0].sqrt()
            }
            "abs" => {
                arity(1)?;
                args[0].abs()
            }
            "ln" => {
                arity(1)?;
                args[0].ln()
            }
            "log10" => {
                arity(1)?;
                args[0].log10()
            }
            "sin" => {
                arity(1)?;
                args[0].sin()
            }
            "cos" => {
                arity(1)?;
                args[0].cos()
            }
            "tan" => {
                arity(1)?;
                args[0].tan()
            }
            "floor" => {
                arity(1)?;
                args[0].floor()
            }
            "ceil" => {
                arity(1)?;
                args[0].ceil()
            }
            "round" => {
                arity(1)?;
                args[0].round()
            }
            "pow" => {
                arity(2)?;
                args[0].powf(args[1])
            }
            "min" => args.iter().copied().fold(f64::INFINITY, f64::min),
            "max" => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            _ => {
                return Err(ExprError {
                    position: start,
                    message: format!("unknown function `{name}`"),
                });
            }
        };
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(evaluate("2 + 3 * 4").unwrap(), 14.0);
        assert_eq!(evaluate("2 ^ 3 ^ 2").unwrap(), 512.0);
        assert_eq!(evaluate("-2 ^ 2").unwrap(), 4.0);
        assert_eq!(evaluate("(1 + 2) * 3").unwrap(), 9.0);
        assert_eq!(evaluate("10 % 4").unwrap(), 2.0);
        assert_eq!(evaluate("max(1, 5, 3) + sqrt(16)").unwrap(), 9.0);
        assert_eq!(evaluate("1.5e3").unwrap(), 1500.0);
    }

    #[test]
    fn errors_say_where() {
        assert_eq!(evaluate("1 / 0").unwrap_err().message, "division by zero");
        assert_eq!(
            evaluate("2 + ").unwrap_err().message,
            "the expression ended early"
        );
        assert_eq!(evaluate("2 $ 3").unwrap_err().position, 2);
        assert!(
            evaluate("foo(1)")
                .unwrap_err()
                .message
                .contains("unknown function")
        );
        assert!(evaluate("(((1)").is_err());
        assert!(evaluate(&"(".repeat(5000)).is_err());
        assert!(evaluate("10 ^ 1000").is_err());
    }
}
