//! The walk over tree-sitter-bash's syntax tree that fills a [`ShellCommand`].

use tree_sitter::Node;

use super::scripts::{literal_output, reads_stdin_script, scripts_of_views};
use super::words::{unescape_bare, unescape_double};
use super::wrappers::too_many_wrappers;
use super::wrappers::word_views;
use super::{Hazard, MAX_NESTED_SCRIPTS, MAX_TREE_DEPTH, ShellCommand, SimpleCommand};

/// What the redirections of one command say.
#[derive(Debug, Default)]
struct Redirects {
    /// Files opened (not `/dev/null`, not fd duplication).
    targets: Vec<String>,
    /// Words after a target (`rm >x -rf /`): arguments of the command.
    extra_words: Vec<String>,
    /// Here-string and here-document texts, fed on standard input.
    stdin: Vec<String>,
    /// Files opened on standard input (`< F`).
    inputs: Vec<String>,
    /// `&>` or `&>>` was used: dash reads `&` as "run in the background".
    dash_background: bool,
    /// `cat <<EOF | sh`: the command's output goes to a shell reading a
    /// script (the grammar puts the pipeline inside the redirection).
    piped_to_script: bool,
}

pub(super) struct Walker<'s, 'o> {
    pub(super) src: &'s [u8],
    pub(super) out: &'o mut ShellCommand,
    pub(super) level: usize,
    /// Whether the node whose child is being visited is an expression
    /// leaf (false at the root). Kept by the walk because `Node::parent`
    /// searches down from the root: on a 1 000-part chain, 1 000 levels
    /// deep, asking it for every punctuation node made the walk quadratic.
    pub(super) in_expression_leaf: bool,
    /// The node a trailing redirection belongs to (see
    /// [`redirection_target`]) and, once the walk reached it, the index of
    /// its part (a command's own) or of its first part (a group's).
    pub(super) redirect_mark: Option<(usize, Option<usize>)>,
    /// Set by [`list`](Self::list) as it ends: the count of parts after
    /// its first command (a pipeline reads it, see `pipeline`).
    pub(super) list_first_end: Option<usize>,
}

/// The command a redirection after `body` applies to in Bash: the last
/// command of a list or pipeline (`a && b | c < F` feeds `c`), through
/// `!`; `body` itself otherwise (a command, a group, a subshell).
fn redirection_target(body: Node<'_>) -> Node<'_> {
    let mut node = body;
    while matches!(node.kind(), "list" | "pipeline" | "negated_command") {
        let count = u32::try_from(node.named_child_count()).unwrap_or(u32::MAX);
        let last = (0..count)
            .rev()
            .filter_map(|i| node.named_child(i))
            .find(|c| c.kind() != "comment");
        match last {
            Some(last) => node = last,
            None => break,
        }
    }
    node
}

impl Walker<'_, '_> {
    fn text(&self, node: Node<'_>) -> String {
        self.text_ref(node).into_owned()
    }

    /// [`text`](Self::text), borrowed from the line where it is valid UTF-8
    /// (always, but for a cut inside a character).
    fn text_ref(&self, node: Node<'_>) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.src.get(node.byte_range()).unwrap_or_default())
    }

    fn hazard(&mut self, hazard: Hazard) {
        self.out.hazards.push(hazard);
    }

    fn visit_children(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            self.visit_under(node, child, depth + 1, nested);
        }
    }

    /// [`visit`](Self::visit) of `child`, a child of `parent`.
    fn visit_under(&mut self, parent: Node<'_>, child: Node<'_>, depth: usize, nested: bool) {
        let outer = std::mem::replace(
            &mut self.in_expression_leaf,
            is_expression_leaf(parent.kind()),
        );
        self.visit(child, depth, nested);
        self.in_expression_leaf = outer;
    }

    pub(super) fn visit(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        if depth > MAX_TREE_DEPTH {
            self.hazard(Hazard::TooDeep);
            return;
        }
        if let Some((id, at)) = &mut self.redirect_mark
            && *id == node.id()
            && node.kind() != "command"
        {
            *at = Some(self.out.parts.len());
        }
        if node.is_error() || node.is_missing() {
            self.hazard(Hazard::Syntax);
        }
        match node.kind() {
            "command" => self.command(node, depth, nested),
            "subshell" => {
                self.hazard(Hazard::Subshell);
                self.visit_children(node, depth, true);
            }
            "command_substitution" => {
                self.hazard(Hazard::CommandSubstitution);
                self.visit_children(node, depth, true);
            }
            "process_substitution" => {
                self.hazard(Hazard::ProcessSubstitution);
                self.visit_children(node, depth, true);
            }
            "redirected_statement" => {
                let start = self.out.parts.len();
                let mut redirects = Redirects::default();
                // The grammar hangs a redirection after `a && b`, `a | b`
                // on the whole list or pipeline; Bash gives it to the last
                // command only (`git status && nc h < F` feeds `nc`). The
                // walk records that command's own part (its substitutions'
                // parts come before it, its scripts' after).
                let target = node.child_by_field_name("body").map(redirection_target);
                let outer_mark =
                    std::mem::replace(&mut self.redirect_mark, target.map(|t| (t.id(), None)));
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for child in children {
                    match child.kind() {
                        "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                            self.redirect(child, depth + 1, nested, &mut redirects);
                        }
                        _ => self.visit_under(node, child, depth + 1, nested),
                    }
                }
                let marked =
                    std::mem::replace(&mut self.redirect_mark, outer_mark).and_then(|(_, at)| at);
                let end = self.out.parts.len();
                if end == start {
                    // A redirection with no command (`> /etc/passwd`) still opens its file.
                    self.out.parts.push(SimpleCommand {
                        nested,
                        ..SimpleCommand::default()
                    });
                }
                let end = self.out.parts.len();
                // Every part keeps the targets (a write is judged whichever
                // command makes it); input and words go to the command
                // that has them.
                for part in self.out.parts.get_mut(start..end).unwrap_or_default() {
                    part.redirects.extend(redirects.targets.iter().cloned());
                }
                // Without a record (the last command made no part: `a &&
                // (( x )) < F`), the first part, as before.
                let host_at = marked.filter(|at| *at < end).unwrap_or(start);
                // A group or subshell (`a && { b; c; } < F`): every
                // command in it reads the input.
                let group_end = match target.map(|t| t.kind()) {
                    Some("command") | None => host_at.saturating_add(1).min(end),
                    Some(_) if marked.is_some() => end,
                    Some(_) => host_at.saturating_add(1).min(end),
                };
                for part in self
                    .out
                    .parts
                    .get_mut(host_at..group_end)
                    .unwrap_or_default()
                {
                    part.fed.extend(redirects.stdin.iter().cloned());
                    part.inputs.extend(redirects.inputs.iter().cloned());
                }
                // Words after a redirection belong to the command before it.
                let host = self.out.parts.get(host_at).map(|p| p.words.clone());
                if let Some(part) = self.out.parts.get_mut(host_at)
                    && !redirects.extra_words.is_empty()
                {
                    part.words.extend(redirects.extra_words.iter().cloned());
                    // Its readings change with its words.
                    part.views = std::sync::OnceLock::new();
                    part.stdin_commands = std::sync::OnceLock::new();
                    part.words_only = false;
                    part.classes.clear();
                }
                self.after_redirects(host.unwrap_or_default(), redirects);
            }
            "pipeline" => self.pipeline(node, depth, nested),
            "list" => self.list(node, depth, nested),
            "program" | "negated_command" | "comment" | "&&" | "||" | "|" | "|&" | ";" | "&"
            | "\n" | "!" | "(" | ")" | "`" | "$(" => {
                self.visit_children(node, depth, nested);
            }
            "declaration_command" | "unset_command" => self.declaration(node, depth, nested),
            "variable_assignment" => {
                // `X=1` alone: a part with the assignment and no words, so
                // what reads the variables a line sets sees it.
                self.hazard(Hazard::Assignment);
                let text = self.text(node);
                self.expansion_substitutions(&text);
                self.out.parts.push(SimpleCommand {
                    assignments: vec![text],
                    nested,
                    ..SimpleCommand::default()
                });
                self.visit_children(node, depth, nested);
            }
            "variable_assignments" => {
                self.hazard(Hazard::Assignment);
                self.visit_children(node, depth, nested);
            }
            "for_statement" => {
                // `for X in a b; do …`: X is set to each value in turn (to
                // the positional parameters without `in`).
                self.hazard(Hazard::Compound);
                if let Some(variable) = node.child_by_field_name("variable") {
                    let name = self.text(variable);
                    let mut cursor = node.walk();
                    let values: Vec<String> = node
                        .children_by_field_name("value", &mut cursor)
                        .map(|v| self.text(v))
                        .collect();
                    let value = if values.is_empty() {
                        "$@".to_owned()
                    } else {
                        values.join(" ")
                    };
                    self.out.parts.push(SimpleCommand {
                        assignments: vec![format!("{name}={value}")],
                        nested,
                        ..SimpleCommand::default()
                    });
                }
                self.visit_children(node, depth, nested);
            }
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                // A redirection with no command (`> /etc/passwd`) still opens its file.
                let mut redirects = Redirects::default();
                self.redirect(node, depth, nested, &mut redirects);
                self.out.parts.push(SimpleCommand {
                    words: redirects.extra_words.clone(),
                    redirects: redirects.targets.clone(),
                    nested,
                    ..SimpleCommand::default()
                });
                self.after_redirects(Vec::new(), redirects);
            }
            "ERROR" => {
                // What the parser salvaged from an error is a guess too.
                let from = self.out.parts.len();
                self.visit_children(node, depth, nested);
                for part in self.out.parts.get_mut(from..).unwrap_or_default() {
                    part.recovered = true;
                }
            }
            kind if is_expression_leaf(kind) => {
                // A word or string outside a command: look inside for substitutions.
                self.visit_children(node, depth, nested);
            }
            // Punctuation inside an expansion (`$`, `${`, `:-`, `}`): no construct.
            _ if !node.is_named() && self.in_expression_leaf => {}
            _ => {
                self.hazard(Hazard::Compound);
                self.visit_children(node, depth, nested);
            }
        }
    }

    /// `a && b || c; d`: the grammar nests lists to the left, one level per
    /// operator, so a 1 000-part chain would be 1 000 levels deep. The spine
    /// is walked iteratively and every part is visited one level down.
    fn list(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        // Each level's list node and its children after the first.
        let mut tails: Vec<(Node<'_>, Vec<Node<'_>>)> = Vec::new();
        let mut current = node;
        let mut spine_parent: Option<Node<'_>> = None;
        while current.kind() == "list" {
            if current.is_error() || current.is_missing() {
                self.hazard(Hazard::Syntax);
            }
            let mut cursor = current.walk();
            let mut children = current.children(&mut cursor);
            let Some(first) = children.next() else {
                break;
            };
            tails.push((current, children.collect()));
            spine_parent = Some(current);
            current = first;
        }
        if current.kind() != "list" {
            match spine_parent {
                Some(parent) => self.visit_under(parent, current, depth + 1, nested),
                None => self.visit(current, depth + 1, nested),
            }
        }
        let first_end = self.out.parts.len();
        for (parent, tail) in tails.into_iter().rev() {
            for child in tail {
                self.visit_under(parent, child, depth + 1, nested);
            }
        }
        self.list_first_end = Some(first_end);
    }

    /// `export A=1 B`, `declare -x P=/x`, `unset X`: a part like a command
    /// (the blacklist reads the variables it sets), and a compound hazard.
    fn declaration(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        self.hazard(Hazard::Compound);
        let mut part = SimpleCommand {
            nested,
            ..SimpleCommand::default()
        };
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            if !child.is_named() {
                let text = self.text(child);
                if !text.trim().is_empty() {
                    part.words.push(text);
                }
                continue;
            }
            if child.kind() == "variable_assignment" {
                self.hazard(Hazard::Assignment);
                let name = child
                    .child_by_field_name("name")
                    .map(|n| self.text(n))
                    .unwrap_or_default();
                let value = match child.child_by_field_name("value") {
                    Some(v) => self.word(v, depth + 2).0,
                    None => String::new(),
                };
                part.words.push(format!("{name}={value}"));
                continue;
            }
            let (word, _) = self.word(child, depth + 1);
            part.words.push(word);
        }
        // `unset 'a[$(cmd)]'`, `declare 'a[$(cmd)]=x'`: the subscript is
        // evaluated, quoted or not.
        let subscripts: Vec<String> = part
            .words
            .iter()
            .filter(|w| w.contains('['))
            .flat_map(|w| super::words::substitutions_in(w))
            .collect();
        self.out.parts.push(part);
        for inner in subscripts {
            self.hazard(Hazard::CommandSubstitution);
            self.nested_script(&inner);
        }
    }

    /// A pipeline: a shell at a later stage runs what an earlier stage prints.
    fn pipeline(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        let stages = children.iter().filter(|c| c.is_named()).count();
        let mut stage_at = 0usize;
        let mut previous: Option<(Vec<String>, Vec<String>)> = None;
        for child in children {
            let start = self.out.parts.len();
            self.list_first_end = None;
            self.visit_under(node, child, depth + 1, nested);
            if !child.is_named() {
                continue;
            }
            // The grammar reads `a | b | c && d` as a pipeline whose last
            // stage is the list `b | c && d`; Bash reads a list whose first
            // command is `a | b | c`. Only the list's first command is in
            // the pipe (`d` does not read it).
            let end = match child.kind() {
                "list" => self.list_first_end.take(),
                _ => None,
            }
            .unwrap_or(self.out.parts.len());
            // The stage's own commands (not what is nested in them) read
            // the pipe before them and write the one after.
            for part in self.out.parts.get_mut(start..end).unwrap_or_default() {
                if part.nested == nested {
                    part.pipe_in |= stage_at > 0;
                    part.pipe_out |= stage_at + 1 < stages;
                }
            }
            stage_at += 1;
            let stage = self
                .out
                .parts
                .get(start..)
                .unwrap_or_default()
                .iter()
                .find(|p| !p.nested)
                .map(|p| (p.words.clone(), p.fed.clone()));
            if let Some((words, _)) = &stage
                && reads_stdin_script(words)
            {
                self.hazard(Hazard::ShellString);
                // With no stage before, the first stage reads the pipeline's
                // own input (a here-document around it is judged by
                // `after_redirects`).
                if let Some((words, fed)) = &previous {
                    if let Some(text) = literal_output(words) {
                        self.nested_script(&text);
                    } else if passes_stdin(words) && !fed.is_empty() {
                        // `cat <<< 'cmd' | sh`: what is fed is the script.
                        for text in fed {
                            self.nested_script(text);
                        }
                    } else {
                        // `cat x.sh | sh`, `curl … | bash`: the script is not on the line.
                        self.hazard(Hazard::UnreadScript);
                    }
                }
            }
            previous = stage;
        }
    }

    /// What follows a command's redirections: a here-string or here-document
    /// fed to a shell is a script; `&>` is a background `&` to dash.
    fn after_redirects(&mut self, host: Vec<String>, redirects: Redirects) {
        // Only a fed text can be the script (its views are computed again).
        if !redirects.stdin.is_empty() && reads_stdin_script(&host) {
            for text in &redirects.stdin {
                self.hazard(Hazard::ShellString);
                self.nested_script(text);
            }
        }
        if redirects.piped_to_script {
            self.hazard(Hazard::ShellString);
            if passes_stdin(&host) {
                // `cat <<EOF | sh`: the here-document is the script.
                for text in &redirects.stdin {
                    self.nested_script(text);
                }
            } else {
                self.hazard(Hazard::UnreadScript);
            }
        }
        if redirects.dash_background && !redirects.extra_words.is_empty() {
            // dash reads `a &>f b` as `a &` then `>f b`.
            self.out.parts.push(SimpleCommand {
                words: redirects.extra_words,
                redirects: redirects.targets,
                nested: true,
                ..SimpleCommand::default()
            });
        }
    }

    fn nested_script(&mut self, text: &str) {
        if self.level < MAX_NESTED_SCRIPTS {
            self.out.parse_into(text, self.level + 1, true);
        } else {
            self.hazard(Hazard::TooDeep);
        }
    }

    fn redirect(&mut self, node: Node<'_>, depth: usize, nested: bool, out: &mut Redirects) {
        match node.kind() {
            "heredoc_redirect" => {
                self.hazard(Hazard::Heredoc);
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                let quoted = children.iter().any(|c| {
                    c.kind() == "heredoc_start" && self.text(*c).contains(['\'', '"', '\\'])
                });
                for child in &children {
                    if child.kind() == "heredoc_body" {
                        let body = self.text(*child);
                        if !quoted && (body.contains('`') || body.contains("$(")) {
                            // Substitutions run while the body is read: judge them.
                            self.hazard(Hazard::CommandSubstitution);
                            self.nested_script(&body);
                        }
                        out.stdin.push(body);
                    }
                }
                for child in children {
                    let from = self.out.parts.len();
                    self.visit_under(node, child, depth + 1, nested);
                    if child.kind() == "pipeline" {
                        // `cat <<EOF | sh`: the first stage reads the command's output.
                        let first = self.out.parts.get(from).map(|p| p.words.clone());
                        out.piped_to_script |= first.is_some_and(|w| reads_stdin_script(&w));
                    }
                }
                return;
            }
            "herestring_redirect" => {
                self.hazard(Hazard::Heredoc);
                let mut cursor = node.walk();
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                for child in children.iter().filter(|c| c.is_named()) {
                    let (text, _) = self.word(*child, depth + 1);
                    out.stdin.push(text);
                }
                return;
            }
            _ => {}
        }
        let mut duplicating = false;
        let mut reading = false;
        let mut have_target = false;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for (index, child) in children.iter().enumerate() {
            let field = u32::try_from(index)
                .ok()
                .and_then(|i| node.field_name_for_child(i));
            if !child.is_named() {
                let op = self.text(*child);
                duplicating = op == ">&" || op == "<&" || op == ">&-" || op == "<&-";
                reading = op == "<" || op == "<>";
                out.dash_background |= op == "&>" || op == "&>>";
                continue;
            }
            if field == Some("descriptor") || child.kind() == "file_descriptor" && field.is_none() {
                continue;
            }
            if !have_target && self.text(*child).starts_with('#') {
                // `> # x`: bash reads a comment, so the redirection has no
                // target and the line does not run (the grammar takes the
                // comment, and what follows it, as the target).
                self.hazard(Hazard::Syntax);
            }
            let (target, _) = self.word(*child, depth + 1);
            if have_target {
                // `rm >x -rf /`: words after the target are the command's arguments.
                out.extra_words.push(target);
                continue;
            }
            have_target = true;
            let harmless = target == "/dev/null"
                || (duplicating && (target == "-" || target.chars().all(|c| c.is_ascii_digit())));
            if !harmless {
                self.hazard(Hazard::Redirect);
                if reading {
                    out.inputs.push(target.clone());
                }
                out.targets.push(target);
            }
        }
    }

    fn command(&mut self, node: Node<'_>, depth: usize, nested: bool) {
        let mut part = SimpleCommand {
            nested,
            ..SimpleCommand::default()
        };
        let mut redirects = Redirects::default();
        let mut name_end = None;
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "variable_assignment" => {
                    self.hazard(Hazard::Assignment);
                    let text = self.text(child);
                    self.expansion_substitutions(&text);
                    part.assignments.push(text);
                    self.visit_children(child, depth + 1, true);
                }
                "file_redirect" | "herestring_redirect" | "heredoc_redirect" => {
                    let before = redirects.extra_words.len();
                    self.redirect(child, depth + 1, nested, &mut redirects);
                    part.words.extend(
                        redirects
                            .extra_words
                            .get(before..)
                            .unwrap_or_default()
                            .iter()
                            .cloned(),
                    );
                }
                "command_name" => {
                    let (word, dynamic) = self.word(child, depth + 1);
                    if dynamic || has_unquoted_glob(&self.text(child)) {
                        self.hazard(Hazard::DynamicCommandWord);
                    }
                    name_end = Some(child.end_byte());
                    part.words.push(word);
                }
                "subshell" => self.visit_under(node, child, depth + 1, nested),
                _ if child.is_named() => {
                    let (word, _) = self.word(child, depth + 1);
                    part.words.push(word);
                }
                _ => {
                    // Anonymous tokens inside a command (`$`, `==`, `=~`).
                    let text = self.text(child);
                    if !text.trim().is_empty() {
                        part.words.push(text);
                    }
                }
            }
        }
        // `0</dev/null rm -rf /`: the parser takes the descriptor for the command word.
        let fd_word = part
            .words
            .first()
            .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
            && name_end
                .and_then(|e| self.src.get(e))
                .is_some_and(|b| matches!(b, b'<' | b'>'));
        if fd_word {
            part.words.remove(0);
        }
        if too_many_wrappers(&part.words) {
            self.hazard(Hazard::WrapperChain);
        }
        part.redirects = std::mem::take(&mut redirects.targets);
        part.inputs = std::mem::take(&mut redirects.inputs);
        part.fed.clone_from(&redirects.stdin);
        // The views are paid for from the line's budget: past it, the
        // scripts of the part are not read (`limits/step-budget`). They are
        // kept on the part (every later reader asks for them), unless words
        // split by a redirection join the part later (then they are
        // computed again).
        let views = word_views(&part.words);
        let scripts = if self.out.budget.charge(views.iter().map(Vec::len).sum()) {
            scripts_of_views(&views)
        } else {
            self.hazard(Hazard::OverBudget);
            Vec::new()
        };
        // Stored as `wrappers::stored_views` keeps them: nothing when the
        // only view is the words themselves.
        let only_the_words = matches!(views.as_slice(), [one] if *one == part.words);
        part.views = std::sync::OnceLock::from(if only_the_words { Vec::new() } else { views });
        let host = part.words.clone();
        if let Some((id, at)) = &mut self.redirect_mark
            && *id == node.id()
        {
            *at = Some(self.out.parts.len());
        }
        self.out.parts.push(part);
        for (hazard, script) in scripts {
            self.hazard(hazard);
            // An empty text is a script not on the line (`parallel :::: F`).
            if !script.is_empty() {
                self.nested_script(&script);
            }
        }
        redirects.targets = self
            .out
            .parts
            .last()
            .map(|p| p.redirects.clone())
            .unwrap_or_default();
        self.after_redirects(host, redirects);
    }

    /// `${y:=$(cmd)}`, ``${b#`cmd`}``: the grammar gives no substitution
    /// node inside some parameter expansions, so their commands are read
    /// from the text (a substitution read twice adds the same parts).
    fn expansion_substitutions(&mut self, text: &str) {
        if !text.contains("${") {
            return;
        }
        for inner in super::words::substitutions_in(text) {
            self.hazard(Hazard::CommandSubstitution);
            self.nested_script(&inner);
        }
    }

    /// The text of a word with quoting removed, and whether it is computed.
    fn word(&mut self, node: Node<'_>, depth: usize) -> (String, bool) {
        if depth > MAX_TREE_DEPTH {
            self.hazard(Hazard::TooDeep);
            return (self.text(node), true);
        }
        if node.is_error() || node.is_missing() {
            self.hazard(Hazard::Syntax);
        }
        match node.kind() {
            "word" | "number" => {
                let text = self.text_ref(node);
                let breaks = text.contains(['\n', '\r']);
                let word = unescape_bare(&text);
                if breaks {
                    // No unquoted Bash word holds a line break: the parser
                    // and Bash disagree here.
                    self.hazard(Hazard::Syntax);
                }
                (word, false)
            }
            "raw_string" => {
                let text = self.text_ref(node);
                let inner = text
                    .strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or(&text);
                (inner.to_owned(), false)
            }
            "string_content" => (unescape_double(&self.text(node)), false),
            // `$'\x72m'` is the literal `rm`.
            "ansi_c_string" => (super::words::decode_ansi_c(&self.text(node)), false),
            "string" | "concatenation" | "command_name" => {
                let mut out = String::new();
                let mut dynamic = false;
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if !child.is_named() {
                        let text = self.text_ref(child);
                        if text != "\"" {
                            out.push_str(&text);
                        }
                        continue;
                    }
                    let (text, d) = self.word(child, depth + 1);
                    out.push_str(&text);
                    dynamic |= d;
                }
                (out, dynamic)
            }
            "command_substitution" | "process_substitution" => {
                let text = self.text(node);
                self.visit(node, depth, true);
                (text, true)
            }
            _ => {
                // Expansions, ANSI-C strings, arithmetic, brace expressions:
                // computed. Keep the source text and look inside.
                let text = self.text(node);
                if node.kind() == "expansion" {
                    self.expansion_substitutions(&text);
                }
                // `$(( a[$i] ))`: the subscript is evaluated, and `$i` may
                // hold a substitution the line does not show.
                if node.kind() == "arithmetic_expansion" && super::words::subscript_expands(&text) {
                    self.hazard(Hazard::UnreadScript);
                }
                self.visit_children(node, depth, true);
                (text, true)
            }
        }
    }
}

/// Whether a command prints its standard input unchanged (or a part of
/// it): `cat`, `cat -`, `tee`, `head`, `tail`.
fn passes_stdin(words: &[String]) -> bool {
    let Some((first, args)) = words.split_first() else {
        return false;
    };
    matches!(super::basename(first), "cat" | "tee" | "head" | "tail")
        && args.iter().all(|a| a.starts_with('-'))
}

/// Whether the source text of a command word holds a glob outside quotes
/// (`/bin/r[m]`, `gi?`, `*sh`); `[` alone (the test command) is not one.
pub(super) fn has_unquoted_glob(raw: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut open_bracket = false;
    for c in raw.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, '*' | '?') => return true,
            (None, '[') => open_bracket = true,
            (None, ']') if open_bracket => return true,
            _ => {}
        }
    }
    false
}

fn is_expression_leaf(kind: &str) -> bool {
    matches!(
        kind,
        "word"
            | "string"
            | "raw_string"
            | "concatenation"
            | "string_content"
            | "simple_expansion"
            | "expansion"
            | "number"
            | "ansi_c_string"
            | "translated_string"
            | "arithmetic_expansion"
            | "variable_name"
            // Inside `$(( … ))` (a test command or a loop is compound
            // by its own node).
            | "binary_expression"
            | "unary_expression"
            | "ternary_expression"
            | "parenthesized_expression"
            | "postfix_expression"
    )
}
