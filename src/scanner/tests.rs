//! The scanner's tests: every case of the rules file, the corpus, and what
//! no file can say (whole blocks, excerpts, disguises, encodings, seams,
//! bounds).
//!
//! Provider-shaped values are assembled at run time (`concat!`, `format!`)
//! or escaped, so that this file never holds a whole token a hosting secret
//! scanner would block; the values themselves are made up.

use super::*;
use base64ct::Encoding as _;

use crate::model::{Candidate, Scope};

fn kinds(text: &str) -> Vec<FindingKind> {
    scan(text).into_iter().map(|f| f.kind).collect()
}

/// The reference lesson's candidate (`review/testdata/proposal.pending.json`).
const CANDIDATE: &str = r#"{
    "claim": "Vitest 4 cannot import vite/module-runner on Vite 5",
    "rationale": "vite/module-runner ships in Vite 6; Vitest 4 assumes it exists.",
    "evidence": {"resolution": "Pin vitest to 3.x until Vite 6 lands.",
                 "artifact_ids": ["01KZ45MKAM734ZS7JK24D2DK0R"], "session_ids": ["sess-1"],
                 "project_key": "6a7678979e31", "observed_at": "2026-08-03T15:59:48Z"},
    "applies_to": {"stack": ["vite", "vitest"],
                   "scope": {"kind": "versioned", "versions": {"vite": "<6", "vitest": ">=4"}},
                   "file_patterns": [], "task_kinds": []}
}"#;

fn candidate() -> Candidate {
    serde_json::from_str(CANDIDATE).unwrap()
}

/// A candidate with these claim, rationale and resolution.
fn lesson(claim: &str, rationale: &str, resolution: &str) -> Candidate {
    let mut c = candidate();
    c.claim = claim.into();
    c.rationale = rationale.into();
    c.evidence.resolution = resolution.into();
    c
}

// ---- the rules file ------------------------------------------------------

/// Every leak of every class in `rules.toml` is one finding of its class;
/// every look-alike is none. All failures are listed at once.
#[test]
fn every_case_in_the_rules_file() {
    let r = rules();
    let mut failures = Vec::new();
    let mut leaks = 0;
    for class in &r.classes {
        assert!(
            !class.leaks.is_empty(),
            "class {} has no leak case",
            class.kind
        );
        for t in &class.leaks {
            leaks += 1;
            let got = kinds(t);
            if got != [class.kind] {
                failures.push(format!("leak [{}] {t:?}: found {got:?}", class.kind));
            }
        }
        for t in &class.clean {
            let got: Vec<String> = scan(t).iter().map(ToString::to_string).collect();
            if !got.is_empty() {
                failures.push(format!("clean [{}] {t:?}: found {got:?}", class.kind));
            }
        }
    }
    assert!(leaks >= 100, "{leaks} leak cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_placeholder_cases_in_the_rules_file() {
    let p = &rules().placeholder;
    for v in &p.cases.placeholders {
        assert!(is_placeholder(v), "{v:?} is a placeholder");
    }
    for v in &p.cases.secrets {
        assert!(!is_placeholder(v), "{v:?} is not a placeholder");
    }
    // Long secrets are judged on markers only.
    let long = format!(
        "{}your{}",
        "Zk3Lm8Qp2Rt7".repeat(10),
        "Vx1Yb4Nc6Wd9".repeat(10)
    );
    assert!(!is_placeholder(&long));
    assert!(is_placeholder(&format!("{long}...")));
}

/// The rules file, read as raw bytes (as a hosting secret scanner reads
/// it), holds no credential: leak cases escape theirs as `\uXXXX`. Places
/// and people (hosts, addresses, home paths, e-mail) are not what those
/// scanners block, and stay readable.
#[test]
fn the_raw_rules_file_holds_no_credential() {
    use FindingKind::*;
    let readable = [InternalHost, PrivateIp, HomePath, Email, SpelledEmail];
    for (i, line) in rules::RULES.lines().enumerate() {
        for f in scan(line) {
            assert!(
                readable.contains(&f.kind),
                "rules.toml line {} holds {f}: escape it",
                i + 1
            );
        }
    }
}

#[test]
fn a_rules_file_that_does_not_hold_together_is_refused() {
    let base = rules::RULES;
    let err = |text: &str| match Rules::parse(text) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    };
    let first_rule = "[[rule]]\nclass = \"gcp_key\"";
    assert!(base.contains(first_rule));
    assert_eq!(
        err(&base.replacen(first_rule, "[[rule]]\nclass = \"gcp\"", 1)),
        format!(
            "class \"gcp\" is not a finding kind; the kinds are: {}",
            FindingKind::ALL
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    );
    assert!(
        err(&base.replacen("check = \"pem_body\"", "check = \"pem\"", 1))
            .starts_with("rule 1: check \"pem\" is none of: whole, value, inner, pair, pem_body,")
    );
    assert_eq!(
        err(&base.replacen(
            "check = \"inner\"",
            "check = \"inner\"\nassign = { name = 'a', value = 'b' }",
            1
        )),
        "rule 2: give exactly one of `pattern` and `assign`"
    );
    assert_eq!(
        err(&base.replacen(
            r#"pattern = '''"private_key_id"\s*:\s*"([0-9a-f]{40})"'''"#,
            "pattern = '(unclosed'",
            1
        )),
        "rule 2: the pattern does not compile"
    );
    assert_eq!(
        err(&base.replacen("name = \"jwt\"", "name = \"private_key\"", 1)),
        "class private_key is listed twice"
    );
    // Cut out a table: from its start to the next section.
    let without = |start: &str, next: &str| {
        let a = base.find(start).unwrap();
        let b = a + base[a..].find(next).unwrap();
        format!("{}{}", &base[..a], &base[b..])
    };
    assert_eq!(
        err(&without(
            "[[class]]\nname = \"spelled_email\"",
            "# ---- the rules"
        )),
        "class spelled_email has no [[class]] table: add one with its cases"
    );
    assert_eq!(
        err(&without(
            "[[rule]]\nclass = \"spelled_email\"",
            "# ---- placeholders"
        )),
        "class spelled_email has no rule"
    );
    let unknown = base.replacen(
        "[[class]]\nname = \"email\"",
        "[[nothing]]\nname = \"email\"",
        1,
    );
    assert!(err(&unknown).starts_with("the rules file is not the expected TOML:"));
    assert!(err("class = []\nrule = []").starts_with("the rules file is not the expected TOML:"));
}

#[test]
fn kinds_serialise_as_their_names() {
    for &kind in FindingKind::ALL {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        assert_eq!(rules().class(kind).kind, kind);
    }
    // The classes come in the order of the kinds.
    let order: Vec<FindingKind> = rules().classes.iter().map(|c| c.kind).collect();
    assert_eq!(order, FindingKind::ALL);
}

// ---- what the file cannot say --------------------------------------------

#[test]
fn a_key_is_reported_as_its_whole_block_and_a_bare_body_too() {
    let line = "MIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAwggJcAgEAAoGBAKx8Fq1dR3tLm9Wv";
    let block = format!(
        "-----BEGIN PRIVATE KEY-----\\n{line}\\n{line}\\nZm9v\\n-----END PRIVATE KEY-----\\n"
    );
    let json = format!("{{\"private_key\": \"{block}\", \"x\": 1}}");
    let f = scan(&json);
    assert_eq!(f.len(), 1, "{f:?}");
    let n = json.find("\\n\", \"x").unwrap() - json.find("\"private_key").unwrap();
    assert_eq!(f[0].excerpt, format!("\"pri… ({n} characters)"));
    // One line, no END line: to the end of the base64, not beyond.
    let one = format!("DEPLOY_KEY=-----BEGIN OPENSSH PRIVATE KEY----- {line} {line}. Then more");
    let f = scan(&one);
    assert_eq!(f.len(), 1, "{f:?}");
    let n = 35 + 1 + line.len() + 1 + line.len();
    assert_eq!(f[0].kind, FindingKind::PrivateKey);
    assert_eq!(f[0].excerpt, format!("----… ({n} characters)"));
}

#[test]
fn each_span_is_reported_once_and_redacted() {
    let t = concat!("token=", "ghp_", "16C7e42F292c6912E7710c838347Ae178B4a");
    let found = scan(t);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, FindingKind::GithubToken);
    assert_eq!(found[0].excerpt, "ghp_… (40 characters)");
    assert!(!found[0].to_string().contains("16C7e42F"));
    assert_eq!(
        serde_json::to_value(&found[0]).unwrap(),
        serde_json::json!({"kind": "github_token", "excerpt": "ghp_… (40 characters)"})
    );
    // URL credentials swallow the host and address inside them.
    assert_eq!(
        kinds("postgres://app:s3cr3tPw@db.internal/app"),
        [FindingKind::UrlCredentials]
    );
    // Text order.
    assert_eq!(
        kinds("mail jane@acme.io or call 10.0.0.7"),
        [FindingKind::Email, FindingKind::PrivateIp]
    );
    // A home path is the directory, not the rest of the path.
    let t = "open /Users/bob.smith/Library/x.";
    let l = find(t);
    assert_eq!(l.len(), 1);
    assert_eq!(&t[l[0].span.clone()], "/Users/bob.smith");
    // No excerpt of any finding in the corpus holds more than four
    // characters of the text it redacts.
    for case in corpus() {
        for f in case.findings() {
            let head = f.excerpt.split('…').next().unwrap_or("");
            assert!(head.chars().count() <= 4, "{f}");
            assert!(
                f.excerpt.ends_with(" characters)"),
                "excerpt is head and length: {f}"
            );
        }
    }
}

#[test]
fn the_reference_lesson_is_clean_and_a_leak_is_located() {
    let mut c = candidate();
    assert_eq!(scan_lesson(&c), []);
    c.evidence.resolution = "Pin vitest; the CI runner at ci01.build.internal needed it".into();
    c.applies_to.scope = Scope::VersionIndependent {
        justification: "ask bob@acme.io".into(),
    };
    let found = scan_lesson(&c);
    let got: Vec<(FindingKind, Option<&str>)> =
        found.iter().map(|f| (f.kind, f.field.as_deref())).collect();
    assert_eq!(
        got,
        [
            (FindingKind::InternalHost, Some("evidence.resolution")),
            (FindingKind::Email, Some("applies_to.scope.justification")),
        ]
    );
}

/// Disguises of issue 20: each is found under its class, and its span is the
/// disguised text as written.
#[test]
fn disguised_tokens_are_found_where_they_are_written() {
    let token = concat!("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a");
    let key = concat!("AKIA", "Q3VZ7KLM2NB4XW6R");
    let cases: Vec<(String, FindingKind)> = vec![
        // A zero-width space, a soft hyphen, a word joiner inside.
        (
            token.replacen("42F", "4\u{200B}2\u{AD}F\u{2060}", 1),
            FindingKind::GithubToken,
        ),
        // Cyrillic А, Greek Κ, Cyrillic І.
        (
            key.replacen('A', "\u{410}", 1)
                .replacen('K', "\u{39A}", 1)
                .replacen('I', "\u{406}", 1),
            FindingKind::AwsAccessKey,
        ),
        // Full-width letters and low line.
        (format!("ｇｈｐ＿{}", &token[4..]), FindingKind::GithubToken),
        // Mathematical bold capitals.
        (
            format!("\u{1D400}\u{1D40A}\u{1D408}\u{1D400}{}", &key[4..]),
            FindingKind::AwsAccessKey,
        ),
        // A right-to-left override inside.
        (
            token.replacen("c69", "c\u{202E}69", 1),
            FindingKind::GithubToken,
        ),
    ];
    for (t, kind) in cases {
        let text = format!("the key was {t}, rotated");
        let l = find(&text);
        assert_eq!(l.len(), 1, "{text:?}: {l:?}");
        assert_eq!(l[0].kind, kind, "{text:?}");
        assert_eq!(&text[l[0].span.clone()], t, "{text:?}");
        assert_eq!(l[0].encoded, []);
    }
}

#[test]
fn encoded_tokens_are_found_inside_their_encoding() {
    let token = concat!("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a");
    let key = concat!("AKIA", "Q3VZ7KLM2NB4XW6R");
    let b64 = |s: &str| base64ct::Base64::encode_string(s.as_bytes());
    let percent = token.replace('_', "%5F");
    let cases: Vec<(String, String, FindingKind, Vec<Encoding>)> = vec![
        (
            format!("https://api.acme.io/x?t={percent}&y=1"),
            percent.clone(),
            FindingKind::GithubToken,
            vec![Encoding::Percent],
        ),
        (
            format!("env: {}", b64(&format!("AWS_ACCESS_KEY_ID={key}\n"))),
            b64(&format!("AWS_ACCESS_KEY_ID={key}\n")),
            FindingKind::AwsAccessKey,
            vec![Encoding::Base64],
        ),
        (
            format!("dump {} end", hex::encode(format!("token {token}"))),
            hex::encode(format!("token {token}")),
            FindingKind::GithubToken,
            vec![Encoding::Hex],
        ),
        (
            format!("cfg={}", b64(&format!("u=1&t={percent}"))),
            b64(&format!("u=1&t={percent}")),
            FindingKind::GithubToken,
            vec![Encoding::Base64, Encoding::Percent],
        ),
    ];
    for (text, encoded_run, kind, layers) in cases {
        let l = find(&text);
        assert_eq!(l.len(), 1, "{text:?}: {l:?}");
        assert_eq!((l[0].kind, &l[0].encoded), (kind, &layers), "{text:?}");
        let span = &text[l[0].span.clone()];
        assert!(
            encoded_run.contains(span),
            "{span:?} is inside {encoded_run:?}"
        );
        let f = &scan(&text)[0];
        assert!(f.to_string().contains("(decoded from "), "{f}");
    }
    // Percent-encoding is mapped character by character: only the token
    // is reported, not the URL around it.
    let text = format!("https://api.acme.io/x?t={percent}&y=1");
    let l = &find(&text)[0];
    assert_eq!(&text[l.span.clone()], percent);
    // A third layer is not looked into.
    let three = b64(&b64(&b64(&format!("t={token}"))));
    assert_eq!(find(&three), []);
}

#[test]
fn a_key_split_across_fields_is_found_and_names_them() {
    let key = concat!("AKIA", "Q3VZ7KLM2NB4XW6R");
    let c = lesson(
        &format!("Rotate the deploy key {}", &key[..10]),
        &format!("{} leaked in a CI log.", &key[10..]),
        "Rotated it.",
    );
    let found = scan_lesson(&c);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, FindingKind::AwsAccessKey);
    assert_eq!(found[0].field.as_deref(), Some("claim + rationale"));
    assert_eq!(found[0].excerpt, "AKIA… (20 characters)");
    // Each half alone is nothing.
    assert_eq!(scan(&c.claim), []);
    assert_eq!(scan(&c.rationale), []);
    // A sentence's end before a capital is no seam: `3.x.` + `Local` is not
    // the host `x.Local`.
    let c = lesson(
        "Pin vitest to 3.x.",
        "Local builds break otherwise.",
        "Pinned.",
    );
    assert_eq!(scan_lesson(&c), []);
    // A finding inside one field is reported once, under that field.
    let c = lesson("Use password=hunter22", "because it is old.", "Rotated.");
    let found = scan_lesson(&c);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].field.as_deref(), Some("claim"));
}

#[test]
fn hostile_text_does_not_panic() {
    // Multi-byte characters at every offset around the windows the
    // scanner slices (the Twilio pair window, the key body limit).
    let sid = concat!("AC", "3f9a1c2e7b4d5f60718293a4b5c6d7e8");
    for pad in 0..8 {
        let t = format!("{}{sid}{}", "é".repeat(100 + pad), "ü".repeat(100 + pad));
        assert_eq!(scan(&t), []);
    }
    let header = "-----BEGIN PRIVATE KEY-----";
    let t = format!("{header}{}", "€".repeat(checks::PEM_BODY_LIMIT));
    assert_eq!(scan(&t), []);
    let t = header.repeat(2000);
    assert_eq!(scan(&t), []);
    assert_eq!(scan(""), []);
    assert_eq!(scan("\u{0}\u{1b}]52;c;\u{7}=:@//"), []);
    assert_eq!(scan("%%%%%2%G%ZZ%e2%82"), []);
    // Basic auth that is not base64, or far too long.
    assert_eq!(scan("Authorization: Basic !!!!!!!!!!!!"), []);
    let long = format!("Authorization: Basic {}", "QUFB".repeat(400));
    assert_eq!(scan(&long), []);
    // Every character a disguise could use, alone and in runs.
    let odd: String = (0x80u32..0x3000)
        .chain(0xFE00..0xFFFF)
        .filter_map(char::from_u32)
        .collect();
    let _ = scan(&odd);
    let _ = scan(&odd.repeat(3));
}

/// Decoding is bounded: past the budget of a scan, runs are left
/// undecoded, while plain text is still matched in full.
#[test]
fn decoding_is_bounded_on_huge_input() {
    let token = concat!("ghp_", "16C7e42F292c6912E7710c838347Ae178B4a");
    let b64 = base64ct::Base64::encode_string(format!("t {token}").as_bytes());
    // Decodable filler: base64 of prose, past the whole budget.
    let filler = base64ct::Base64::encode_string(b"just some harmless words here");
    let n = decode::BUDGET / filler.len() + 10;
    let mut text = vec![filler.as_str(); n].join(" ");
    text.push_str(&format!(" {b64} {token}"));
    let found = find(&text);
    // The plain token is found; the encoded one lies past the budget.
    assert_eq!(found.len(), 1, "{:?}", found.len());
    assert_eq!(found[0].encoded, []);
    // Alone, the encoded one is found.
    assert_eq!(find(&b64).len(), 1);
}

// ---- the corpus ------------------------------------------------------------

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// Plain text …
    #[serde(default)]
    text: Option<String>,
    /// … or a lesson: these fields over the reference candidate.
    #[serde(default)]
    lesson: Option<LessonCase>,
    leak: bool,
    class: String,
    note: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LessonCase {
    claim: String,
    rationale: String,
    resolution: String,
}

impl Case {
    fn findings(&self) -> Vec<Finding> {
        match (&self.text, &self.lesson) {
            (Some(t), None) => scan(t),
            (None, Some(l)) => scan_lesson(&lesson(&l.claim, &l.rationale, &l.resolution)),
            _ => panic!("a corpus case has text or lesson: {}", self.note),
        }
    }
}

const CORPUS: &str = include_str!("testdata/corpus.jsonl");

fn corpus() -> Vec<Case> {
    CORPUS
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("corpus.jsonl line {}: {e}", i + 1))
        })
        .collect()
}

/// Every leak is found under its class; at most one benign case in 20 is
/// blocked.
#[test]
fn the_corpus() {
    let cases = corpus();
    for (i, c) in cases.iter().enumerate() {
        assert!(
            c.class.parse::<FindingKind>().is_ok(),
            "line {}: unknown class {:?}",
            i + 1,
            c.class
        );
    }
    let leaks = cases.iter().filter(|c| c.leak).count();
    let benign = cases.len() - leaks;
    assert!(
        leaks >= 40 && benign >= 40,
        "{leaks} leaks, {benign} benign"
    );
    for kind in FindingKind::ALL {
        assert!(
            cases.iter().any(|c| c.leak && c.class == kind.as_str()),
            "no leak of class {kind} in the corpus"
        );
    }
    let mut missed = Vec::new();
    let mut blocked = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let findings = c.findings();
        let found: Vec<String> = findings.iter().map(ToString::to_string).collect();
        let hit = findings.iter().any(|f| f.kind.as_str() == c.class);
        let line = format!(
            "  line {} [{}] {}: found {:?}",
            i + 1,
            c.class,
            c.note,
            found
        );
        if c.leak && !hit {
            missed.push(line);
        } else if !c.leak && !found.is_empty() {
            blocked.push(line);
        }
    }
    assert!(
        missed.is_empty() && blocked.len() * 20 <= benign,
        "{} of {leaks} leaks missed, {} of {benign} benign cases blocked\nmissed:\n{}\nblocked:\n{}",
        missed.len(),
        blocked.len(),
        missed.join("\n"),
        blocked.join("\n"),
    );
}

/// The corpus file, read as raw bytes (as a hosting secret scanner reads
/// it), holds no leak: leak lines escape their secrets as `\uXXXX`.
#[test]
fn the_raw_corpus_file_holds_no_leak() {
    for (i, line) in CORPUS.lines().enumerate() {
        if line.contains(r#""leak": true"#) {
            assert_eq!(scan(line), [], "line {} is not escaped", i + 1);
        }
    }
}
