use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::common::{code, computer, ctx, ok, write};
use serde_json::Value;
use tool_runtime::{
    ComputerRuntime, EntryKind, GlobFilesParams, GrepContentParams, GrepOutputMode,
    SearchFilesParams,
};

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, ".gitignore", "target/\n*.log\n");
    write(
        d,
        "src/lib.rs",
        "pub fn alpha() {}\n// TODO: beta\nfn gamma() {\n    todo!()\n}\n",
    );
    write(d, "src/main.rs", "fn main() {\n    alpha();\n}\n");
    write(d, "docs/guide.md", "# Guide\nAlpha and beta.\n");
    write(d, "target/debug/gen.rs", "fn alpha_generated() {}\n");
    write(d, "debug.log", "alpha in a log\n");
    write(d, ".hidden/secret.rs", "fn alpha_hidden() {}\n");
    dir
}

fn glob(pattern: &str) -> GlobFilesParams {
    GlobFilesParams {
        pattern: pattern.into(),
        path: None,
        include_ignored: None,
        include_hidden: None,
        limit: None,
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|x| x.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

async fn grep(dir: &Path, p: GrepContentParams) -> Value {
    let out = computer().grep_content(p, &ctx(dir)).await;
    ok(&out).clone()
}

#[tokio::test]
async fn glob_honours_gitignore_and_includes_ignored_on_request() {
    let dir = tree();
    let c = computer();
    let cx = ctx(dir.path());
    let out = c.glob_files(glob("**/*.rs"), &cx).await;
    assert_eq!(strings(&ok(&out)["files"]), ["src/lib.rs", "src/main.rs"]);

    let all = c
        .glob_files(
            GlobFilesParams {
                include_ignored: Some(true),
                include_hidden: Some(true),
                ..glob("**/*.rs")
            },
            &cx,
        )
        .await;
    assert_eq!(
        strings(&ok(&all)["files"]),
        [
            ".hidden/secret.rs",
            "src/lib.rs",
            "src/main.rs",
            "target/debug/gen.rs"
        ]
    );
}

#[tokio::test]
async fn glob_without_slash_matches_names_at_any_depth_and_caps_results() {
    let dir = tree();
    let out = computer()
        .glob_files(
            GlobFilesParams {
                limit: Some(1),
                ..glob("*.rs")
            },
            &ctx(dir.path()),
        )
        .await;
    let s = ok(&out);
    assert_eq!(s["total"], 2);
    assert_eq!(strings(&s["files"]), ["src/lib.rs"]);
    assert!(out.content.contains("… and 1 more"));
    let bad = computer()
        .glob_files(glob("src/[a"), &ctx(dir.path()))
        .await;
    assert_eq!(code(&bad), "invalid_argument");
}

#[tokio::test]
async fn search_files_matches_name_words_types_and_kinds() {
    let dir = tree();
    let c = computer();
    let cx = ctx(dir.path());
    let base = SearchFilesParams {
        keyword: "main".into(),
        directory: None,
        file_types: None,
        modified_after: None,
        modified_before: None,
        kind: None,
        include_ignored: None,
        include_hidden: None,
        limit: None,
    };
    let out = c.search_files(base.clone(), &cx).await;
    let paths: Vec<_> = ok(&out)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].clone())
        .collect();
    assert_eq!(paths, ["src/main.rs"]);

    let md = c
        .search_files(
            SearchFilesParams {
                keyword: "".into(),
                file_types: Some(vec!["md".into()]),
                ..base.clone()
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&md)["results"][0]["path"], "docs/guide.md");
    assert_eq!(ok(&md)["total"], 1);

    let dirs = c
        .search_files(
            SearchFilesParams {
                keyword: "SR".into(),
                kind: Some(EntryKind::Directory),
                ..base.clone()
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&dirs)["results"][0]["path"], "src");
    assert_eq!(ok(&dirs)["results"][0]["isDirectory"], true);

    let ignored = c
        .search_files(
            SearchFilesParams {
                keyword: "gen".into(),
                include_ignored: Some(true),
                ..base.clone()
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&ignored)["results"][0]["path"], "target/debug/gen.rs");
}

#[tokio::test]
async fn search_files_filters_by_modification_time() {
    let dir = tree();
    let old = dir.path().join("docs/guide.md");
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(946_684_800); // 2000-01-01
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let c = computer();
    let cx = ctx(dir.path());
    let base = SearchFilesParams {
        keyword: "".into(),
        directory: Some("docs".into()),
        file_types: None,
        modified_after: None,
        modified_before: None,
        kind: None,
        include_ignored: None,
        include_hidden: None,
        limit: None,
    };
    let recent = c
        .search_files(
            SearchFilesParams {
                modified_after: Some("2010-01-01".into()),
                ..base.clone()
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&recent)["total"], 0);
    let before = c
        .search_files(
            SearchFilesParams {
                modified_before: Some("2000-01-02T00:00:00Z".into()),
                ..base.clone()
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&before)["results"][0]["path"], "docs/guide.md");
    let bad = c
        .search_files(
            SearchFilesParams {
                modified_after: Some("last week".into()),
                ..base
            },
            &cx,
        )
        .await;
    assert_eq!(code(&bad), "invalid_argument");
}

#[tokio::test]
async fn grep_lists_matching_files_sorted_and_skips_ignored_ones() {
    let dir = tree();
    let s = grep(dir.path(), GrepContentParams::new("alpha")).await;
    assert_eq!(strings(&s["files"]), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(s["totalFiles"], 2);

    let all = grep(
        dir.path(),
        GrepContentParams {
            include_ignored: Some(true),
            include_hidden: Some(true),
            ..GrepContentParams::new("alpha")
        },
    )
    .await;
    assert_eq!(
        strings(&all["files"]),
        [
            ".hidden/secret.rs",
            "debug.log",
            "src/lib.rs",
            "src/main.rs",
            "target/debug/gen.rs"
        ]
    );
}

#[tokio::test]
async fn grep_content_mode_with_line_numbers_and_context() {
    let dir = tree();
    let p = GrepContentParams {
        output_mode: Some(GrepOutputMode::Content),
        path: Some("src/lib.rs".into()),
        context_before: Some(1),
        context_after: Some(0),
        ..GrepContentParams::new("todo!")
    };
    let s = grep(dir.path(), p.clone()).await;
    let lines = s["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["lineNumber"], 3);
    assert_eq!(lines[0]["context"], true);
    assert_eq!(lines[1]["lineNumber"], 4);
    assert_eq!(lines[1]["text"], "    todo!()");

    let out = computer().grep_content(p.clone(), &ctx(dir.path())).await;
    assert!(
        out.content.contains("src/lib.rs-3-fn gamma() {"),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("src/lib.rs:4:    todo!()"),
        "{}",
        out.content
    );

    let no_numbers = computer()
        .grep_content(
            GrepContentParams {
                line_numbers: Some(false),
                ..p.clone()
            },
            &ctx(dir.path()),
        )
        .await;
    assert!(
        no_numbers.content.contains("src/lib.rs:    todo!()"),
        "{}",
        no_numbers.content
    );

    let around = grep(
        dir.path(),
        GrepContentParams {
            context: Some(1),
            context_before: None,
            context_after: None,
            ..p
        },
    )
    .await;
    let numbers: Vec<_> = around["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["lineNumber"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [3, 4, 5]);
}

#[tokio::test]
async fn grep_case_insensitive_count_mode() {
    let dir = tree();
    let sensitive = grep(
        dir.path(),
        GrepContentParams {
            output_mode: Some(GrepOutputMode::Count),
            ..GrepContentParams::new("TODO")
        },
    )
    .await;
    assert_eq!(
        sensitive["counts"],
        serde_json::json!([{"path": "src/lib.rs", "count": 1}])
    );
    let insensitive = grep(
        dir.path(),
        GrepContentParams {
            output_mode: Some(GrepOutputMode::Count),
            case_insensitive: Some(true),
            ..GrepContentParams::new("TODO")
        },
    )
    .await;
    assert_eq!(insensitive["counts"][0]["count"], 2);
    assert_eq!(insensitive["totalMatches"], 2);
}

#[tokio::test]
async fn grep_glob_and_type_filters() {
    let dir = tree();
    let by_glob = grep(
        dir.path(),
        GrepContentParams {
            glob: Some("*.md".into()),
            case_insensitive: Some(true),
            ..GrepContentParams::new("alpha")
        },
    )
    .await;
    assert_eq!(strings(&by_glob["files"]), ["docs/guide.md"]);
    let by_type = grep(
        dir.path(),
        GrepContentParams {
            file_type: Some("rust".into()),
            case_insensitive: Some(true),
            ..GrepContentParams::new("alpha")
        },
    )
    .await;
    assert_eq!(strings(&by_type["files"]), ["src/lib.rs", "src/main.rs"]);
    let bad = computer()
        .grep_content(
            GrepContentParams {
                file_type: Some("klingon".into()),
                ..GrepContentParams::new("x")
            },
            &ctx(dir.path()),
        )
        .await;
    assert_eq!(code(&bad), "invalid_argument");
}

#[tokio::test]
async fn grep_limit_caps_results_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..50).map(|i| format!("hit {i}\n")).collect();
    write(dir.path(), "a.txt", &body);
    write(dir.path(), "b.txt", &body);
    let p = GrepContentParams {
        output_mode: Some(GrepOutputMode::Content),
        limit: Some(10),
        ..GrepContentParams::new("hit")
    };
    let out = computer().grep_content(p, &ctx(dir.path())).await;
    let s = ok(&out);
    assert_eq!(s["lines"].as_array().unwrap().len(), 10);
    assert!(
        s["lines"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["path"] == "a.txt")
    );
    assert_eq!(s["omitted"], 90);
    assert!(out.content.contains("… and 90 more"));
    let files = computer()
        .grep_content(
            GrepContentParams {
                limit: Some(1),
                ..GrepContentParams::new("hit")
            },
            &ctx(dir.path()),
        )
        .await;
    assert_eq!(strings(&ok(&files)["files"]), ["a.txt"]);
    assert_eq!(ok(&files)["omitted"], 1);
}

#[tokio::test]
async fn grep_multiline_matches_across_lines() {
    let dir = tree();
    let single = computer()
        .grep_content(
            GrepContentParams::new(r"gamma\(\) \{\n\s+todo"),
            &ctx(dir.path()),
        )
        .await;
    assert_eq!(code(&single), "invalid_argument");
    assert!(
        single.content.contains("multiline: true"),
        "{}",
        single.content
    );
    let multi = grep(
        dir.path(),
        GrepContentParams {
            output_mode: Some(GrepOutputMode::Content),
            multiline: Some(true),
            ..GrepContentParams::new(r"gamma\(\) \{\n\s+todo")
        },
    )
    .await;
    let numbers: Vec<_> = multi["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["lineNumber"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [3, 4]);
}

#[tokio::test]
async fn grep_skips_binary_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "blob.dat", b"needle\x00\x01\x02");
    write(dir.path(), "text.txt", "needle\n");
    let s = grep(dir.path(), GrepContentParams::new("needle")).await;
    assert_eq!(strings(&s["files"]), ["text.txt"]);
}
