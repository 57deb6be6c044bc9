//! A commit message's *why*: the problem it names, the references it
//! cites, its reason clause, whether a bot wrote it, and whether it names a
//! package. Pure: no I/O.

use std::sync::OnceLock;

use regex::Regex;

/// A commit's message, for its *why*.
#[derive(Clone, Copy, Debug)]
pub struct Message<'a> {
    pub subject: &'a str,
    pub body: Option<&'a str>,
    /// `owner/name` of the repository, to qualify bare `#123` references.
    pub repo: Option<&'a str>,
}

/// Why a commit changed what it changed, as its message says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Why {
    /// What kind of problem, as a verb phrase: "has a regression", "has a
    /// security issue", "breaks the build", "has a bug".
    pub problem: String,
    /// The references the message gives (`rollup/plugins#1909`,
    /// `vitejs/vite#19027`, `CVE-2024-47068`).
    pub refs: Vec<String>,
    /// The reason clause, as written, when there is one ("to avoid …",
    /// "because …", "so we don't …").
    pub clause: Option<String>,
    /// Whether the message says what was wrong (a clause, a problem word,
    /// a security marker), not only an issue number or a revert.
    pub described: bool,
}

pub(super) struct WhyPatterns {
    refs: Regex,
    url_ref: Regex,
    cve: Regex,
    pub(super) pr_suffix: Regex,
    clause: Regex,
    bot: Regex,
    merge: Regex,
    fix_for: Regex,
}

pub(super) fn why_patterns() -> Option<&'static WhyPatterns> {
    static P: OnceLock<Option<WhyPatterns>> = OnceLock::new();
    P.get_or_init(|| {
        Some(WhyPatterns {
            refs: Regex::new(r"(?:^|[\s(\[,])(?P<repo>[A-Za-z0-9][A-Za-z0-9_.\-]*/[A-Za-z0-9][A-Za-z0-9_.\-]*)?#(?P<n>[0-9]{1,7})\b").ok()?,
            url_ref: Regex::new(r"https?://github\.com/(?P<repo>[A-Za-z0-9][A-Za-z0-9_.\-]*/[A-Za-z0-9][A-Za-z0-9_.\-]*)/(?:issues|pull)/(?P<n>[0-9]{1,7})\b").ok()?,
            cve: Regex::new(r"\b(?:CVE-[0-9]{4}-[0-9]{4,7}|GHSA(?:-[0-9a-z]{4}){3})\b").ok()?,
            pr_suffix: Regex::new(r"\s*\(#[0-9]+\)\s*$").ok()?,
            clause: Regex::new(r"(?i)\b(?:to avoid|to work around|to fix|to prevent|to handle|to silence|because(?: of)?|due to|caused by|as it|since it|so (?:that )?(?:we|it|you) (?:don't|do not|can|can't|won't)|needed (?:to|by|for)|which (?:breaks|broke|causes|caused)|that (?:breaks|broke))\s+(?P<c>(?:[^.;\n]|\.[^\s.;])+)").ok()?,
            bot: Regex::new(r"(?i)^(?:(?:chore|build|fix|deps)(?:\([^)]*\))?!?:\s*)?(?:bump|update|upgrade)\s+(?:dependency\s+|dependencies\s+|the\s+\S+\s+group\s+)?\S+(?:\s+(?:from\s+\S+\s+)?to\s+v?\S+)?\s*(?:\(#[0-9]+\))?\s*$|\b(?:dependabot|renovate)/|^\[Snyk\]").ok()?,
            fix_for: Regex::new(r"(?i)\bfor (?:the |a )?(?P<c>[^.;\n]{2,60}?) (?:bug ?)?fix(?:es)?\b").ok()?,
            merge: Regex::new(r"^Merge (?:pull request #[0-9]+ from \S+|branch '[^']*'(?: into \S+)?)\s*$").ok()?,
        })
    })
    .as_ref()
}

/// The sentence a message says its change in: the subject, or, for a
/// merge commit ("Merge pull request #7459 from cli/bump-wincred"), the
/// first line of its body (the pull request's title).
pub(super) fn effective_subject<'a>(m: &Message<'a>) -> &'a str {
    match (why_patterns(), m.body) {
        (Some(p), Some(body)) if p.merge.is_match(m.subject.trim()) => body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or(m.subject),
        _ => m.subject,
    }
}

/// Whether a bot wrote the change: a subject that only says what moved
/// (`chore(deps): update dependency x to v1.2.3`, `⬆ Bump x from 1 to 2`),
/// a merge of a `dependabot/` or `renovate/` branch, or a body a bot signs
/// (`Bumps [x](…) from 1 to 2.`, `dependabot[bot]`).
pub(super) fn is_bot(m: &Message<'_>) -> bool {
    let Some(p) = why_patterns() else {
        return true;
    };
    let strip = |s: &str| {
        s.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '[')
            .to_owned()
    };
    let said = effective_subject(m);
    let body = m.body.unwrap_or("");
    p.bot.is_match(&strip(said))
        || p.bot.is_match(&strip(m.subject))
        || body.trim_start().starts_with("Bumps [")
        || body.contains("dependabot[bot]")
        || body.contains("renovate[bot]")
}

/// The text a message gives its reasons in: the subject (a merge's pull
/// request title) without its pull request number, and the first
/// paragraph of the body, at most 600 characters.
pub(super) fn message_text(m: &Message<'_>) -> String {
    let Some(p) = why_patterns() else {
        return String::new();
    };
    let said = effective_subject(m);
    let subject = p.pr_suffix.replace(said, "").into_owned();
    let first_paragraph = if std::ptr::eq(said, m.subject) {
        m.body.unwrap_or("").split("\n\n").next().unwrap_or("")
    } else {
        ""
    };
    let first_paragraph: String = first_paragraph.chars().take(600).collect();
    format!("{subject}\n{first_paragraph}")
}

/// Name parts too common to say a message is about a package.
pub(super) const GENERIC_NAME_PARTS: &[&str] = &[
    "plugin", "core", "utils", "util", "types", "github", "gitlab", "golang", "org", "com", "lib",
    "libs", "sdk", "cli", "api", "http", "json", "test", "tests", "tools", "common", "node",
    "rust", "python", "server", "client", "config", "vitejs", "build", "types",
];

/// Whether the message's text names the package: the whole name, or a
/// distinctive part of it (`commonjs` of `@rollup/plugin-commonjs`,
/// `wincred` of `github.com/danieljoos/wincred`, `zstd` of `zstd-sys`).
/// A change the message does not name is incidental to it.
pub(super) fn names(text_lower: &str, package: &str) -> bool {
    let p = package.to_lowercase();
    text_lower.contains(&p)
        // A path segment whole (`go-gh` of `github.com/cli/go-gh/v2`) …
        || p.split(['/', '@'])
            .filter(|t| t.len() >= 4 && !GENERIC_NAME_PARTS.contains(t))
            .any(|t| text_lower.contains(t))
        // … or one of its words.
        || p.split(['/', '-', '_', '.', '@'])
            .filter(|t| t.len() >= 4 && !GENERIC_NAME_PARTS.contains(t))
            .any(|t| text_lower.contains(t))
}

/// Whether the word at `at` in `lower` is negated by one of the four words
/// before it ("no known bug", "not a regression"). A relative clause that
/// describes the version chosen ("a version of zstd that doesn't break
/// the build", "pin it so it doesn't crash") says the others do: that is
/// not a negation.
pub(super) fn negated(lower: &str, at: usize) -> bool {
    let before: Vec<&str> = lower[..at]
        .split_whitespace()
        .rev()
        .take(4)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .collect();
    before.iter().enumerate().any(|(i, w)| match *w {
        "no" | "not" | "never" | "without" | "nor" | "isn't" | "wasn't" => true,
        "doesn't" | "don't" | "didn't" | "won't" => !matches!(
            before.get(i + 1).copied(),
            Some("that" | "which" | "so" | "it" | "we")
        ),
        _ => false,
    })
}

/// The *why* of a commit message, if it gives one. Only the subject and
/// the first paragraph of the body are read (a pull request's long
/// description is full of "fix", "bug" and "breaks" about other things).
/// A subject that only says what moved ("chore(deps): update dependency x
/// to v1.2.3", "Bump x from 1 to 2", a merge of a `dependabot/` branch)
/// gives none, whatever its body (a bot's body is the upstream's release
/// notes). A problem word that the message negates ("there is no known bug
/// or security problem") does not count.
pub fn why(m: &Message<'_>) -> Option<Why> {
    let p = why_patterns()?;
    if is_bot(m) {
        return None;
    }
    let text = message_text(m);
    let lower = text.to_lowercase();
    let has = |words: &[&str]| {
        words
            .iter()
            .any(|w| lower.match_indices(w).any(|(at, _)| !negated(&lower, at)))
    };
    let security = has(&["xss", "cve-", "ghsa-", "security", "vulnerab"]);
    let problem = if security {
        "has a security issue"
    } else if has(&["regression", "regress"]) {
        "has a regression"
    } else if has(&["crash", "segfault", "panic"]) {
        "crashes"
    } else if has(&["broke", "breaks", "broken", "breaking", "break "]) {
        "breaks the build"
    } else if has(&[
        "deadlock",
        "hang",
        "leak",
        "race condition",
        "avoid",
        "work around",
        "workaround",
        "bug",
        "incompatib",
        "fails",
        "failing",
        "error",
        "for now",
        "temporar",
    ]) {
        "has a bug"
    } else if has(&["revert", "rollback", "roll back"]) {
        "has a problem"
    } else {
        ""
    };
    let mut refs: Vec<String> = Vec::new();
    let mut unqualified = false;
    for c in p.url_ref.captures_iter(&text) {
        let r = format!("{}#{}", &c["repo"], &c["n"]);
        if !refs.contains(&r) {
            refs.push(r);
        }
    }
    for c in p.refs.captures_iter(&text) {
        let n = &c["n"];
        // A bare `#123` means nothing outside its repository: qualified
        // when the repository is known, else left to the rationale (which
        // quotes the subject).
        let r = match (c.name("repo"), m.repo) {
            (Some(repo), _) => format!("{}#{n}", repo.as_str()),
            (None, Some(repo)) => format!("{repo}#{n}"),
            (None, None) => {
                unqualified = true;
                continue;
            }
        };
        if !refs.contains(&r) {
            refs.push(r);
        }
    }
    for c in p.cve.find_iter(&text) {
        let s = c.as_str().to_owned();
        if !refs.contains(&s) {
            refs.push(s);
        }
    }
    let clause = p.clause.captures(&text).map(|c| {
        // A dot inside a word or a version (`typing.Deque`, `0.31.1`) does
        // not end the clause; a pull request number after it is no part
        // of it; and it is cut at a word past 120 characters.
        let c = c["c"].trim();
        let c = p.pr_suffix.replace(c, "");
        let mut c = c.trim().trim_end_matches([',', ')']).trim();
        if c.chars().count() > 120 {
            let cut = c.char_indices().nth(120).map_or(c.len(), |(i, _)| i);
            c = c[..cut]
                .rsplit_once(' ')
                .map_or(&c[..cut], |(head, _)| head);
        }
        p.url_ref
            .replace_all(c, |u: &regex::Captures<'_>| {
                format!("{}#{}", &u["repo"], &u["n"])
            })
            .into_owned()
    });
    // "Upgrade go-gh to v2.5.0 for home-manager fix": the fix it is for.
    let (problem, clause) = match (problem, clause) {
        ("", None) => match p.fix_for.captures(&text) {
            Some(c) => ("has a bug", Some(format!("the {} fix", c["c"].trim()))),
            None => ("", None),
        },
        other => other,
    };
    if problem.is_empty() && clause.is_none() && refs.is_empty() && !unqualified {
        return None;
    }
    let described = clause.is_some() || !matches!(problem, "" | "has a problem");
    Some(Why {
        problem: if problem.is_empty() {
            "has a bug".into()
        } else {
            problem.into()
        },
        refs,
        clause,
        described,
    })
}

pub(super) fn why_suffix(w: &Why) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(c) = &w.clause {
        parts.push(c.clone());
    }
    for r in &w.refs {
        if !parts.iter().any(|p| p.contains(r.as_str())) {
            parts.push(r.clone());
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}
