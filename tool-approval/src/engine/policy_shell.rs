//! The `shell` section of the policy file (its format is on
//! [`PolicyFile`](crate::PolicyFile)).

use serde_json::Value;

use super::json_fields::{array, known_keys, object, string};
use crate::error::{Error, push_pointer};
use crate::shell::{CommandOption, Effect, OptionValue, ShellSyntax};

/// Parses the `shell` section; every problem is pushed with its pointer.
pub(super) fn parse_shell(value: &Value, problems: &mut Vec<Error>) -> ShellSyntax {
    let mut syntax = ShellSyntax::new();
    let map = match object(value, "/shell") {
        Ok(map) => map,
        Err(e) => {
            problems.push(e);
            return syntax;
        }
    };
    known_keys(map, "/shell", &["wrappers", "options"], problems);
    if let Some(list) = map.get("wrappers") {
        for (item, at) in items(list, "/shell/wrappers", problems) {
            match wrapper(item, &at) {
                Ok((name, valued, positional)) => {
                    let valued: Vec<&str> = valued.iter().map(String::as_str).collect();
                    syntax = syntax.with_wrapper(name, &valued, positional);
                }
                Err(e) => problems.extend(e.into_problems()),
            }
        }
    }
    if let Some(list) = map.get("options") {
        for (item, at) in items(list, "/shell/options", problems) {
            match option(item, &at) {
                Ok(option) => syntax = syntax.with_option(option),
                Err(e) => problems.extend(e.into_problems()),
            }
        }
    }
    syntax
}

/// Each item of an array with its pointer; a non-array is a problem.
fn items<'v>(list: &'v Value, at: &str, problems: &mut Vec<Error>) -> Vec<(&'v Value, String)> {
    match array(list, at) {
        Ok(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| (item, push_pointer(at, i)))
            .collect(),
        Err(e) => {
            problems.push(e);
            Vec::new()
        }
    }
}

/// A command or option name: one word, no shell syntax.
fn name<'v>(value: Option<&'v Value>, at: &str, what: &str) -> Result<&'v str, Error> {
    let Some(value) = value else {
        return Err(Error::invalid(
            at,
            &Value::Null,
            format!("`{what}` is required"),
        ));
    };
    let text = string(value, at)?;
    if text.is_empty()
        || text
            .chars()
            .any(|c| c.is_whitespace() || "'\"`$;&|<>()\\".contains(c))
    {
        return Err(Error::invalid(
            at,
            value,
            format!("`{what}` must be one word without shell syntax"),
        ));
    }
    Ok(text)
}

fn names(value: Option<&Value>, at: &str, what: &str, options: bool) -> Result<Vec<String>, Error> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let list = array(value, at)?;
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let here = push_pointer(at, i);
        match name(Some(item), &here, what) {
            Ok(n) if options && !n.starts_with('-') => {
                problems.push(Error::invalid(
                    &here,
                    item,
                    "an option name starts with `-`",
                ));
            }
            Ok(n) => out.push(n.to_owned()),
            Err(e) => problems.push(e),
        }
    }
    Error::from_list(problems)?;
    Ok(out)
}

fn wrapper(item: &Value, at: &str) -> Result<(String, Vec<String>, usize), Error> {
    let map = object(item, at)?;
    let mut problems = Vec::new();
    known_keys(
        map,
        at,
        &["name", "valuedOptions", "positional"],
        &mut problems,
    );
    let program = name(map.get("name"), &push_pointer(at, "name"), "name");
    let valued = names(
        map.get("valuedOptions"),
        &push_pointer(at, "valuedOptions"),
        "option",
        true,
    );
    let positional = match map.get("positional") {
        None => Ok(0),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= 16)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                Error::invalid(
                    &push_pointer(at, "positional"),
                    v,
                    "expected a count from 0 to 16",
                )
            }),
    };
    let (program, valued, positional) = (
        take(program, &mut problems),
        take(valued, &mut problems),
        take(positional, &mut problems),
    );
    Error::from_list(problems)?;
    match (program, valued, positional) {
        (Some(p), Some(v), Some(n)) => Ok((p.to_owned(), v, n)),
        _ => Err(Error::invalid(at, item, "invalid wrapper")),
    }
}

/// The value of `result`, or `None` with its problems recorded.
fn take<T>(result: Result<T, Error>, problems: &mut Vec<Error>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(e) => {
            problems.extend(e.into_problems());
            None
        }
    }
}

fn option(item: &Value, at: &str) -> Result<CommandOption, Error> {
    let map = object(item, at)?;
    let mut problems = Vec::new();
    known_keys(
        map,
        at,
        &["program", "subcommand", "names", "value", "effect"],
        &mut problems,
    );
    let program = name(map.get("program"), &push_pointer(at, "program"), "program");
    let subcommand = map
        .get("subcommand")
        .map(|s| name(Some(s), &push_pointer(at, "subcommand"), "subcommand"))
        .transpose();
    let option_names = names(map.get("names"), &push_pointer(at, "names"), "option", true);
    let value = match map.get("value").map(|v| (v, v.as_str())) {
        None | Some((_, Some("required"))) => Ok(OptionValue::Required),
        Some((_, Some("attached"))) => Ok(OptionValue::Attached),
        Some((_, Some("flag"))) => Ok(OptionValue::Flag),
        Some((v, _)) => Err(Error::invalid(
            &push_pointer(at, "value"),
            v,
            "expected `required`, `attached` or `flag`",
        )),
    };
    let effect = match map
        .get("effect")
        .map(|v| (v, v.as_str().and_then(Effect::from_name)))
    {
        Some((_, Some(effect))) => Ok(Some(effect)),
        // `"effect": "none"`: the option only takes a value.
        Some((v, None)) if v.as_str() == Some("none") => Ok(None),
        Some((v, None)) => Err(Error::invalid(
            &push_pointer(at, "effect"),
            v,
            "expected `readsFile`, `writesFile`, `runsCode`, `loadsCode`, `network`, `changesConfig` or `none`",
        )),
        None => Err(Error::invalid(
            &push_pointer(at, "effect"),
            &Value::Null,
            "`effect` is required (`none` for an option that only takes a value)",
        )),
    };
    let option_names = option_names.and_then(|n| {
        if n.is_empty() {
            Err(Error::invalid(
                &push_pointer(at, "names"),
                map.get("names").unwrap_or(&Value::Null),
                "at least one option name is required",
            ))
        } else {
            Ok(n)
        }
    });
    let parts = (
        take(program, &mut problems),
        take(subcommand, &mut problems),
        take(option_names, &mut problems),
        take(value, &mut problems),
        take(effect, &mut problems),
    );
    Error::from_list(problems)?;
    let (Some(program), Some(subcommand), Some(names), Some(value), Some(effect)) = parts else {
        return Err(Error::invalid(at, item, "invalid option"));
    };
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut option = match effect {
        Some(effect) => CommandOption::new(program, &refs, value, effect),
        None => CommandOption::valued(program, &refs),
    };
    if let Some(sub) = subcommand {
        option = option.subcommand(sub);
    }
    Ok(option)
}
