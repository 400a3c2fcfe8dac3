//! Large synthetic OpenAPI 3.0 documents shaped like the worst public ones,
//! generated deterministically (no download): shared by the size tests, the
//! `import_stats` example and `benches/benches/openapi.rs`.
//!
//! - [`Shape::docusign_like`]: ~400 operations whose bodies reach a wide web
//!   of large, described component schemas (in the docusign.net
//!   description one tool reached 154 `$defs`, 1.25 MB).
//! - [`Shape::graph_like`]: ~11 000 operations over a few thousand entity
//!   schemas with `allOf` inheritance, big `$select`/`$expand` enums and
//!   shared parameters, about 20 MB (the microsoft.com/graph description).
#![allow(dead_code)]

use serde_json::{Map, Value, json};

/// The parameters of a generated document.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Paths; each has a GET and a PATCH (and every third a DELETE).
    pub paths: usize,
    /// Component schemas.
    pub components: usize,
    /// Properties per component.
    pub properties: usize,
    /// References to other components per component.
    pub refs: usize,
    /// Layers of components: a reference points into the next layer (so
    /// nesting stays as shallow as real documents keep it).
    pub layers: usize,
    /// One reference in this many points back at its own schema (a cycle).
    pub back_every: usize,
    /// Characters of each description.
    pub description_chars: usize,
    /// Values of the `$select` enum of GET operations (0: no `$select`).
    pub select_values: usize,
    /// Seed of the generator.
    pub seed: u64,
}

impl Shape {
    /// Shaped like docusign.net (2.8 MB, 399 tools).
    pub fn docusign_like() -> Self {
        Self {
            paths: 160,
            components: 700,
            properties: 18,
            refs: 5,
            layers: 7,
            back_every: 25,
            description_chars: 140,
            select_values: 0,
            seed: 7,
        }
    }

    /// Shaped like microsoft.com/graph (20 MB, 11 320 operations).
    pub fn graph_like() -> Self {
        Self {
            paths: 4_850,
            components: 3_000,
            properties: 12,
            refs: 4,
            layers: 6,
            back_every: 15,
            description_chars: 90,
            select_values: 80,
            seed: 11,
        }
    }

    /// The document as JSON text.
    pub fn text(&self) -> String {
        serde_json::to_string(&self.document()).unwrap_or_default()
    }

    /// The document.
    pub fn document(&self) -> Value {
        let mut rng = Rng(self.seed.max(1));
        let mut schemas = Map::new();
        let name = |i: usize| format!("microsoft.graph.thing{i}");
        let words = [
            "the",
            "value",
            "of",
            "this",
            "field",
            "when",
            "set",
            "by",
            "service",
            "account",
            "envelope",
            "recipient",
            "status",
            "time",
            "identifier",
            "returned",
            "settings",
        ];
        let text = |n: usize, rng: &mut Rng| {
            let mut out = String::with_capacity(n + 10);
            while out.len() < n {
                out.push_str(words[rng.below(words.len())]);
                out.push(' ');
            }
            out.truncate(n);
            out
        };
        schemas.insert(
            "microsoft.graph.entity".into(),
            json!({"type": "object", "properties": {
                "id": {"type": "string", "description": "The unique identifier for an entity. Read-only."},
                "@odata.type": {"type": "string"}}}),
        );
        for i in 0..self.components {
            let mut properties = Map::new();
            let mut refs = 0;
            for p in 0..self.properties {
                let description = text(self.description_chars, &mut rng);
                let schema = if refs < self.refs
                    && p % (self.properties / self.refs.max(1)).max(1) == 1
                {
                    refs += 1;
                    let target = if self.back_every > 0 && rng.below(self.back_every) == 0 {
                        i
                    } else {
                        let layer = self.components.div_ceil(self.layers.max(1));
                        let next = (i / layer + 1) * layer;
                        if next >= self.components {
                            i
                        } else {
                            (next + rng.below(layer)).min(self.components - 1)
                        }
                    };
                    let reference =
                        json!({"$ref": format!("#/components/schemas/{}", name(target))});
                    if rng.below(2) == 0 {
                        json!({"type": "array", "items": reference, "description": description})
                    } else {
                        json!({"anyOf": [reference, {"type": "object", "nullable": true}], "description": description})
                    }
                } else {
                    match rng.below(4) {
                        0 => {
                            json!({"type": "string", "description": description, "example": "abc"})
                        }
                        1 => {
                            json!({"type": "integer", "format": "int32", "nullable": true, "description": description})
                        }
                        2 => json!({"type": "boolean", "description": description}),
                        _ => {
                            json!({"type": "string", "enum": ["none", "low", "normal", "high"], "description": description})
                        }
                    }
                };
                properties.insert(format!("prop{p}"), schema);
            }
            schemas.insert(
                name(i),
                json!({"allOf": [{"$ref": "#/components/schemas/microsoft.graph.entity"},
                    {"title": name(i), "type": "object", "properties": properties,
                     "description": text(self.description_chars * 2, &mut rng)}]}),
            );
        }
        let select: Vec<Value> = (0..self.select_values)
            .map(|v| Value::String(format!("prop{v}")))
            .collect();
        let mut paths = Map::new();
        for i in 0..self.paths {
            let component = rng.below(self.components);
            let path = format!("/things{i}/{{thing-id}}");
            let mut get_params = vec![
                json!({"name": "thing-id", "in": "path", "required": true, "schema": {"type": "string"},
                    "description": "The unique identifier of thing"}),
                json!({"$ref": "#/components/parameters/top"}),
            ];
            if !select.is_empty() {
                get_params.push(json!({"name": "$select", "in": "query", "style": "form", "explode": false,
                    "schema": {"uniqueItems": true, "type": "array", "items": {"enum": select.clone(), "type": "string"}},
                    "description": "Select properties to be returned"}));
                get_params.push(json!({"name": "$expand", "in": "query", "style": "form", "explode": false,
                    "schema": {"uniqueItems": true, "type": "array", "items": {"enum": ["*", "prop1", "prop5"], "type": "string"}},
                    "description": "Expand related entities"}));
            }
            let body = json!({"$ref": format!("#/components/schemas/{}", name(component))});
            let mut item = json!({
                "get": {"tags": [format!("group{}", i % 40)], "operationId": format!("things{i}.get"),
                    "summary": text(50, &mut rng), "parameters": get_params,
                    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": body.clone()}}}}},
                "patch": {"tags": [format!("group{}", i % 40)], "operationId": format!("things{i}.update"),
                    "summary": text(50, &mut rng),
                    "parameters": [{"name": "thing-id", "in": "path", "required": true, "schema": {"type": "string"}}],
                    "requestBody": {"required": true, "content": {"application/json": {"schema": body}}},
                    "responses": {"204": {"description": "ok"}}}
            });
            if i % 3 == 0 {
                item["delete"] = json!({"tags": [format!("group{}", i % 40)], "operationId": format!("things{i}.delete"),
                    "parameters": [{"name": "thing-id", "in": "path", "required": true, "schema": {"type": "string"}},
                        {"name": "If-Match", "in": "header", "schema": {"type": "string"}}],
                    "responses": {"204": {"description": "ok"}}});
            }
            paths.insert(path, item);
        }
        json!({
            "openapi": "3.0.4",
            "info": {"title": "Synthetic", "version": "1"},
            "servers": [{"url": "https://api.example.com/v1"}],
            "paths": paths,
            "components": {
                "schemas": schemas,
                "parameters": {"top": {"name": "$top", "in": "query", "schema": {"minimum": 0, "type": "integer"},
                    "description": "Show only the first n items", "example": 50}}
            }
        })
    }
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}
