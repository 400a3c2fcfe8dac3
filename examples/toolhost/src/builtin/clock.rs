//! `clock`: the current date and time, in UTC or at a fixed offset.

use chrono::{FixedOffset, Utc};
use serde::{Deserialize, Serialize};
use tool_core::{ApiDefinition, ErrorCode, FnTool, ToolBuilder, ToolError, ToolOutput};

/// Arguments of `clock____now`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NowArgs {
    /// Offset from UTC as `+HH:MM` or `-HH:MM` (default `+00:00`).
    #[serde(default)]
    pub utc_offset: Option<String>,
}

/// The state `clock____now` returns (served over MCP as its
/// `structuredContent`, under this type's schema as `outputSchema`).
#[derive(Debug, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Now {
    /// The date and time, RFC 3339.
    pub iso: String,
    /// Milliseconds since the Unix epoch.
    pub unix_ms: i64,
    /// The day of the week, in English.
    pub weekday: String,
    /// The UTC offset as asked.
    pub utc_offset: String,
}

/// The clock tool: reads the system clock and changes nothing (hints
/// read-only, idempotent — a second call changes nothing, though it tells
/// a later time — and closed-world).
pub fn tool() -> Result<FnTool, tool_core::Error> {
    ToolBuilder::new("clock")
        .title("Clock")
        .description("The current date and time.")
        .avatar("🕰️")
        .typed(
            ApiDefinition::new(
                "now",
                "Returns the current date and time (RFC 3339) at a UTC offset.",
            )
            .with_default_timeout_ms(2_000)
            .with_hints(super::pure_hints())
            .with_output_schema(schemars::schema_for!(Now).to_value()),
            |args: NowArgs, _ctx| async move {
                let spec = args.utc_offset.as_deref().unwrap_or("+00:00");
                let offset = parse_offset(spec).ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::new("invalid_utc_offset"),
                        format!(
                            "`{spec}` is not an offset like +08:00 or -05:30 (hours up to 14)."
                        ),
                    )
                })?;
                let now = Utc::now().with_timezone(&offset);
                let iso = now.to_rfc3339();
                let content = format!("{} ({})", iso, now.format("%A"));
                let state = serde_json::to_value(Now {
                    iso,
                    unix_ms: now.timestamp_millis(),
                    weekday: now.format("%A").to_string(),
                    utc_offset: spec.to_owned(),
                })
                .map_err(|e| ToolError::new(ErrorCode::EXECUTION_FAILED, e.to_string()))?;
                Ok(ToolOutput::with_state(content, state))
            },
        )
        .build()
}

/// Parses `+HH:MM` / `-HH:MM` / `Z`.
pub fn parse_offset(spec: &str) -> Option<FixedOffset> {
    if spec == "Z" || spec == "z" {
        return FixedOffset::east_opt(0);
    }
    let (sign, rest) = match spec.as_bytes().first()? {
        b'+' => (1, &spec[1..]),
        b'-' => (-1, &spec[1..]),
        _ => return None,
    };
    let (hours, minutes) = rest.split_once(':')?;
    if hours.len() != 2 || minutes.len() != 2 {
        return None;
    }
    let hours: i32 = hours.parse().ok()?;
    let minutes: i32 = minutes.parse().ok()?;
    if hours > 14 || minutes > 59 {
        return None;
    }
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::parse_offset;

    #[test]
    fn offsets_parse_or_refuse() {
        assert_eq!(parse_offset("+08:00").unwrap().local_minus_utc(), 8 * 3600);
        assert_eq!(
            parse_offset("-05:30").unwrap().local_minus_utc(),
            -(5 * 3600 + 1800)
        );
        assert!(parse_offset("Z").is_some());
        for bad in ["08:00", "+8:00", "+15:00", "+08:60", "", "+ab:cd"] {
            assert!(parse_offset(bad).is_none(), "{bad}");
        }
    }
}
