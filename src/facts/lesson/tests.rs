//! Drafts from real evidence: tool output quoted from public issues
//! (`tests/fixtures/resolver/`) and real commits (their subjects and
//! manifest diffs, `tests/fixtures/commits/README.md` names each).

use super::*;
use crate::facts::{command, manifest, resolver, Fact};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/resolver");

fn output(file: &str) -> Vec<Fact> {
    let text = std::fs::read_to_string(format!("{DIR}/{file}")).unwrap();
    resolver::requirements(&text)
        .into_iter()
        .map(Fact::Requirement)
        .collect()
}

fn then(mut facts: Vec<Fact>, command_line: &str) -> Vec<Fact> {
    let changes = command::changes_in_command(command_line);
    assert!(!changes.is_empty(), "{command_line} changes nothing");
    facts.extend(changes.into_iter().map(Fact::Change));
    facts
}

fn scope(d: &Draft) -> Vec<(String, String)> {
    d.versions
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn an_eresolve_fixed_by_upgrading_the_plugin_names_both_packages_by_range() {
    let facts = then(
        output("npm-error-plugin-legacy-vite7.txt"),
        "npm i -D @vitejs/plugin-legacy@7.0.0",
    );
    let d = draft(&facts, None).unwrap();
    assert_eq!(d.template, Template::Conflict);
    assert_eq!(
        d.claim,
        "@vitejs/plugin-legacy 6.0.0 requires (peer) vite ^6.0.0; with vite 7.1.11 use @vitejs/plugin-legacy 7.0.0"
    );
    assert_eq!(
        d.resolution,
        "Upgrade @vitejs/plugin-legacy to 7.0.0 (`npm i -D @vitejs/plugin-legacy@7.0.0`)."
    );
    assert_eq!(d.stack, ["@vitejs/plugin-legacy", "vite"]);
    assert_eq!(
        scope(&d),
        pairs(&[("@vitejs/plugin-legacy", "<7"), ("vite", ">=7")])
    );
    assert!(
        d.rationale
            .starts_with("npm reported: peer vite@\"^6.0.0\" from @vitejs/plugin-legacy@6.0.0."),
        "{}",
        d.rationale
    );
}

#[test]
fn a_union_peer_range_scopes_the_gap_around_the_installed_version() {
    let facts = then(
        output("npm-err-could-not-resolve-plugin-react-vite4.txt"),
        "npm install @vitejs/plugin-react@^4.0.0",
    );
    let d = draft(&facts, None).unwrap();
    assert_eq!(
        scope(&d),
        pairs(&[("@vitejs/plugin-react", "<4"), ("vite", ">=4")])
    );
    let facts = then(
        output("npm-error-vite-plugin-terminal-vite7.txt"),
        "npm i vite@6.3.5",
    );
    let d = draft(&facts, None).unwrap();
    assert_eq!(d.claim, "vite-plugin-terminal 1.3.0 requires (peer) vite ^2.0.0||^3.0.0||^4.0.0||^5.0.0||^6.0.0, which vite 7.1.1 is outside");
    assert_eq!(
        scope(&d),
        pairs(&[("vite", ">=7"), ("vite-plugin-terminal", "<=1.3.0")])
    );
}

#[test]
fn an_exact_peer_scopes_the_side_the_installed_version_is_on() {
    let facts = then(
        output("npm-err-could-not-resolve-exact-peer-eslint-config-cp.txt"),
        "npm i eslint-config-cp@6.0.0",
    );
    let d = draft(&facts, None).unwrap();
    assert_eq!(
        scope(&d),
        pairs(&[("eslint", ">3.10.1"), ("eslint-config-cp", "<6")])
    );
}

#[test]
fn engines_pnpm_pip_and_cargo() {
    let d = draft(
        &then(
            output("npm-ebadengine-salesforce-apex-node.txt"),
            "npm i @salesforce/apex-node@1.5.0",
        ),
        None,
    )
    .unwrap();
    assert_eq!(d.claim, "@salesforce/apex-node 1.6.0 requires Node.js 16.13.0 or newer; with Node.js 14.17.6 pin @salesforce/apex-node to 1.5.0");
    assert_eq!(
        scope(&d),
        pairs(&[("@salesforce/apex-node", ">1.5.0"), ("node", "<16.13")])
    );
    let d = draft(
        &then(
            output("pnpm-warn-unmet-peer-react-reconciler.txt"),
            "pnpm add react-reconciler@0.29.0",
        ),
        None,
    )
    .unwrap();
    assert_eq!(
        scope(&d),
        pairs(&[("react", ">=18"), ("react-reconciler", "<0.29")])
    );
    let d = draft(
        &then(
            output("pip-check-requests-urllib3-incompatible.txt"),
            "pip install 'urllib3==1.25.11'",
        ),
        None,
    )
    .unwrap();
    assert_eq!(
        scope(&d),
        pairs(&[("pypi:requests", "<=2.23.0"), ("pypi:urllib3", ">=1.26")])
    );
    assert_eq!(d.stack, ["pypi:requests", "pypi:urllib3"]);
    let d = draft(
        &then(
            output("cargo-rustc-version-home.txt"),
            "cargo update -p home --precise 0.5.5",
        ),
        None,
    )
    .unwrap();
    assert_eq!(
        scope(&d),
        pairs(&[("cargo:home", ">0.5.5"), ("rust", "<1.70")])
    );
}

#[test]
fn a_conflict_nothing_resolved_is_no_lesson() {
    assert_eq!(
        draft(&output("npm-error-plugin-legacy-vite7.txt"), None),
        Err(Refusal::NoResolution)
    );
    // An install of something else resolves nothing.
    let facts = then(
        output("npm-error-plugin-legacy-vite7.txt"),
        "npm i lodash@4.17.21",
    );
    assert_eq!(draft(&facts, None), Err(Refusal::NoResolution));
    // bun names no range and no declarer: nothing to say.
    assert_eq!(
        draft(&output("bun-incorrect-peer-dependency.txt"), None),
        Err(Refusal::NoVersions)
    );
}

fn commit(path: &str, old: &str, new: &str) -> Vec<Fact> {
    let kind = manifest::Kind::of_path(path).unwrap();
    let o = manifest::parse(kind, path, old.as_bytes()).unwrap();
    let n = manifest::parse(kind, path, new.as_bytes()).unwrap();
    manifest::diff(kind, path, Some(&o), Some(&n))
        .into_iter()
        .map(Fact::Change)
        .collect()
}

fn vite_manifest(deps: &str) -> String {
    format!(r#"{{"name":"vite","version":"6.0.3","dependencies":{{{deps}}}}}"#)
}

fn msg<'a>(subject: &'a str) -> Message<'a> {
    Message {
        subject,
        body: None,
        repo: Some("vitejs/vite"),
    }
}

#[test]
fn a_pin_after_a_regression() {
    // vitejs/vite 4359e0d5b3.
    let facts = commit(
        "packages/vite/package.json",
        &vite_manifest(r#""esbuild":"^0.24.0""#),
        &vite_manifest(r#""esbuild":"0.24.0""#),
    );
    let d = draft(
        &facts,
        Some(&msg("fix: esbuild regression (pin to 0.24.0) (#19027)")),
    )
    .unwrap();
    assert_eq!(d.template, Template::Pin);
    assert_eq!(d.claim, "esbuild above 0.24.0 has a regression");
    assert_eq!(scope(&d), pairs(&[("esbuild", ">0.24.0")]));
    assert_eq!(
        d.resolution,
        "Pin esbuild to 0.24.0 until a release above 0.24.0 fixes it."
    );
    assert!(crate::facts::wording::problems(
        &d.claim,
        &d.resolution,
        &d.stack,
        Some("fix: esbuild regression (pin to 0.24.0) (#19027)")
    )
    .is_empty());
}

#[test]
fn a_downgrade_to_avoid_an_upstream_bug() {
    // vitejs/vite 856e683885.
    let facts = commit(
        "packages/vite/package.json",
        &vite_manifest(r#""@rollup/plugin-commonjs":"^28.0.8""#),
        &vite_manifest(r#""@rollup/plugin-commonjs":"28.0.6""#),
    );
    let d = draft(
        &facts,
        Some(&msg(
            "fix(deps): downgrade commonjs plugin to 28.0.6 to avoid rollup/plugins#1909 (#20988)",
        )),
    )
    .unwrap();
    assert_eq!(d.template, Template::Downgrade);
    assert_eq!(d.claim, "@rollup/plugin-commonjs 28.0.8 and later has a bug (rollup/plugins#1909); @rollup/plugin-commonjs 28.0.6 does not");
    assert_eq!(scope(&d), pairs(&[("@rollup/plugin-commonjs", ">28.0.6")]));
}

#[test]
fn an_upgrade_for_a_security_fix() {
    // vitejs/vite ea1d0b9af9.
    let facts = commit(
        "packages/vite/package.json",
        &vite_manifest(r#""rollup":"^4.20.0""#),
        &vite_manifest(r#""rollup":"^4.22.5""#),
    );
    let d = draft(
        &facts,
        Some(&msg(
            "fix(deps): upgrade rollup 4.22.4+ to ensure avoiding XSS (#18180)",
        )),
    )
    .unwrap();
    assert_eq!(d.template, Template::Upgrade);
    assert_eq!(scope(&d), pairs(&[("rollup", "<4.22.5")]));
    assert_eq!(d.claim, "rollup below 4.22.5 has a security issue");
}

#[test]
fn a_plain_bump_is_no_lesson() {
    let facts = commit(
        "packages/vite/package.json",
        &vite_manifest(r#""rollup":"^4.20.0""#),
        &vite_manifest(r#""rollup":"^4.21.0""#),
    );
    for subject in [
        "chore(deps): update all non-major dependencies (#17945)",
        "chore(deps): update dependency rollup to v4.21.0 (#1)",
        "Bump rollup from 4.20.0 to 4.21.0",
    ] {
        assert_eq!(
            draft(&facts, Some(&msg(subject))),
            Err(Refusal::NoResolution),
            "{subject}"
        );
    }
    // A bot's body of release notes says "fix" and "regression": still none.
    let m = Message {
        subject: "Bump rollup from 4.20.0 to 4.21.0",
        body: Some("Release notes\n- fix a regression in treeshaking"),
        repo: None,
    };
    assert_eq!(draft(&facts, Some(&m)), Err(Refusal::NoResolution));
}

#[test]
fn a_raised_peer_range_of_a_published_package() {
    let old = r#"{"name":"vite-plugin-x","version":"1.4.0","peerDependencies":{"vite":"^6.0.0 || ^7.0.0"}}"#;
    let new = r#"{"name":"vite-plugin-x","version":"1.4.0","peerDependencies":{"vite":"^6.4.0 || ^7.0.0"}}"#;
    let d = draft(
        &commit("package.json", old, new),
        Some(&msg("feat!: require vite 6.4")),
    )
    .unwrap();
    assert_eq!(d.template, Template::Narrowed);
    assert_eq!(
        scope(&d),
        pairs(&[("vite", ">=6 <6.4"), ("vite-plugin-x", ">1.4.0")])
    );
    assert_eq!(d.claim, "vite-plugin-x releases after 1.4.0 requires peer vite ^6.4.0 || ^7.0.0; vite >=6 <6.4 is no longer supported");
    // A private app's engines say nothing to anyone else.
    let app_old = r#"{"name":"app","private":true,"engines":{"node":">=18"}}"#;
    let app_new = r#"{"name":"app","private":true,"engines":{"node":">=20"}}"#;
    assert_eq!(
        draft(
            &commit("package.json", app_old, app_new),
            Some(&msg("chore: require node 20"))
        ),
        Err(Refusal::NoResolution)
    );
}

#[test]
fn a_range_raised_with_the_package_s_own_version_holds_from_that_version_on() {
    // Bumped in the same commit: the new engines ship with 2.0.0 itself.
    let old = r#"{"name":"cli-x","version":"1.9.0","engines":{"node":">=18.0.0"}}"#;
    let new = r#"{"name":"cli-x","version":"2.0.0","engines":{"node":">=24.0.0"}}"#;
    let d = draft(
        &commit("package.json", old, new),
        Some(&msg("feat!: require Node.js 24")),
    )
    .unwrap();
    assert_eq!(scope(&d), pairs(&[("cli-x", ">=2"), ("node", ">=18 <24")]));
    assert_eq!(
        d.claim,
        "cli-x 2.0.0 and later requires Node.js >=24.0.0; Node.js >=18 <24 is no longer supported"
    );
    assert_eq!(
        d.resolution,
        "On Node.js >=18 <24, stay below cli-x 2.0.0 or move Node.js into >=24.0.0."
    );
    // Moved down in the same commit (codemie-ai/codemie-code 54142e45
    // "Setup CI/CD workflows and project improvements": version 1.0.0 ->
    // 0.0.1 and engines node >=18.0.0 -> >=24.0.0): which releases have
    // the change cannot be said.
    let old = r#"{"name":"@codemie/code","version":"1.0.0","engines":{"node":">=18.0.0"}}"#;
    let new = r#"{"name":"@codemie/code","version":"0.0.1","engines":{"node":">=24.0.0"}}"#;
    assert_eq!(
        draft(
            &commit("package.json", old, new),
            Some(&msg("Setup CI/CD workflows and project improvements"))
        ),
        Err(Refusal::NoVersions)
    );
}

#[test]
fn a_widened_peer_range_is_support_added_not_a_lesson() {
    let old = r#"{"name":"@vitejs/plugin-react","version":"3.1.0","peerDependencies":{"vite":"^4.1.0-beta.0"}}"#;
    let narrowed = r#"{"name":"@vitejs/plugin-react","version":"3.1.0","peerDependencies":{"vite":"^4.2.0 || ^5.0.0"}}"#;
    let d = draft(
        &commit("packages/plugin-react/package.json", old, narrowed),
        Some(&msg("feat: support vite 5 (#250)")),
    )
    .unwrap();
    assert_eq!(
        d.template,
        Template::Narrowed,
        "4.1 was dropped: that is a lesson"
    );
    let widened = r#"{"name":"@vitejs/plugin-react","version":"3.1.0","peerDependencies":{"vite":"^4.1.0-beta.0 || ^5.0.0"}}"#;
    assert_eq!(
        draft(
            &commit("packages/plugin-react/package.json", old, widened),
            Some(&msg("feat: support vite 5 (#250)"))
        ),
        Err(Refusal::NoResolution)
    );
}

#[test]
fn caps_exclusions_added_pins_and_merges() {
    // fastapi/fastapi e1a1a367a7: an upper bound added for a reason.
    let py = |deps: &str| format!("[project]\nname = \"fastapi\"\ndependencies = [{deps}]\n");
    let facts = commit(
        "pyproject.toml",
        &py("\"anyio >=3.4.0\""),
        &py("\"anyio >=3.4.0,<4.0.0\""),
    );
    let d = draft(&facts, Some(&msg("📌 Pin AnyIO to < 4.0.0 to handle an incompatibility while upgrading to Starlette 0.31.1 (#10194)"))).unwrap();
    assert_eq!(scope(&d), pairs(&[("pypi:anyio", ">=4")]));
    // fastapi/fastapi 77d1f69b1f: one release excluded; the lesson says it is exact.
    let facts = commit(
        "pyproject.toml",
        &py("\"pydantic >=1.7.4,<3.0.0\""),
        &py("\"pydantic >=1.7.4,!=2.1.0,<3.0.0\""),
    );
    let d = draft(
        &facts,
        Some(&msg(
            "📌 Do not allow Pydantic 2.1.0 that breaks (require 2.1.1) (#10012)",
        )),
    )
    .unwrap();
    assert_eq!(scope(&d), pairs(&[("pypi:pydantic", "=2.1.0")]));
    assert!(
        d.rationale
            .ends_with("Scoped to exactly pydantic 2.1.0: the change excludes that one release."),
        "{}",
        d.rationale
    );
    // nushell/nushell fd68767216: a dependency added already pinned.
    let cargo = |deps: &str| {
        format!("[package]\nname = \"nu-polars\"\nversion = \"0.72.0\"\n[dependencies]\n{deps}")
    };
    let facts = commit(
        "crates/nu-polars/Cargo.toml",
        &cargo("polars = \"0.25\"\n"),
        &cargo("polars = \"0.25\"\nzstd-sys = \"=2.0.1+zstd.1.5.2\"\n"),
    );
    let d = draft(
        &facts,
        Some(&msg(
            "pin to a version of zstd that doesn't break dataframe compilation (#7227)",
        )),
    )
    .unwrap();
    assert_eq!(scope(&d), pairs(&[("cargo:zstd-sys", ">2.0.1")]));
    // cli/cli c5fc35527e: a merge says its why in its body's first line,
    // and the change it names wins over the others.
    let go = |a: &str, b: &str| {
        format!("module github.com/cli/cli/v2\n\ngo 1.19\n\nrequire (\n\tgithub.com/stretchr/testify {a}\n\tgithub.com/danieljoos/wincred {b} // indirect\n)\n")
    };
    let facts = commit("go.mod", &go("v1.7.5", "v1.1.2"), &go("v1.8.1", "v1.2.0"));
    let m = Message {
        subject: "Merge pull request #7459 from cli/bump-wincred",
        body: Some("Fix windows crash by bumping wincred"),
        repo: Some("cli/cli"),
    };
    let d = draft(&facts, Some(&m)).unwrap();
    assert_eq!(
        scope(&d),
        pairs(&[("go:github.com/danieljoos/wincred", "<1.2")])
    );
    assert_eq!(d.claim, "github.com/danieljoos/wincred below 1.2.0 crashes");
    // A merge of a bot's branch is a bot's change.
    let bot = Message { subject: "Merge pull request #9001 from cli/dependabot/go_modules/github.com/danieljoos/wincred-1.2.0", body: Some("Bump github.com/danieljoos/wincred from 1.1.2 to 1.2.0"), repo: None };
    assert_eq!(draft(&facts, Some(&bot)), Err(Refusal::NoResolution));
}

#[test]
fn an_upgrade_needs_a_described_reason_and_a_negated_one_is_none() {
    let facts = commit(
        "packages/vite/package.json",
        &vite_manifest(r#""esbuild":"^0.14.25""#),
        &vite_manifest(r#""esbuild":"^0.14.27""#),
    );
    // vitejs/vite 65aaeeee87: only an issue number: not a lesson.
    assert_eq!(
        draft(
            &facts,
            Some(&msg("fix: update to esbuild 0.14.27, fix #6994 (#7320)"))
        ),
        Err(Refusal::NoResolution)
    );
    // vitejs/vite fd9de0473e: the bug is named.
    let d = draft(
        &facts,
        Some(&msg(
            "fix(esbuild): update esbuild to fix bug that could cause a deadlock (#16124)",
        )),
    )
    .unwrap();
    assert_eq!(scope(&d), pairs(&[("esbuild", "<0.14.27")]));
    // nushell/nushell d3182a6737: "there is no known bug or security problem".
    let m = Message {
        subject: "Revert \"Bump regex from 1.9.6 to 1.10.2\" (#10818)",
        body: Some("Reverts nushell/nushell#10716\n\nthere is no known bug or security problem we suffer from"),
        repo: None,
    };
    let w = why(&m).unwrap();
    assert_eq!(
        w.problem, "has a problem",
        "the revert, not the negated words"
    );
    assert!(!w.described);
}

#[test]
fn the_why_of_a_message() {
    let w = why(&msg(
        "fix(deps): downgrade commonjs plugin to 28.0.6 to avoid rollup/plugins#1909 (#20988)",
    ))
    .unwrap();
    assert_eq!(w.refs, ["rollup/plugins#1909"]);
    assert_eq!(w.clause.as_deref(), Some("rollup/plugins#1909"));
    let w = why(&msg(
        "fix: bump @rollup/plugin-commonjs to v19, fix #3312 (#3353)",
    ))
    .unwrap();
    assert_eq!(
        w.refs,
        ["vitejs/vite#3312"],
        "the PR number is not a reason; the issue is, qualified"
    );
    assert_eq!(
        why(&msg(
            "chore(deps): update dependency rollup to v4.21.0 (#17945)"
        )),
        None
    );
    assert_eq!(
        why(&msg("build: support Vite 5.0 and bump minimum to 3.1")),
        None
    );
}

fn fastapi_pyproject(deps: &str) -> String {
    format!("[project]\nname = \"fastapi\"\nrequires-python = \">=3.8\"\ndependencies = [{deps}]\n")
}

fn fastapi_msg(subject: &str) -> Message<'_> {
    Message {
        subject,
        body: None,
        repo: Some("fastapi/fastapi"),
    }
}

#[test]
fn a_dependency_added_with_a_cap_for_a_stated_reason_is_scoped_from_the_cap() {
    // fastapi/fastapi e1a1a367a7: `"anyio>=3.7.1,<4.0.0"` added with a comment.
    let facts = commit(
        "pyproject.toml",
        &fastapi_pyproject(r#""starlette>=0.27.0,<0.28.0""#),
        &fastapi_pyproject(r#""starlette>=0.27.0,<0.28.0", "anyio>=3.7.1,<4.0.0""#),
    );
    let m = fastapi_msg("📌 Pin AnyIO to < 4.0.0 to handle an incompatibility while upgrading to Starlette 0.31.1 (#10194)");
    let d = draft(&facts, Some(&m)).unwrap();
    assert_eq!(
        d.claim,
        "anyio 4.0.0 and later has a bug (an incompatibility while upgrading to Starlette 0.31.1)"
    );
    assert_eq!(
        d.resolution,
        "Keep anyio within >=3.7.1,<4.0.0 until a later release fixes it."
    );
    assert_eq!(scope(&d), pairs(&[("pypi:anyio", ">=4")]));
    // Added with a cap and no reason: a plain new dependency.
    let plain = fastapi_msg("✨ Add anyio (#10194)");
    assert_eq!(draft(&facts, Some(&plain)), Err(Refusal::NoResolution));
}

#[test]
fn an_advisory_merge_that_raises_its_only_dependency_scopes_below_the_fix() {
    // fastapi/fastapi 9d34ad0ee8: the message names the advisory, not the package.
    let facts = commit(
        "pyproject.toml",
        &fastapi_pyproject(r#""python-multipart >=0.0.5""#),
        &fastapi_pyproject(r#""python-multipart >=0.0.7""#),
    );
    let m = fastapi_msg("Merge pull request from GHSA-qf9m-vfgh-m389");
    let d = draft(&facts, Some(&m)).unwrap();
    assert_eq!(
        d.claim,
        "python-multipart below 0.0.7 has a security issue (GHSA-qf9m-vfgh-m389)"
    );
    assert_eq!(scope(&d), pairs(&[("pypi:python-multipart", "<0.0.7")]));
    // Two packages moved and the message names neither: which one the
    // advisory is about is not known.
    let two = commit(
        "pyproject.toml",
        &fastapi_pyproject(r#""python-multipart >=0.0.5", "starlette >=0.27.0""#),
        &fastapi_pyproject(r#""python-multipart >=0.0.7", "starlette >=0.28.0""#),
    );
    assert_eq!(draft(&two, Some(&m)), Err(Refusal::NoResolution));
}

#[test]
fn a_reason_clause_keeps_dotted_names_and_versions_and_drops_the_pull_request() {
    let w = why(&fastapi_msg(
        "⬆ Upgrade required Python version to >= 3.6.1, needed by typing.Deque, used by Pydantic (#2733)",
    ))
    .unwrap();
    assert_eq!(w.clause.as_deref(), Some("typing.Deque, used by Pydantic"));
    let w = why(&fastapi_msg(
        "📌 Pin AnyIO to < 4.0.0 to handle an incompatibility while upgrading to Starlette 0.31.1 (#10194)",
    ))
    .unwrap();
    assert_eq!(
        w.clause.as_deref(),
        Some("an incompatibility while upgrading to Starlette 0.31.1")
    );
    // A sentence still ends at its full stop.
    let w = why(&msg("fix: pin foo to avoid the hang. Also tidy docs")).unwrap();
    assert_eq!(w.clause.as_deref(), Some("the hang"));
}

fn go_mod(require: &str) -> String {
    format!("module github.com/cli/cli\n\ngo 1.21\n\nrequire (\n\t{require}\n)\n")
}

#[test]
fn a_merged_downgrade_names_the_newer_releases_without_inventing_a_reason() {
    // cli/cli ee4827483d.
    let facts = commit(
        "go.mod",
        &go_mod("github.com/AlecAivazis/survey/v2 v2.2.2"),
        &go_mod("github.com/AlecAivazis/survey/v2 v2.1.1"),
    );
    let m = Message {
        subject: "Merge pull request #2421 from cli/downgrade-survey",
        body: Some("Downgrade survey to v2.1.1"),
        repo: Some("cli/cli"),
    };
    let d = draft(&facts, Some(&m)).unwrap();
    assert_eq!(d.template, Template::Downgrade);
    assert_eq!(
        d.claim,
        "github.com/AlecAivazis/survey/v2 2.2.2 and later has a problem; github.com/AlecAivazis/survey/v2 2.1.1 does not"
    );
    assert_eq!(
        scope(&d),
        pairs(&[("go:github.com/AlecAivazis/survey/v2", ">2.1.1")])
    );
    // The same move by a bot is no lesson.
    let bot = Message {
        subject: "Bump github.com/AlecAivazis/survey/v2 from 2.2.2 to 2.1.1",
        body: None,
        repo: Some("cli/cli"),
    };
    assert_eq!(draft(&facts, Some(&bot)), Err(Refusal::NoResolution));
}

#[test]
fn an_upgrade_for_a_named_fix_is_scoped_below_it() {
    // cli/cli e461c89b7d.
    let facts = commit(
        "go.mod",
        &go_mod("github.com/cli/go-gh/v2 v2.4.1-0.20231120145612-d32c104a9a25"),
        &go_mod("github.com/cli/go-gh/v2 v2.5.0"),
    );
    let m = Message {
        subject: "Merge pull request #8647 from cli/andyfeller/8496-config-readonly-home-manager",
        body: Some("Upgrade cli/go-gh to v2.5.0 for home-manager fix"),
        repo: Some("cli/cli"),
    };
    let d = draft(&facts, Some(&m)).unwrap();
    assert_eq!(
        d.claim,
        "github.com/cli/go-gh/v2 below 2.5.0 has a bug (the home-manager fix)"
    );
    assert_eq!(scope(&d), pairs(&[("go:github.com/cli/go-gh/v2", "<2.5")]));
}

#[test]
fn a_caret_dependency_added_for_a_reason_is_no_cap() {
    // nushell/nushell 39b43d1e4b: `is-terminal = "0.4"` added "for now".
    let old = "[package]\nname = \"nu\"\nversion = \"0.81.0\"\n[dependencies]\nlog = \"0.4\"\n";
    let new = "[package]\nname = \"nu\"\nversion = \"0.81.0\"\n[dependencies]\nlog = \"0.4\"\nis-terminal = \"0.4\"\n";
    let facts = commit("Cargo.toml", old, new);
    let m = Message {
        subject: "Use `is-terminal` crate for now (#9670)",
        body: None,
        repo: Some("nushell/nushell"),
    };
    assert_eq!(draft(&facts, Some(&m)), Err(Refusal::NoResolution));
}

#[test]
fn a_move_back_within_a_range_that_still_admits_the_newer_release_is_scoped_from_it() {
    // vitest-dev/vitest 052bc02133: `^3.1.7` → `^3.0.0` still admits 3.1.7.
    let pkg = |v: &str| {
        format!(r#"{{"name":"vitest","version":"0.0.1","devDependencies":{{"vite":"{v}"}}}}"#)
    };
    let facts = commit("package.json", &pkg("^3.1.7"), &pkg("^3.0.0"));
    let d = draft(&facts, Some(&msg("chore(deps): revert vite to 3.0.0"))).unwrap();
    assert_eq!(d.template, Template::Downgrade);
    assert_eq!(
        d.claim,
        "vite 3.1.7 and later has a problem; vite below 3.1.7 does not"
    );
    assert_eq!(scope(&d), pairs(&[("vite", ">=3.1.7")]));
    assert_eq!(
        d.resolution,
        "Stay on vite below 3.1.7 until a release past 3.1.7 fixes it."
    );
}

#[test]
fn an_inclusive_cap_says_above_once() {
    // nushell/nushell 3f960012: `"2.0.1"` → `"=2.0.1+zstd.1.5.2"` with a reason.
    let toml = |v: &str| {
        format!(
            "[package]\nname = \"nu\"\nversion = \"0.71.0\"\n[dependencies]\nzstd-sys = \"{v}\"\n"
        )
    };
    let facts = commit("Cargo.toml", &toml("2.0.1"), &toml("=2.0.1+zstd.1.5.2"));
    let m = Message {
        subject: "Pin zstd-sys to avoid the build breaking on zstd 1.5.3",
        body: None,
        repo: Some("nushell/nushell"),
    };
    let d = draft(&facts, Some(&m)).unwrap();
    assert!(!d.claim.contains("and later"), "{}", d.claim);
    assert!(d.claim.starts_with("zstd-sys above 2.0.1 "), "{}", d.claim);
}

#[test]
fn a_go_module_added_for_a_stated_reason_is_no_pin() {
    // cli/cli dea1af12: every go.mod requirement names one version; adding
    // one pins nothing.
    let facts = commit(
        "go.mod",
        &go_mod("github.com/cli/oauth v1.0.1"),
        &go_mod("github.com/cli/oauth v1.0.1\n\tgopkg.in/check.v1 v1.0.0-20190902080502-41f04d3bba15 // indirect"),
    );
    let m = Message {
        subject: "pr checks: avoid deduplicating same-named checks under different workflows",
        body: None,
        repo: Some("cli/cli"),
    };
    assert_eq!(draft(&facts, Some(&m)), Err(Refusal::NoResolution));
}
