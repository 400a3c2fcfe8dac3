//! The local fixtures the agent works against: a project folder, a weather
//! API on 127.0.0.1 with its OpenAPI document, and where server-everything
//! is installed (by `.ci/setup.d/30-mcp.sh`).

use std::path::PathBuf;

use serde_json::json;

/// A weather API described by OpenAPI 3, served by [`serve_weather`].
pub const WEATHER_API: &str = r#"{"openapi": "3.0.3", "info": {"title": "Weather", "version": "1"},
  "paths": {"/forecast/{city}": {"get": {"operationId": "forecast",
    "description": "Tomorrow's forecast for a city.",
    "parameters": [{"name": "city", "in": "path", "required": true, "schema": {"type": "string"}}],
    "responses": {"200": {"description": "The forecast."}}}}}}"#;

/// Serves [`WEATHER_API`] on a free 127.0.0.1 port; returns its base URL.
pub async fn serve_weather() -> anyhow::Result<String> {
    use axum::{Json, Router, extract::Path, routing::get};
    let forecast = |Path(city): Path<String>| async move {
        Json(json!({"city": city, "forecast": "4 °C, light rain"}))
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let app = Router::new().route("/forecast/{city}", get(forecast));
    tokio::spawn(axum::serve(listener, app).into_future());
    Ok(url)
}

/// A temporary folder holding `project/notes.txt`, with room outside the
/// project; gone when dropped.
pub fn scratch() -> anyhow::Result<(tempfile::TempDir, PathBuf)> {
    let scratch = tempfile::tempdir()?;
    let project = scratch.path().join("project");
    std::fs::create_dir(&project)?;
    std::fs::write(project.join("notes.txt"), "buy milk\ncall Ada\n")?;
    Ok((scratch, project))
}

/// server-everything's entry point: the first argument, else the pinned copy.
pub fn everything_js() -> String {
    std::env::args().nth(1).unwrap_or_else(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        format!("{root}/../../tool-mcp/tests/fixtures/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
    })
}

/// The example skills of this repository.
pub const SKILLS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../skills");
