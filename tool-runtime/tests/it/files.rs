use crate::common::{code, computer, ctx, ok, state, write};
use tool_runtime::{
    ComputerRuntime, EditFileParams, ListFilesParams, MoveFilesParams, MoveItem, ReadFileParams,
    ReadFilesParams, RenameFileParams, SortBy, WriteFileParams,
};

fn range(path: &str, start: Option<usize>, end: Option<usize>) -> ReadFileParams {
    ReadFileParams {
        start_line: start,
        end_line: end,
        ..ReadFileParams::new(path)
    }
}

fn numbered(lines: usize) -> String {
    (0..lines).map(|i| format!("line {i}\n")).collect()
}

fn edit(path: &str, old: &str, new: &str) -> EditFileParams {
    EditFileParams {
        path: path.into(),
        old_string: old.into(),
        new_string: new.into(),
        replace_all: None,
        expected_hash: None,
    }
}

#[tokio::test]
async fn read_defaults_to_the_first_200_lines_and_reports_totals() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "big.txt", numbered(500));
    let out = computer()
        .read_file(ReadFileParams::new("big.txt"), &ctx(dir.path()))
        .await;
    let s = ok(&out);
    assert_eq!(s["startLine"], 0);
    assert_eq!(s["endLine"], 200);
    assert_eq!(s["totalLines"], 500);
    assert_eq!(s["totalCharacters"], numbered(500).chars().count());
    assert!(s["content"].as_str().unwrap().ends_with("line 199\n"));
    assert!(out.content.contains("startLine: 200"), "{}", out.content);
}

#[tokio::test]
async fn ranges_at_file_boundaries_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f.txt", numbered(10));
    let c = computer();
    let cx = ctx(dir.path());

    let last = c.read_file(range("f.txt", Some(9), Some(10)), &cx).await;
    assert_eq!(ok(&last)["content"], "line 9\n");

    let past_end = c.read_file(range("f.txt", Some(8), Some(1000)), &cx).await;
    assert_eq!(ok(&past_end)["endLine"], 10);
    assert_eq!(ok(&past_end)["content"], "line 8\nline 9\n");

    let at_end = c.read_file(range("f.txt", Some(10), None), &cx).await;
    assert_eq!(ok(&at_end)["content"], "");

    let beyond = c.read_file(range("f.txt", Some(11), None), &cx).await;
    assert_eq!(code(&beyond), "invalid_argument");
    assert!(beyond.content.contains("10 lines"), "{}", beyond.content);

    let empty_range = c.read_file(range("f.txt", Some(3), Some(3)), &cx).await;
    assert_eq!(ok(&empty_range)["content"], "");

    let reversed = c.read_file(range("f.txt", Some(5), Some(2)), &cx).await;
    assert_eq!(code(&reversed), "invalid_argument");

    let whole = c
        .read_file(
            ReadFileParams {
                full_content: Some(true),
                ..range("f.txt", Some(5), Some(6))
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&whole)["content"], numbered(10));
}

#[tokio::test]
async fn an_empty_file_and_a_file_without_final_newline_count_lines_right() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "empty", "");
    write(dir.path(), "nofinal", "a\nb");
    let c = computer();
    let cx = ctx(dir.path());
    assert_eq!(
        ok(&c.read_file(ReadFileParams::new("empty"), &cx).await)["totalLines"],
        0
    );
    assert_eq!(
        ok(&c.read_file(ReadFileParams::new("nofinal"), &cx).await)["totalLines"],
        2
    );
}

#[tokio::test]
async fn a_20_mb_file_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("huge.log")).unwrap();
    file.set_len(20 * 1024 * 1024).unwrap();
    let out = computer()
        .read_file(ReadFileParams::new("huge.log"), &ctx(dir.path()))
        .await;
    assert_eq!(code(&out), "file_too_large");
    assert!(out.content.contains("grepContent"), "{}", out.content);
    assert_eq!(state(&out)["request"]["path"], "huge.log");
}

#[tokio::test]
async fn binary_files_are_detected_by_content_not_extension() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "looks.txt",
        b"PK\x03\x04\x00\x00binary\x00stuff",
    );
    write(dir.path(), "real.bin", "plain text in a .bin file\n");
    let c = computer();
    let cx = ctx(dir.path());
    let bin = c.read_file(ReadFileParams::new("looks.txt"), &cx).await;
    assert_eq!(code(&bin), "binary_file");
    assert!(bin.content.contains("NUL"));
    assert!(
        c.read_file(ReadFileParams::new("real.bin"), &cx)
            .await
            .success
    );
}

#[tokio::test]
async fn utf16_files_with_a_bom_are_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = vec![0xFE, 0xFF];
    for unit in "héllo\nwörld\n".encode_utf16() {
        bytes.extend_from_slice(&unit.to_be_bytes());
    }
    write(dir.path(), "u16.txt", bytes);
    let out = computer()
        .read_file(ReadFileParams::new("u16.txt"), &ctx(dir.path()))
        .await;
    let s = ok(&out);
    assert_eq!(s["encoding"], "utf-16be");
    assert_eq!(s["content"], "héllo\nwörld\n");
}

#[tokio::test]
async fn over_long_lines_are_cut_and_total_content_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("{}\nshort\n", "x".repeat(20_000));
    write(dir.path(), "long.txt", long);
    let medium: String = (0..100)
        .map(|i| format!("{i:04}{}\n", "y".repeat(996)))
        .collect();
    write(dir.path(), "medium.txt", medium);
    let c = computer();
    let cx = ctx(dir.path());

    let cut = c.read_file(ReadFileParams::new("long.txt"), &cx).await;
    let s = ok(&cut);
    assert_eq!(s["longLinesCut"], 1);
    assert!(
        s["content"]
            .as_str()
            .unwrap()
            .contains("[line cut: 20000 characters")
    );
    assert!(s["content"].as_str().unwrap().ends_with("short\n"));

    let capped = c.read_file(ReadFileParams::new("medium.txt"), &cx).await;
    let s = ok(&capped);
    assert_eq!(s["truncated"], true);
    let end = s["endLine"].as_u64().unwrap();
    assert!(end < 100 && end > 10);
    assert!(
        capped
            .content
            .contains(&format!("continue with startLine: {end}"))
    );
}

#[tokio::test]
async fn tilde_and_absolute_paths_resolve_and_are_reported_as_given() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "hi\n");
    let abs = dir.path().join("a.txt").to_string_lossy().into_owned();
    let out = computer()
        .read_file(ReadFileParams::new(abs.clone()), &ctx(dir.path()))
        .await;
    assert_eq!(ok(&out)["path"], abs);
    let missing = computer()
        .read_file(
            ReadFileParams::new("~/definitely-not-here-42"),
            &ctx(dir.path()),
        )
        .await;
    assert_eq!(code(&missing), "file_not_found");
}

#[tokio::test]
async fn read_files_reports_each_file_or_its_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "A\n");
    let out = computer()
        .read_files(
            ReadFilesParams {
                paths: vec!["a.txt".into(), "missing.txt".into()],
            },
            &ctx(dir.path()),
        )
        .await;
    let s = ok(&out);
    assert_eq!(s["files"][0]["file"]["content"], "A\n");
    assert_eq!(s["files"][1]["error"]["code"], "file_not_found");
    assert!(
        out.content
            .contains("=== missing.txt (failed: file_not_found)")
    );
}

#[tokio::test]
async fn write_creates_parents_reports_bytes_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let c = computer();
    let cx = ctx(dir.path());
    let p = WriteFileParams {
        path: "deep/er/new.txt".into(),
        content: "héllo\n".into(),
    };
    let first = c.write_file(p.clone(), &cx).await;
    assert_eq!(ok(&first)["bytesWritten"], 7);
    assert_eq!(ok(&first)["created"], true);
    let second = c.write_file(p, &cx).await;
    assert_eq!(ok(&second)["created"], false);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("deep/er/new.txt")).unwrap(),
        "héllo\n"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path().join("deep/er"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(names.len(), 1, "a temporary file was left behind");
}

#[tokio::test]
async fn write_over_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    let out = computer()
        .write_file(
            WriteFileParams {
                path: "d".into(),
                content: "x".into(),
            },
            &ctx(dir.path()),
        )
        .await;
    assert_eq!(code(&out), "wrong_file_kind");
}

#[tokio::test]
async fn edit_replaces_literal_text_and_returns_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.rs", "fn main() {\n    let x = 1;\n}\n");
    let out = computer()
        .edit_file(
            edit("a.rs", "let x = 1;", "let x = \"$1 (.*)\";"),
            &ctx(dir.path()),
        )
        .await;
    let s = ok(&out);
    assert_eq!(s["replacements"], 1);
    assert_eq!(s["linesAdded"], 1);
    assert_eq!(s["linesRemoved"], 1);
    assert!(
        s["diff"]
            .as_str()
            .unwrap()
            .contains("+    let x = \"$1 (.*)\";")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.rs")).unwrap(),
        "fn main() {\n    let x = \"$1 (.*)\";\n}\n"
    );
}

#[tokio::test]
async fn an_ambiguous_edit_is_refused_naming_count_and_lines() {
    let dir = tempfile::tempdir().unwrap();
    let original = "a = 1\nb = 2\na = 1\nc = 3\na = 1\n";
    write(dir.path(), "cfg", original);
    let c = computer();
    let cx = ctx(dir.path());
    let out = c.edit_file(edit("cfg", "a = 1", "a = 9"), &cx).await;
    assert_eq!(code(&out), "edit_ambiguous");
    assert!(out.content.contains("3 times"), "{}", out.content);
    assert!(out.content.contains("lines 1, 3, 5"), "{}", out.content);
    assert_eq!(
        out.error.as_ref().unwrap().details.as_ref().unwrap()["lines"][1],
        3
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cfg")).unwrap(),
        original
    );

    let all = c
        .edit_file(
            EditFileParams {
                replace_all: Some(true),
                ..edit("cfg", "a = 1", "a = 9")
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&all)["replacements"], 3);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cfg")).unwrap(),
        "a = 9\nb = 2\na = 9\nc = 3\na = 9\n"
    );
}

#[tokio::test]
async fn an_edit_of_absent_text_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "hello\n");
    let out = computer()
        .edit_file(edit("a.txt", "bye", "x"), &ctx(dir.path()))
        .await;
    assert_eq!(code(&out), "edit_text_not_found");
    assert!(out.content.contains("not found"));
}

#[tokio::test]
async fn a_crlf_file_keeps_its_line_endings_after_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "win.txt", "one\r\ntwo\r\nthree\r\n");
    let out = computer()
        .edit_file(
            edit("win.txt", "one\ntwo\n", "uno\ndos\nextra\n"),
            &ctx(dir.path()),
        )
        .await;
    ok(&out);
    assert_eq!(
        std::fs::read(dir.path().join("win.txt")).unwrap(),
        b"uno\r\ndos\r\nextra\r\nthree\r\n"
    );
}

#[tokio::test]
async fn an_edit_of_a_file_changed_since_it_was_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "alpha\nbeta\n");
    let c = computer();
    let cx = ctx(dir.path());
    let read = c.read_file(ReadFileParams::new("a.txt"), &cx).await;
    let hash = ok(&read)["contentHash"].as_str().unwrap().to_owned();

    // Someone else changes the file after the model read it.
    write(dir.path(), "a.txt", "alpha\nbeta\ngamma\n");
    let stale = c
        .edit_file(
            EditFileParams {
                expected_hash: Some(hash),
                ..edit("a.txt", "beta", "BETA")
            },
            &cx,
        )
        .await;
    assert_eq!(code(&stale), "file_changed");
    assert!(stale.content.contains("read it again"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "alpha\nbeta\ngamma\n"
    );

    let fresh = c.read_file(ReadFileParams::new("a.txt"), &cx).await;
    let hash = ok(&fresh)["contentHash"].as_str().unwrap().to_owned();
    let edited = c
        .edit_file(
            EditFileParams {
                expected_hash: Some(hash),
                ..edit("a.txt", "beta", "BETA")
            },
            &cx,
        )
        .await;
    let new_hash = ok(&edited)["contentHash"].as_str().unwrap().to_owned();
    let after = c.read_file(ReadFileParams::new("a.txt"), &cx).await;
    assert_eq!(ok(&after)["contentHash"], new_hash);
}

#[tokio::test]
async fn edit_keeps_file_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "run.sh", "echo a\n");
    let path = dir.path().join("run.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    ok(&computer()
        .edit_file(edit("run.sh", "a", "b"), &ctx(dir.path()))
        .await);
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[tokio::test]
async fn list_sorts_directories_first_and_hides_dotfiles() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.txt", "bb");
    write(dir.path(), "a.txt", "a");
    write(dir.path(), ".hidden", "");
    write(dir.path(), "zdir/x", "");
    let c = computer();
    let cx = ctx(dir.path());
    let out = c
        .list_files(
            ListFilesParams {
                path: ".".into(),
                show_hidden: None,
                sort_by: None,
                limit: None,
            },
            &cx,
        )
        .await;
    let names: Vec<_> = ok(&out)["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["zdir", "a.txt", "b.txt"]);
    assert_eq!(ok(&out)["entries"][0]["isDirectory"], true);

    let by_size = c
        .list_files(
            ListFilesParams {
                path: ".".into(),
                show_hidden: Some(true),
                sort_by: Some(SortBy::Size),
                limit: Some(2),
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&by_size)["total"], 4);
    assert_eq!(ok(&by_size)["entries"][0]["name"], "b.txt");
    assert!(by_size.content.contains("… and 2 more"));

    let not_dir = c
        .list_files(
            ListFilesParams {
                path: "a.txt".into(),
                show_hidden: None,
                sort_by: None,
                limit: None,
            },
            &cx,
        )
        .await;
    assert_eq!(code(&not_dir), "wrong_file_kind");
}

#[tokio::test]
async fn move_reports_each_item_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "A");
    write(dir.path(), "b.txt", "B");
    write(dir.path(), "taken.txt", "T");
    let item = |o: &str, n: &str| MoveItem {
        old_path: o.into(),
        new_path: n.into(),
    };
    let out = computer()
        .move_files(
            MoveFilesParams {
                items: vec![
                    item("a.txt", "sub/dir/a.txt"),
                    item("b.txt", "taken.txt"),
                    item("nope.txt", "x.txt"),
                ],
                overwrite: None,
            },
            &ctx(dir.path()),
        )
        .await;
    let s = ok(&out);
    assert_eq!(s["moved"], 1);
    assert_eq!(s["failed"], 2);
    assert_eq!(s["results"][1]["error"]["code"], "already_exists");
    assert_eq!(s["results"][2]["error"]["code"], "file_not_found");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sub/dir/a.txt")).unwrap(),
        "A"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("taken.txt")).unwrap(),
        "T"
    );
}

#[tokio::test]
async fn rename_stays_in_the_directory_and_rejects_paths_as_names() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/old.rs", "x");
    let c = computer();
    let cx = ctx(dir.path());
    let out = c
        .rename_file(
            RenameFileParams {
                path: "src/old.rs".into(),
                new_name: "new.rs".into(),
            },
            &cx,
        )
        .await;
    assert_eq!(ok(&out)["newPath"], "src/new.rs");
    assert!(dir.path().join("src/new.rs").exists());
    let bad = c
        .rename_file(
            RenameFileParams {
                path: "src/new.rs".into(),
                new_name: "../x.rs".into(),
            },
            &cx,
        )
        .await;
    assert_eq!(code(&bad), "invalid_argument");
}
