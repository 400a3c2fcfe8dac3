//! The HTML of the console: plain forms, no script.

use serde_json::Value;
use tool_core::ToolOutput;
use tool_core::durable::{Asked, Intervention, Pending};

/// Escapes text for HTML element content and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn shell(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}\
         .item{{border:1px solid #999;border-radius:6px;padding:1em;margin:1em 0}}\
         pre{{background:#f4f4f4;padding:.5em;white-space:pre-wrap}}\
         .why{{color:#633}} button{{margin-right:.5em}}</style></head>\
         <body><h1>{}</h1>{body}</body></html>\n",
        escape(title),
        escape(title)
    )
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// One pending item with its three answers. `always` is the rule an
/// "always" would record, shown before the person picks it.
fn item_html(pending: &Pending, item: &tool_core::durable::PendingItem, always: &str) -> String {
    let call = escape(item.call_id());
    let turn = escape(&pending.id);
    let asked = match &item.asked {
        Asked::Approval => "approval".to_owned(),
        Asked::Input { questions, .. } => {
            let list: Vec<String> = questions.iter().map(|q| escape(&q.message)).collect();
            format!("answers to: {}", list.join("; "))
        }
        _ => "something else".to_owned(),
    };
    let confinement = item
        .decision
        .confinement
        .as_ref()
        .map_or("nothing to confine".to_owned(), |c| {
            serde_json::to_string(c).unwrap_or_default()
        });
    format!(
        "<div class=\"item\" id=\"item-{call}\">\
         <h2>{tool}/{api}</h2>\
         <p>Asks for: {asked}</p>\
         <p class=\"why\">Why: <span class=\"reason\">{reason}</span> (rule: {rule})</p>\
         <p>Would run under: <code class=\"confinement\">{confinement}</code></p>\
         <p>Exact arguments:</p><pre class=\"arguments\">{args}</pre>\
         <p>\"Always\" would mean: <em>{always}</em></p>\
         <form method=\"post\" action=\"/answer\">\
         <input type=\"hidden\" name=\"turn\" value=\"{turn}\">\
         <input type=\"hidden\" name=\"call\" value=\"{call}\">\
         <button name=\"reply\" value=\"approve\" id=\"approve-{call}\">Approve</button>\
         <button name=\"reply\" value=\"decline\" id=\"decline-{call}\">Decline</button>\
         <button name=\"reply\" value=\"always\" id=\"always-{call}\">Approve always</button>\
         </form></div>",
        tool = escape(&item.binding.tool),
        api = escape(&item.binding.api),
        reason = escape(&item.decision.message),
        rule = escape(item.decision.rule.as_deref().unwrap_or("none")),
        confinement = escape(&confinement),
        args = escape(&pretty(&item.arguments())),
        always = escape(always),
    )
}

/// The list of every pending turn of the store.
pub fn list(turns: &[(Pending, Vec<String>)], problems: &[String]) -> String {
    let mut body = String::new();
    if turns.iter().all(|(p, _)| p.items.is_empty()) {
        body.push_str("<p id=\"empty\">Nothing waits for you.</p>");
    }
    for (pending, always) in turns {
        body.push_str(&format!(
            "<section class=\"turn\"><p>Turn <code>{}</code></p>",
            escape(&pending.id)
        ));
        for (item, always) in pending.items.iter().zip(always) {
            body.push_str(&item_html(pending, item, always));
        }
        body.push_str("</section>");
    }
    for problem in problems {
        body.push_str(&format!("<p class=\"problem\">{}</p>", escape(problem)));
    }
    shell("Pending tool calls", &body)
}

/// What a resume did: each settled call's status and output.
pub fn resumed(
    outcomes: &[(String, Option<Intervention>, Option<ToolOutput>)],
    refused: &[String],
) -> String {
    let mut body = String::new();
    for (call, intervention, output) in outcomes {
        let status = intervention
            .as_ref()
            .map_or("settled before".to_owned(), |i| {
                serde_json::to_value(i.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            });
        let (content, code) = match output {
            Some(output) => (
                output.content.clone(),
                output
                    .error_code()
                    .map_or("none".to_owned(), |c| c.as_str().to_owned()),
            ),
            None => ("(still pending)".to_owned(), "none".to_owned()),
        };
        body.push_str(&format!(
            "<div class=\"item result\" id=\"result-{call}\"><p>Call <code>{call}</code>: \
             <strong class=\"status\">{status}</strong> (error code: <code class=\"code\">{code}</code>)</p>\
             <pre class=\"output\">{content}</pre></div>",
            call = escape(call),
            status = escape(&status),
            code = escape(&code),
            content = escape(&content),
        ));
    }
    for reason in refused {
        body.push_str(&format!(
            "<p class=\"problem\">Refused: {}</p>",
            escape(reason)
        ));
    }
    body.push_str("<p><a href=\"/\" id=\"back\">Back to the list</a></p>");
    shell("Resumed", &body)
}

/// An error page.
pub fn problem(message: &str) -> String {
    shell(
        "Not done",
        &format!(
            "<p class=\"problem\">{}</p><p><a href=\"/\">Back</a></p>",
            escape(message)
        ),
    )
}
