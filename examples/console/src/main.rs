//! `console`: an approval console for pending tool calls.
//!
//! Two processes share a store (a directory of pending turns) and a key:
//!
//! - `console call --store DIR --key-file K --workspace W NAME ARGS` runs a
//!   model's call through the gated pipeline; what needs a person is
//!   written to `DIR/<turn id>.json` instead of waiting (the `notes` tool's
//!   `append` asks; `read` runs);
//! - `console serve --store DIR --key-file K --workspace W [--bind ADDR]`
//!   serves a page (no script, plain forms) listing every pending call with
//!   its reason, the confinement it would run under and its exact
//!   arguments; approve, decline or approve always; the resumed call's
//!   output is shown. The first line on stdout is `listening on URL`.
//!
//! The page signs the person's answer with the key and resumes the turn
//! in-process, through a use-once ledger: a form posted twice runs the
//! call once. It binds 127.0.0.1 by default and has no login: put real
//! authentication in front of anything like it.

mod host;
mod page;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use axum::extract::{Form, State};
use axum::response::Html;
use axum::routing::{get, post};
use clap::{Parser, Subcommand};
use serde::Deserialize;
use serde_json::json;
use tool_core::ToolCall;
use tool_core::durable::{Pending, Reply};

use crate::host::Host;

/// An approval console for pending tool calls.
#[derive(Debug, Parser)]
#[command(name = "console")]
struct Cli {
    /// The directory of pending turns.
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    store: PathBuf,
    /// The MAC key (hex, at least 32 bytes), the same for every process.
    #[arg(
        long = "key-file",
        global = true,
        value_name = "FILE",
        default_value = "console.key"
    )]
    key_file: PathBuf,
    /// The workspace the `notes` tool writes in (the turns' scope).
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    workspace: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run one call; write it to the store when it needs a person.
    Call {
        /// The wire name, e.g. `notes____append`.
        name: String,
        /// The raw arguments JSON.
        #[arg(default_value = "{}")]
        args: String,
    },
    /// Serve the page.
    Serve {
        /// Where to listen.
        #[arg(long, default_value = "127.0.0.1:0")]
        bind: SocketAddr,
    },
}

struct App {
    host: Host,
    store: PathBuf,
    /// One resume at a time per store file.
    lock: tokio::sync::Mutex<()>,
}

/// A turn id is `pend_` + hex: nothing else names a file.
fn turn_path(store: &Path, id: &str) -> Option<PathBuf> {
    let ok = id.starts_with("pend_") && id[5..].bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| store.join(format!("{id}.json")))
}

/// Every pending turn of the store, and the files that could not be read.
fn load_all(store: &Path) -> (Vec<Pending>, Vec<String>) {
    let mut turns = BTreeMap::new();
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(store) else {
        return (
            Vec::new(),
            vec![format!("cannot read the store {}", store.display())],
        );
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !(name.starts_with("pend_") && name.ends_with(".json")) || name.ends_with(".done.json") {
            continue;
        }
        match std::fs::read_to_string(&path)
            .map_err(anyhow::Error::from)
            .and_then(|text| Ok(Pending::from_json(&text)?))
        {
            Ok(pending) => {
                turns.insert(pending.created_at_ms.to_string() + &pending.id, pending);
            }
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    (turns.into_values().collect(), problems)
}

async fn list(State(app): State<Arc<App>>) -> Html<String> {
    let (turns, mut problems) = load_all(&app.store);
    let mut shown = Vec::new();
    for pending in turns {
        if let Err(e) = pending.verify(app.host.durable.keys()) {
            problems.push(e.to_string());
            continue;
        }
        let always = pending
            .items
            .iter()
            .map(|item| match app.host.durable.always_rule(item) {
                Ok(rule) => rule.describe(),
                Err(e) => format!("not available: {e}"),
            })
            .collect();
        shown.push((pending, always));
    }
    Html(page::list(&shown, &problems))
}

#[derive(Debug, Deserialize)]
struct AnswerForm {
    turn: String,
    call: String,
    reply: String,
}

async fn answer(State(app): State<Arc<App>>, Form(form): Form<AnswerForm>) -> Html<String> {
    match resume(&app, &form).await {
        Ok(html) => Html(html),
        Err(e) => Html(page::problem(&format!("{e:#}"))),
    }
}

async fn resume(app: &App, form: &AnswerForm) -> anyhow::Result<String> {
    let reply = match form.reply.as_str() {
        "approve" => Reply::approve(),
        "always" => Reply::approve_always(),
        "decline" => Reply::decline(Some("declined on the console".to_owned())),
        other => anyhow::bail!("unknown reply `{other}`"),
    };
    let path = turn_path(&app.store, &form.turn).context("not a turn id")?;
    let _guard = app.lock.lock().await;
    // A settled turn is kept as `.done.json` for the record and never
    // resumed again; a settled item is no longer in its turn's file. So a
    // form posted twice finds nothing to answer (and within this process
    // the ledger would refuse it too).
    let done = path.with_extension("done.json");
    let text = std::fs::read_to_string(&path)
        .context("no such pending turn (settled already, or never made)")?;
    let pending = Pending::from_json(&text)?;
    let host = &app.host;
    let answer = pending.answer(&form.call, reply, host.durable.keys())?;
    let index = pending.item(&form.call).map(|i| i.index);
    let turn = host
        .invoker
        .resume(
            &host.durable,
            &host.offered,
            pending.clone(),
            &[answer],
            &host.ctx,
        )
        .await?;
    match &turn.pending {
        Some(next) => std::fs::write(&path, serde_json::to_string_pretty(next)?)?,
        None if path.exists() => {
            std::fs::write(&done, &text)?;
            std::fs::remove_file(&path)?;
        }
        None => {}
    }
    let outcomes: Vec<_> = index
        .into_iter()
        .map(|i| {
            (
                form.call.clone(),
                turn.interventions.get(i).cloned().flatten(),
                turn.outputs.get(i).cloned().flatten(),
            )
        })
        .collect();
    let refused: Vec<String> = turn.refused.iter().map(|r| r.reason.clone()).collect();
    Ok(page::resumed(&outcomes, &refused))
}

async fn serve(host: Host, store: PathBuf, bind: SocketAddr) -> anyhow::Result<()> {
    let app = Arc::new(App {
        host,
        store,
        lock: tokio::sync::Mutex::new(()),
    });
    let router = axum::Router::new()
        .route("/", get(list))
        .route("/answer", post(answer))
        .with_state(app);
    let listener = tokio::net::TcpListener::bind(bind).await?;
    println!("listening on http://{}/", listener.local_addr()?);
    axum::serve(listener, router).await?;
    Ok(())
}

async fn call(host: Host, store: &Path, name: &str, args: &str) -> anyhow::Result<()> {
    let calls = [ToolCall::new(name, args)];
    let turn = host
        .invoker
        .invoke_turn(&host.durable, &host.offered, &calls, &host.ctx)
        .await;
    let written = match &turn.pending {
        Some(pending) => {
            let path = turn_path(store, &pending.id).context("turn id")?;
            std::fs::write(&path, serde_json::to_string_pretty(pending)?)?;
            Some(path.display().to_string())
        }
        None => None,
    };
    println!(
        "{}",
        json!({ "output": turn.outputs.first().cloned().flatten(), "pending": written })
    );
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let host = Host::new(&cli.workspace, &cli.key_file)?;
    match cli.command {
        Command::Call { name, args } => call(host, &cli.store, &name, &args).await,
        Command::Serve { bind } => serve(host, cli.store, bind).await,
    }
}
