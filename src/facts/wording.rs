//! What a lesson's words may not be.
//!
//! A claim states a fact in one sentence. It is never a commit subject
//! (`fix: bump @rollup/plugin-commonjs to v19, fix #3312 (#3353)`), never
//! starts with a conventional-commit prefix (`fix(x):`, `feat!:`), and
//! never equals its resolution. A stack entry names a package, never a
//! file (`cargo.lock`). These rules hold for every candidate, whoever
//! wrote it: the offline transform, a model (checked when its answer is
//! read), a person (`git lore edit`), and the offline jury lowers the
//! criterion they belong to when a record breaks one anyway.
//!
//! Pure: no I/O.

use std::sync::OnceLock;

use regex::Regex;

/// One broken wording rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The claim starts like a commit subject's type (`fix(deps):`).
    #[error("the claim starts with a conventional-commit prefix ({0:?}); state the fact in one sentence instead")]
    ConventionalPrefix(String),
    /// The claim is the subject of the commit it came from.
    #[error("the claim is the commit's subject line; state the fact the commit shows instead")]
    CommitSubject,
    /// The claim says what the resolution says.
    #[error("the claim repeats the resolution; the claim states the fact, the resolution says what to do")]
    RestatesResolution,
    /// A stack entry is a file name.
    #[error("stack entry {0:?} is a file name, not a package")]
    FileInStack(String),
}

/// Conventional-commit types (and the common extras tools write).
const TYPES: &str = "feat|fix|chore|docs|doc|style|refactor|perf|test|tests|build|ci|revert|deps|dep|release|bump|security|hotfix|wip|types|infra|ops|dx";

fn prefix() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!(r"(?i)^\s*((?:{TYPES})(?:\([^)]*\))?!?:)")).ok())
        .as_ref()
}

/// The conventional-commit prefix `text` starts with (`fix(deps):`).
pub fn conventional_prefix(text: &str) -> Option<String> {
    prefix()?
        .captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_owned())
}

/// Whether `text` ends like a merged pull request's subject: `(#3353)`.
pub fn ends_with_pr_number(text: &str) -> bool {
    let t = text.trim_end();
    let Some(inner) = t.strip_suffix(')') else {
        return false;
    };
    let Some(at) = inner.rfind("(#") else {
        return false;
    };
    let digits = &inner[at + 2..];
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Words only: lower case, punctuation to spaces, runs collapsed, a
/// leading label (`fix:`, `cause:`, `solution:`) dropped.
pub fn normalise(text: &str) -> String {
    let mut t = text.trim();
    for _ in 0..3 {
        let lower = t.to_ascii_lowercase();
        let label = [
            "fix:",
            "fixed:",
            "fixes:",
            "solution:",
            "resolution:",
            "workaround:",
            "cause:",
            "note:",
        ]
        .iter()
        .find(|l| lower.starts_with(*l));
        match label {
            Some(l) => t = t[l.len()..].trim_start(),
            None => break,
        }
    }
    t.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '@' || c == '/' {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the claim says no more than the resolution: equal once
/// normalised, or one holds the other and the shorter is at least four
/// fifths of the longer.
pub fn restates(claim: &str, resolution: &str) -> bool {
    let (c, r) = (normalise(claim), normalise(resolution));
    if c.is_empty() || r.is_empty() {
        return false;
    }
    if c == r {
        return true;
    }
    let (short, long) = if c.len() <= r.len() {
        (&c, &r)
    } else {
        (&r, &c)
    };
    long.contains(short.as_str()) && short.len() * 5 >= long.len() * 4
}

/// Whether a stack entry is a file name: a manifest or lockfile, or a name
/// with a data-file extension (`cargo.lock`, `package.json`, `go.sum`).
/// Package names with code extensions (`chart.js`, `socket.io`) are
/// packages.
pub fn is_file_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    const FILES: &[&str] = &[
        "gemfile",
        "gemfile.lock",
        "makefile",
        "dockerfile",
        "pipfile",
        "pipfile.lock",
        "go.mod",
        "go.sum",
        "go.work",
        "cargo.lock",
        "cargo.toml",
        "package.json",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "bun.lock",
        "poetry.lock",
        "uv.lock",
        "pyproject.toml",
        "requirements.txt",
        "composer.json",
        "composer.lock",
    ];
    const EXTENSIONS: &[&str] = &[
        ".lock", ".lockb", ".json", ".toml", ".yaml", ".yml", ".txt", ".mod", ".sum", ".cfg",
        ".ini", ".md", ".xml", ".gradle", ".sln", ".csproj",
    ];
    FILES.contains(&base)
        || EXTENSIONS
            .iter()
            .any(|e| base.ends_with(e) && base.len() > e.len())
}

/// Everything wrong with a candidate's words. `subject` is the commit
/// subject the candidate came from, when it came from a commit.
pub fn problems(
    claim: &str,
    resolution: &str,
    stack: &[String],
    subject: Option<&str>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    if let Some(p) = conventional_prefix(claim) {
        out.push(Problem::ConventionalPrefix(p));
    }
    let looks_like_subject =
        subject.is_some_and(|s| normalise(s) == normalise(claim)) || ends_with_pr_number(claim);
    if looks_like_subject {
        out.push(Problem::CommitSubject);
    }
    if restates(claim, resolution) {
        out.push(Problem::RestatesResolution);
    }
    for s in stack {
        if is_file_name(s) {
            out.push(Problem::FileInStack(s.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_junk_of_the_issue_is_caught() {
        let subject = "fix: bump @rollup/plugin-commonjs to v19, fix #3312 (#3353)";
        let p = problems(
            subject,
            "Upgrade it.",
            &["@rollup/plugin-commonjs".into()],
            Some(subject),
        );
        assert_eq!(
            p,
            [
                Problem::ConventionalPrefix("fix:".into()),
                Problem::CommitSubject
            ]
        );
        let p = problems(
            "build: support Vite 5.0 and bump minimum to 3.1",
            "x",
            &[],
            None,
        );
        assert_eq!(p, [Problem::ConventionalPrefix("build:".into())]);
        assert_eq!(
            problems(
                "Fix: pinned vitest to 3.2.4 in package.json.",
                "fix: Fix: pinned vitest to 3.2.4 in package.json",
                &["vitest".into(), "cargo.lock".into()],
                None
            ),
            [
                Problem::ConventionalPrefix("Fix:".into()),
                Problem::RestatesResolution,
                Problem::FileInStack("cargo.lock".into())
            ]
        );
        assert_eq!(
            conventional_prefix("feat(core)!: drop node 16"),
            Some("feat(core)!:".into())
        );
        assert_eq!(conventional_prefix("Vitest 4 needs Vite 6"), None);
        assert!(ends_with_pr_number("Bump x (#12)"));
        assert!(!ends_with_pr_number("see issue (#)"));
    }

    #[test]
    fn good_claims_pass() {
        assert_eq!(
            problems(
                "@vitejs/plugin-legacy 6 requires vite ^6; on vite 7 use plugin-legacy 7",
                "Upgrade @vitejs/plugin-legacy to 7.0.0.",
                &[
                    "@vitejs/plugin-legacy".into(),
                    "vite".into(),
                    "chart.js".into(),
                    "socket.io".into()
                ],
                Some("fix(deps): update plugin-legacy (#42)")
            ),
            []
        );
    }

    #[test]
    fn file_names() {
        for f in [
            "cargo.lock",
            "Cargo.toml",
            "package.json",
            "go.sum",
            "pnpm-lock.yaml",
            "requirements-dev.txt",
            "Gemfile",
        ] {
            assert!(is_file_name(f), "{f}");
        }
        for p in [
            "vite",
            "chart.js",
            "socket.io",
            "node.js",
            "@types/node",
            "github.com/spf13/cobra",
            "json5",
        ] {
            assert!(!is_file_name(p), "{p}");
        }
    }
}
