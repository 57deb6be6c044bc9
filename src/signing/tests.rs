//! Tests against the real tools: git, ssh-keygen, ssh-agent, gpg. Every child
//! runs with a temporary HOME, no system or global git config and TZ=UTC.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use ssh_key::PrivateKey;

use super::*;
use crate::process::{run, Finished, Invocation};

const PATH: &str = "/usr/local/bin:/usr/bin:/bin";
const COMMIT_TIME: &str = "1700000000 +0000"; // 2023-11-14T22:13:20Z

struct Sandbox {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        fs::create_dir(&home).unwrap();
        let env = [
            ("PATH", PATH),
            ("HOME", home.to_str().unwrap()),
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ("TZ", "UTC"),
            ("LC_ALL", "C"),
            ("GIT_AUTHOR_NAME", "Lore Bot"),
            ("GIT_AUTHOR_EMAIL", "lore@example.com"),
            ("GIT_AUTHOR_DATE", COMMIT_TIME),
            ("GIT_COMMITTER_NAME", "Lore Bot"),
            ("GIT_COMMITTER_EMAIL", "lore@example.com"),
            ("GIT_COMMITTER_DATE", COMMIT_TIME),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        Sandbox { dir, env }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn home(&self) -> PathBuf {
        self.path("home")
    }

    fn with_env(&self, extra: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut env = self.env.clone();
        for (k, v) in extra {
            env.retain(|(key, _)| key != k);
            env.push((k.to_string(), v.to_string()));
        }
        env
    }

    fn run_env(
        &self,
        argv: &[&str],
        cwd: Option<&Path>,
        input: &[u8],
        env: Vec<(String, String)>,
    ) -> Finished {
        let inv = Invocation {
            argv: argv.iter().map(|s| s.to_string()).collect(),
            env,
            cwd: cwd.map(Path::to_path_buf),
            timeout: Duration::from_secs(60),
            max_output: 16 << 20,
            new_session: true,
        };
        run(&inv, input).unwrap_or_else(|e| panic!("{argv:?}: {e}"))
    }

    fn run(&self, argv: &[&str], cwd: Option<&Path>, input: &[u8]) -> Finished {
        self.run_env(argv, cwd, input, self.env.clone())
    }

    fn ok(&self, argv: &[&str], cwd: Option<&Path>, input: &[u8]) -> String {
        let f = self.run(argv, cwd, input);
        assert!(
            f.success(),
            "{argv:?} failed: {}",
            String::from_utf8_lossy(&f.stderr)
        );
        String::from_utf8(f.stdout).unwrap()
    }

    fn config(&self, format: Format, key: Option<&str>) -> SigningConfig {
        let mut c = SigningConfig::new(format, "Lore Bot <lore@example.com>", self.dir.path());
        c.signing_key = key.map(str::to_string);
        c.home = Some(self.home());
        c.child_env = self.env.clone();
        c.timeout = Duration::from_secs(30);
        c.temp_dir = Some(self.dir.path().to_path_buf());
        c
    }

    /// A new repository with one unsigned commit; returns (repo, raw commit).
    fn repo_with_commit(&self, name: &str) -> (PathBuf, Vec<u8>) {
        let repo = self.path(name);
        self.ok(
            &["git", "init", "-q", "-b", "main", repo.to_str().unwrap()],
            None,
            b"",
        );
        let blob = self.ok(
            &["git", "hash-object", "-w", "--stdin"],
            Some(&repo),
            b"{}\n",
        );
        let tree = self.ok(
            &["git", "mktree"],
            Some(&repo),
            format!("100644 blob {}\tlesson.json\n", blob.trim()).as_bytes(),
        );
        let commit = self.ok(
            &[
                "git",
                "commit-tree",
                tree.trim(),
                "-m",
                "lesson: add",
                "-m",
                "Lore-Action: add",
            ],
            Some(&repo),
            b"",
        );
        let raw = self.ok(
            &["git", "cat-file", "commit", commit.trim()],
            Some(&repo),
            b"",
        );
        (repo, raw.into_bytes())
    }

    fn write_object(&self, repo: &Path, commit: &[u8]) -> String {
        self.ok(
            &["git", "hash-object", "-t", "commit", "-w", "--stdin"],
            Some(repo),
            commit,
        )
        .trim()
        .to_string()
    }

    /// git's `%G?`, `%GS`, `%GK` for a commit under an allowed-signers file.
    fn git_verdict(&self, repo: &Path, allowed_file: &Path, id: &str) -> (char, String, String) {
        let setting = format!("gpg.ssh.allowedSignersFile={}", allowed_file.display());
        let out = self.ok(
            &[
                "git",
                "-c",
                &setting,
                "log",
                "-1",
                "--format=%G?%n%GS%n%GK",
                id,
            ],
            Some(repo),
            b"",
        );
        let mut lines = out.lines();
        let letter = lines.next().and_then(|l| l.chars().next()).unwrap();
        let signer = lines.next().unwrap_or("").to_string();
        let key = lines.next().unwrap_or("").to_string();
        (letter, signer, key)
    }
}

fn seeded_key(seed: u64) -> PrivateKey {
    generate_ed25519(&mut rand::rngs::StdRng::seed_from_u64(seed)).unwrap()
}

fn key_line(key: &PrivateKey) -> String {
    key.public_key().to_openssh().unwrap()
}

fn write_script(path: &Path, body: &str) {
    fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn signer_and_errors_can_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Signer>();
    send_sync::<SigningError>();
    send_sync::<AllowedSigners>();
}

#[test]
fn format_follows_git_config() {
    assert_eq!(Format::from_git_config(None).unwrap(), Format::OpenPgp);
    assert_eq!(Format::from_git_config(Some("ssh")).unwrap(), Format::Ssh);
    assert_eq!(Format::from_git_config(Some("x509")).unwrap(), Format::X509);
    assert_eq!(
        Format::from_git_config(Some("openpgp")).unwrap(),
        Format::OpenPgp
    );
    let err = Format::from_git_config(Some("SSH")).unwrap_err();
    assert!(err.to_string().contains("\"SSH\""), "{err}");
    assert_eq!(Format::Ssh.as_git_config(), "ssh");
}

#[test]
fn native_signature_is_byte_identical_to_ssh_keygen() {
    let sb = Sandbox::new();
    let key = seeded_key(1);
    fs::create_dir(sb.home().join(".ssh")).unwrap();
    let key_path = sb.home().join(".ssh/lore_key");
    write_key_pair(&key, &key_path, "lore@example.com").unwrap();

    for spec in [
        "~/.ssh/lore_key",
        key_path.to_str().unwrap(),
        "home/.ssh/lore_key",
    ] {
        let signer = Signer::from_config(&sb.config(Format::Ssh, Some(spec))).unwrap();
        assert!(signer.is_native(), "{spec}");
        assert!(
            signer.description().contains("SHA256:"),
            "{}",
            signer.description()
        );
        assert_eq!(
            signer.public_key().map(|k| k.key_data()),
            Some(key.public_key().key_data())
        );
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for (i, payload) in [b"".to_vec(), b"tree x\n\nmsg\n".to_vec(), big]
            .iter()
            .enumerate()
        {
            let ours = signer.sign(payload).unwrap();
            assert!(ours.starts_with("-----BEGIN SSH SIGNATURE-----\n"));
            assert!(ours.ends_with("\n-----END SSH SIGNATURE-----\n"));
            let file = sb.path(&format!("payload{i}"));
            fs::write(&file, payload).unwrap();
            let _ = fs::remove_file(file.with_extension("sig"));
            sb.ok(
                &[
                    "ssh-keygen",
                    "-Y",
                    "sign",
                    "-n",
                    "git",
                    "-f",
                    key_path.to_str().unwrap(),
                    file.to_str().unwrap(),
                ],
                None,
                b"",
            );
            let theirs = fs::read_to_string(format!("{}.sig", file.display())).unwrap();
            assert_eq!(ours, theirs, "payload {i} via {spec}");
            let _ = fs::remove_file(format!("{}.sig", file.display()));
        }
    }
}

#[test]
fn git_verifies_a_natively_signed_commit() {
    let sb = Sandbox::new();
    let key = seeded_key(2);
    let key_path = sb.path("lore_key");
    write_key_pair(&key, &key_path, "lore").unwrap();
    let allowed_file = sb.path("allowed_signers");
    let line = allowed_signers_line("lore@example.com", key.public_key()).unwrap();
    fs::write(&allowed_file, format!("{line}\n")).unwrap();
    let fp = key
        .public_key()
        .fingerprint(ssh_key::HashAlg::Sha256)
        .to_string();

    let (repo, raw) = sb.repo_with_commit("repo");
    let signer = Signer::from_config(&sb.config(Format::Ssh, key_path.to_str())).unwrap();
    let sig = signer.sign(&raw).unwrap();
    let signed = insert_gpgsig(&raw, &sig);
    let id = sb.write_object(&repo, &signed);

    let setting = format!("gpg.ssh.allowedSignersFile={}", allowed_file.display());
    let verified = sb.run(
        &["git", "-c", &setting, "verify-commit", "-v", &id],
        Some(&repo),
        b"",
    );
    let stderr = String::from_utf8_lossy(&verified.stderr);
    assert!(verified.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "Good \"git\" signature for lore@example.com with ED25519 key {fp}"
        )),
        "{stderr}"
    );
    assert_eq!(verified.stdout, raw, "git verifies exactly our payload");

    let shown = sb.ok(
        &["git", "-c", &setting, "log", "--show-signature", "-1", &id],
        Some(&repo),
        b"",
    );
    assert!(
        shown.contains("Good \"git\" signature for lore@example.com"),
        "{shown}"
    );
    assert_eq!(
        sb.git_verdict(&repo, &allowed_file, &id),
        ('G', "lore@example.com".to_string(), fp.clone())
    );
    sb.ok(
        &["git", "fsck", "--strict", "--no-dangling"],
        Some(&repo),
        b"",
    );

    let stored = sb.ok(&["git", "cat-file", "commit", &id], Some(&repo), b"");
    assert_eq!(stored.as_bytes(), signed.as_slice());
    assert_eq!(
        split_signed_commit(stored.as_bytes()),
        (raw.clone(), Some(sig))
    );
    let allowed = AllowedSigners::parse(&fs::read_to_string(&allowed_file).unwrap()).unwrap();
    assert_eq!(
        verify_commit(stored.as_bytes(), &allowed),
        SignatureStatus::Good {
            principal: "lore@example.com".into(),
            fingerprint: fp
        }
    );
}

#[test]
fn split_and_insert_round_trip_commits_signed_by_git() {
    let sb = Sandbox::new();
    let key_path = sb.path("k");
    write_key_pair(&seeded_key(3), &key_path, "k").unwrap();
    let repo = sb.path("repo");
    let r = Some(repo.as_path());
    sb.ok(
        &["git", "init", "-q", "-b", "main", repo.to_str().unwrap()],
        None,
        b"",
    );
    for (k, v) in [
        ("gpg.format", "ssh"),
        ("user.signingkey", key_path.to_str().unwrap()),
        ("commit.gpgsign", "true"),
        ("tag.gpgsign", "true"),
        ("i18n.commitEncoding", "ISO-8859-1"),
    ] {
        sb.ok(&["git", "config", k, v], r, b"");
    }
    fs::write(repo.join("a"), "a\n").unwrap();
    sb.ok(&["git", "add", "a"], r, b"");
    sb.ok(&["git", "commit", "-q", "-m", "base"], r, b"");
    sb.ok(&["git", "checkout", "-q", "-b", "side"], r, b"");
    fs::write(repo.join("b"), "b\n").unwrap();
    sb.ok(&["git", "add", "b"], r, b"");
    sb.ok(&["git", "commit", "-q", "-m", "side"], r, b"");
    sb.ok(&["git", "tag", "-s", "-m", "tag message", "v1"], r, b"");
    sb.ok(&["git", "checkout", "-q", "main"], r, b"");
    fs::write(repo.join("c"), "c\n").unwrap();
    sb.ok(&["git", "add", "c"], r, b"");
    sb.ok(&["git", "commit", "-q", "-m", "main"], r, b"");
    sb.ok(
        &["git", "merge", "-q", "--no-ff", "-m", "merge v1", "v1"],
        r,
        b"",
    );

    let allowed_file = sb.path("allowed");
    let pubkey = fs::read_to_string(format!("{}.pub", key_path.display())).unwrap();
    fs::write(&allowed_file, format!("lore@example.com {pubkey}")).unwrap();
    let allowed = AllowedSigners::parse(&fs::read_to_string(&allowed_file).unwrap()).unwrap();
    let setting = format!("gpg.ssh.allowedSignersFile={}", allowed_file.display());

    let ids = sb.ok(&["git", "rev-list", "--all"], r, b"");
    let mut saw_mergetag = false;
    for id in ids.lines() {
        let raw = sb
            .ok(&["git", "cat-file", "commit", id], r, b"")
            .into_bytes();
        let text = String::from_utf8_lossy(&raw).into_owned();
        saw_mergetag |= text.contains("\nmergetag object ");
        assert!(
            text.contains("\nencoding ISO-8859-1\ngpgsig -----BEGIN SSH SIGNATURE-----\n")
                || text.contains("-----END SSH SIGNATURE-----\ngpgsig "),
            "{text}"
        );
        let (payload, sig) = split_signed_commit(&raw);
        let sig = sig.expect("git signed it");
        assert!(sig.ends_with("-----END SSH SIGNATURE-----\n"));
        assert_eq!(insert_gpgsig(&payload, &sig), raw, "{text}");
        let verified = sb.run(&["git", "-c", &setting, "verify-commit", "-v", id], r, b"");
        assert!(verified.success());
        assert_eq!(verified.stdout, payload, "the payload git verifies");
        let ours = verify_commit(&raw, &allowed);
        assert_eq!(status_letter(&ours), 'G', "{ours:?}");
        assert_eq!(sb.git_verdict(&repo, &allowed_file, id).0, 'G');
    }
    assert!(
        saw_mergetag,
        "the merge of a signed tag carries a mergetag header"
    );
}

#[test]
fn verdicts_match_git() {
    let sb = Sandbox::new();
    let a = seeded_key(10);
    let b = seeded_key(11);
    let a_path = sb.path("a_key");
    write_key_pair(&a, &a_path, "a").unwrap();
    let (ka, kb) = (key_line(&a), key_line(&b));
    let fp_a = a
        .public_key()
        .fingerprint(ssh_key::HashAlg::Sha256)
        .to_string();

    let (repo, raw) = sb.repo_with_commit("repo");
    let signer = Signer::from_config(&sb.config(Format::Ssh, a_path.to_str())).unwrap();
    let sig = signer.sign(&raw).unwrap();
    let signed = insert_gpgsig(&raw, &sig);
    let good_id = sb.write_object(&repo, &signed);
    let tampered = String::from_utf8(signed.clone())
        .unwrap()
        .replace("lesson: add", "lesson: adb");
    let tampered_id = sb.write_object(&repo, tampered.as_bytes());
    let unsigned_id = sb.write_object(&repo, &raw);
    // A good signature, but for namespace "file".
    let file = sb.path("payload");
    fs::write(&file, &raw).unwrap();
    sb.ok(
        &[
            "ssh-keygen",
            "-Y",
            "sign",
            "-n",
            "file",
            "-f",
            a_path.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
        None,
        b"",
    );
    let file_sig = fs::read_to_string(format!("{}.sig", file.display())).unwrap();
    let file_ns_id = sb.write_object(&repo, &insert_gpgsig(&raw, &file_sig));

    let good = |p: &str| ('G', p.to_string());
    let cases: Vec<(String, &str, (char, String))> = vec![
        (format!("a@x {ka}"), &good_id, good("a@x")),
        (format!("b@x {kb}"), &good_id, ('U', String::new())),
        (
            format!("a@x namespaces=\"file\" {ka}"),
            &good_id,
            ('B', String::new()),
        ),
        (
            format!("a@x namespaces=\"file,g?t\" {ka}"),
            &good_id,
            good("a@x"),
        ),
        (
            format!("a@x valid-before=\"20200101Z\" {ka}"),
            &good_id,
            ('U', String::new()),
        ),
        (
            format!("a@x valid-after=\"20300101\" {ka}"),
            &good_id,
            ('U', String::new()),
        ),
        (
            format!("a@x valid-after=\"20231114221320\" {ka}"),
            &good_id,
            good("a@x"),
        ),
        (
            format!("a@x valid-before=\"20231114221320Z\" {ka}"),
            &good_id,
            good("a@x"),
        ),
        (
            format!("a@x valid-after=\"202311142213\",valid-before=\"202311142214\" {ka}"),
            &good_id,
            good("a@x"),
        ),
        (
            format!("a@x valid-after=\"20231114221321\" {ka}"),
            &good_id,
            ('U', String::new()),
        ),
        (
            format!("a@x valid-before=\"20231114221319\" {ka}"),
            &good_id,
            ('U', String::new()),
        ),
        (
            format!("a@x cert-authority {ka}"),
            &good_id,
            ('U', String::new()),
        ),
        (format!("a@x,b@y {ka}"), &good_id, good("a@x")),
        (format!("*@x {ka}"), &good_id, good("*@x")),
        (format!("!a@x {ka}"), &good_id, ('B', String::new())),
        (format!("\"a b@x\" {ka}"), &good_id, good("a b@x")),
        (format!("b@x {kb}\n# c\na@x {ka}"), &good_id, good("a@x")),
        (
            format!("a@x valid-before=\"20200101\" {ka}\nc@x {ka}"),
            &good_id,
            good("c@x"),
        ),
        (
            format!("a@x namespaces=\"file\" {ka}\nc@x {ka}"),
            &good_id,
            ('B', String::new()),
        ),
        (
            format!("a@x namespaces=\"file\" {ka}\nc@x,a@x {ka}"),
            &good_id,
            good("a@x"),
        ),
        (format!("a@x {ka}"), &tampered_id, ('B', String::new())),
        (format!("b@x {kb}"), &tampered_id, ('B', String::new())),
        (format!("a@x {ka}"), &unsigned_id, ('N', String::new())),
        (format!("a@x {ka}"), &file_ns_id, ('B', String::new())),
        (format!("b@x {kb}"), &file_ns_id, ('B', String::new())),
    ];
    let allowed_file = sb.path("allowed");
    for (text, id, want) in &cases {
        fs::write(&allowed_file, format!("{text}\n")).unwrap();
        let (letter, principal, key) = sb.git_verdict(&repo, &allowed_file, id);
        assert_eq!(
            (letter, principal.clone()),
            *want,
            "git on {text:?} for {id}"
        );
        let allowed = AllowedSigners::parse(text).unwrap();
        let stored = sb.ok(&["git", "cat-file", "commit", id], Some(&repo), b"");
        let ours = verify_commit(stored.as_bytes(), &allowed);
        assert_eq!(status_letter(&ours), letter, "ours on {text:?}: {ours:?}");
        match &ours {
            SignatureStatus::Good {
                principal: p,
                fingerprint,
            } => {
                assert_eq!(p, &principal);
                assert_eq!(fingerprint, &key);
                assert_eq!(fingerprint, &fp_a);
            }
            SignatureStatus::UnknownSigner { fingerprint } => assert_eq!(fingerprint, &key),
            SignatureStatus::Bad { reason } => assert!(!reason.is_empty()),
            _ => {}
        }
    }

    // Without a signature time, time-restricted lines cannot vouch.
    let (payload, sig) = split_signed_commit(&signed);
    let sig = sig.unwrap();
    let restricted = AllowedSigners::parse(&format!("a@x valid-after=\"20200101\" {ka}")).unwrap();
    assert!(matches!(
        verify_ssh(&payload, &sig, &restricted, None),
        SignatureStatus::UnknownSigner { .. }
    ));
    let plain = AllowedSigners::parse(&format!("a@x {ka}")).unwrap();
    assert!(verify_ssh(&payload, &sig, &plain, None).is_good());
    // Absent and foreign armor.
    assert_eq!(
        verify_ssh(&payload, "", &plain, None),
        SignatureStatus::Unsigned
    );
    assert_eq!(status_letter(&SignatureStatus::Unsigned), 'N');
    for (armor, kind) in [
        (
            "-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n",
            "openpgp",
        ),
        (
            "-----BEGIN SIGNED MESSAGE-----\nabc\n-----END SIGNED MESSAGE-----\n",
            "x509",
        ),
        ("hello\n", "unrecognised"),
    ] {
        match verify_ssh(&payload, armor, &plain, None) {
            SignatureStatus::Unverifiable { reason } => {
                assert!(
                    reason.contains(kind)
                        && reason.contains("only ssh signatures are verified natively"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
    // Garbage inside SSH armor is bad, as in git.
    let garbage = "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n";
    assert_eq!(
        status_letter(&verify_ssh(&payload, garbage, &plain, None)),
        'B'
    );
    // Re-wrapped armor still verifies (ssh-keygen ignores line layout).
    let rewrapped: String = {
        let body: String = sig.lines().filter(|l| !l.starts_with("-----")).collect();
        let lines: Vec<String> = body
            .as_bytes()
            .chunks(64)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect();
        format!(
            "-----BEGIN SSH SIGNATURE-----\n{}\n-----END SSH SIGNATURE-----\n",
            lines.join("\n")
        )
    };
    assert!(verify_ssh(&payload, &rewrapped, &plain, None).is_good());
}

#[test]
fn encrypted_key_is_refused_without_prompting() {
    let sb = Sandbox::new();
    let enc = sb.path("enc");
    sb.ok(
        &[
            "ssh-keygen",
            "-q",
            "-t",
            "ed25519",
            "-N",
            "secret",
            "-f",
            enc.to_str().unwrap(),
        ],
        None,
        b"",
    );
    let err = Signer::from_config(&sb.config(Format::Ssh, enc.to_str())).unwrap_err();
    assert!(matches!(err, SigningError::EncryptedKey { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains(&enc.display().to_string())
            && msg.contains("never prompts")
            && msg.contains("ssh-agent"),
        "{msg}"
    );

    let legacy = sb.path("legacy");
    sb.ok(
        &[
            "ssh-keygen",
            "-q",
            "-t",
            "ecdsa",
            "-m",
            "PEM",
            "-N",
            "secret",
            "-f",
            legacy.to_str().unwrap(),
        ],
        None,
        b"",
    );
    let err = Signer::from_config(&sb.config(Format::Ssh, legacy.to_str())).unwrap_err();
    assert!(matches!(err, SigningError::EncryptedKey { .. }), "{err}");

    // Its .pub without an agent goes to ssh-keygen, which must fail, not wait.
    let public = format!("{}.pub", enc.display());
    let mut config = sb.config(Format::Ssh, Some(&public));
    config.timeout = Duration::from_secs(20);
    let signer = Signer::from_config(&config).unwrap();
    assert!(!signer.is_native());
    let err = signer.sign(b"payload").unwrap_err();
    assert!(matches!(err, SigningError::ProgramFailed { .. }), "{err}");
}

#[test]
fn configuration_errors_name_what_to_fix() {
    let sb = Sandbox::new();
    let err = Signer::from_config(&sb.config(Format::Ssh, None)).unwrap_err();
    assert!(err.to_string().contains("user.signingkey"), "{err}");
    let err = Signer::from_config(&sb.config(Format::Ssh, Some(""))).unwrap_err();
    assert!(matches!(err, SigningError::MissingSshKey), "{err}");
    let err =
        Signer::from_config(&sb.config(Format::Ssh, Some("key::ssh-ed25519 !!"))).unwrap_err();
    assert!(
        matches!(err, SigningError::InvalidKeyLiteral { .. }),
        "{err}"
    );
    let err = Signer::from_config(&sb.config(Format::Ssh, Some("missing/key"))).unwrap_err();
    assert!(
        err.to_string()
            .contains(&sb.path("missing/key").display().to_string()),
        "{err}"
    );
    let mut no_home = sb.config(Format::Ssh, Some("~/.ssh/id"));
    no_home.home = None;
    assert!(matches!(
        Signer::from_config(&no_home).unwrap_err(),
        SigningError::NoHome { .. }
    ));
    let err = Signer::from_config(&sb.config(Format::Ssh, Some("~bob/.ssh/id"))).unwrap_err();
    assert!(matches!(err, SigningError::OtherUserHome { .. }), "{err}");
    // Not a key at all: left to ssh-keygen, which fails cleanly.
    fs::write(sb.path("junk"), "junk\n").unwrap();
    let signer = Signer::from_config(&sb.config(Format::Ssh, Some("junk"))).unwrap();
    assert!(matches!(
        signer.sign(b"x").unwrap_err(),
        SigningError::ProgramFailed { .. }
    ));
}

/// Kills the ssh-agent we started when the test ends, however it ends.
struct Agent(std::process::Child);

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn agent_held_keys_sign_through_ssh_keygen() {
    let sb = Sandbox::new();
    let sock = sb.path("agent.sock");
    let agent = std::process::Command::new("ssh-agent")
        .args(["-D", "-a", sock.to_str().unwrap()])
        .env_clear()
        .env("PATH", PATH)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("ssh-agent must be installed for this test");
    let agent = Agent(agent);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sock.exists() {
        assert!(
            Instant::now() < deadline,
            "ssh-agent did not create its socket"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sock_str = sock.to_str().unwrap();
    let key = seeded_key(20);
    let key_path = sb.path("agent_key");
    write_key_pair(&key, &key_path, "agent").unwrap();
    let env = sb.with_env(&[("SSH_AUTH_SOCK", sock_str)]);
    let added = sb.run_env(
        &["ssh-add", "-q", key_path.to_str().unwrap()],
        None,
        b"",
        env.clone(),
    );
    assert!(
        added.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let native = Signer::from_config(&sb.config(Format::Ssh, key_path.to_str())).unwrap();
    let payload = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nagent\n";
    let expected = native.sign(payload).unwrap();
    fs::remove_file(&key_path).unwrap(); // from here on only the agent holds it

    let allowed =
        AllowedSigners::parse(&allowed_signers_line("agent@x", key.public_key()).unwrap()).unwrap();
    let public_path = format!("{}.pub", key_path.display());
    let literal = format!("key::{}", key_line(&key));
    let bare = key_line(&key);
    for spec in [literal.as_str(), bare.as_str(), public_path.as_str()] {
        let mut config = sb.config(Format::Ssh, Some(spec));
        config.child_env = env.clone();
        let signer = Signer::from_config(&config).unwrap();
        assert!(!signer.is_native());
        assert!(
            signer.description().contains("ssh-keygen"),
            "{}",
            signer.description()
        );
        let sig = signer
            .sign(payload)
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(
            sig, expected,
            "ed25519 is deterministic: agent and native agree"
        );
        assert!(verify_ssh(payload, &sig, &allowed, None).is_good());
    }
    drop(agent);
    let mut config = sb.config(Format::Ssh, Some(&literal));
    config.child_env = env;
    let err = Signer::from_config(&config)
        .unwrap()
        .sign(payload)
        .unwrap_err();
    assert!(matches!(err, SigningError::ProgramFailed { .. }), "{err}");
}

#[test]
fn ssh_program_gets_gits_arguments_and_no_askpass() {
    let sb = Sandbox::new();
    let prog = sb.path("fake-ssh-keygen");
    let log = sb.path("ssh-args");
    write_script(
        &prog,
        &format!(
            "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > {log}\necho \"askpass=$SSH_ASKPASS_REQUIRE\" >> {log}\n\
             for last; do :; done\nprintf -- '-----BEGIN SSH SIGNATURE-----\\r\\nAAAA\\r\\n-----END SSH SIGNATURE-----' > \"$last.sig\"",
            log = log.display()
        ),
    );
    let key = seeded_key(30);
    let mut config = sb.config(Format::Ssh, Some(&format!("key::{}", key_line(&key))));
    config.gpg_ssh_program = Some(prog.to_str().unwrap().to_string());
    config
        .child_env
        .push(("SSH_ASKPASS_REQUIRE".into(), "force".into()));
    let sig = Signer::from_config(&config)
        .unwrap()
        .sign(b"payload")
        .unwrap();
    assert_eq!(
        sig,
        "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n"
    );
    let args = fs::read_to_string(&log).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(&args[..5], &["-Y", "sign", "-n", "git", "-f"]);
    assert_eq!(args[6], "-U");
    assert_eq!(args[8], "askpass=never");
    assert_eq!(args.len(), 9, "{args:?}");

    write_script(&prog, "sleep 30");
    config.timeout = Duration::from_millis(300);
    let err = Signer::from_config(&config)
        .unwrap()
        .sign(b"payload")
        .unwrap_err();
    assert!(matches!(err, SigningError::TimedOut { .. }), "{err}");
    assert!(err.to_string().contains("never prompts"), "{err}");
}

#[test]
fn gpg_programs_are_run_like_git_does() {
    let sb = Sandbox::new();
    let prog = sb.path("fake-gpg");
    let log = sb.path("gpg-args");
    let stdin_copy = sb.path("gpg-stdin");
    let status = "[GNUPG:] SIG_CREATED D 22 8 00 1700000000 FPR";
    write_script(
        &prog,
        &format!(
            "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > {log}\ncat > {stdin}\necho '{status}' >&2\n\
             printf -- '-----BEGIN PGP SIGNATURE-----\\r\\n\\r\\nabc\\r\\n-----END PGP SIGNATURE-----'",
            log = log.display(),
            stdin = stdin_copy.display()
        ),
    );
    let mut config = sb.config(Format::OpenPgp, None);
    config.gpg_program = Some(prog.to_str().unwrap().to_string());
    let sig = Signer::from_config(&config)
        .unwrap()
        .sign(b"the payload")
        .unwrap();
    assert_eq!(
        sig,
        "-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n"
    );
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "--status-fd=2\n-bsau\nLore Bot <lore@example.com>\n"
    );
    assert_eq!(fs::read(&stdin_copy).unwrap(), b"the payload");

    let mut x509 = sb.config(Format::X509, Some("0xABCDEF"));
    x509.gpg_x509_program = Some(prog.to_str().unwrap().to_string());
    let signer = Signer::from_config(&x509).unwrap();
    assert!(signer.description().contains("0xABCDEF"));
    signer.sign(b"x").unwrap();
    assert_eq!(
        fs::read_to_string(&log).unwrap(),
        "--status-fd=2\n-bsau\n0xABCDEF\n"
    );

    let failing: &[(&str, &str)] = &[
        ("cat >/dev/null; echo '-----BEGIN PGP SIGNATURE-----'", "SIG_CREATED"),
        ("cat >/dev/null; echo 'x [GNUPG:] SIG_CREATED D' >&2; echo '-----BEGIN PGP SIGNATURE-----'", "SIG_CREATED"),
        ("cat >/dev/null; echo '[GNUPG:] SIG_CREATED D' >&2; echo 'no passphrase' >&2; exit 2", "exit code 2"),
        ("cat >/dev/null; echo '[GNUPG:] SIG_CREATED D' >&2", "empty"),
    ];
    for (body, want) in failing {
        write_script(&prog, body);
        let err = Signer::from_config(&config)
            .unwrap()
            .sign(b"x")
            .unwrap_err();
        assert!(err.to_string().contains(want), "{body}: {err}");
    }

    write_script(&prog, "sleep 30");
    config.timeout = Duration::from_millis(300);
    let err = Signer::from_config(&config)
        .unwrap()
        .sign(b"x")
        .unwrap_err();
    assert!(matches!(err, SigningError::TimedOut { .. }), "{err}");
    assert!(err.to_string().contains("git-lore never prompts"), "{err}");

    config.gpg_program = Some("/nonexistent/gpg".into());
    let err = Signer::from_config(&config)
        .unwrap()
        .sign(b"x")
        .unwrap_err();
    assert!(
        matches!(err, SigningError::Spawn { .. }) && err.to_string().contains("/nonexistent/gpg"),
        "{err}"
    );
}

/// Stops the gpg-agent of a test GNUPGHOME when the test ends.
struct GpgHome<'a>(&'a Sandbox, Vec<(String, String)>);

impl Drop for GpgHome<'_> {
    fn drop(&mut self) {
        let _ = self
            .0
            .run_env(&["gpgconf", "--kill", "all"], None, b"", self.1.clone());
    }
}

#[test]
fn openpgp_signs_with_real_gpg() {
    let sb = Sandbox::new();
    let gnupg = sb.path("gnupg");
    fs::create_dir(&gnupg).unwrap();
    fs::set_permissions(&gnupg, fs::Permissions::from_mode(0o700)).unwrap();
    let env = sb.with_env(&[("GNUPGHOME", gnupg.to_str().unwrap())]);
    let home = GpgHome(&sb, env.clone());
    let made = sb.run_env(
        &[
            "gpg",
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            "Lore Bot <lore@example.com>",
            "ed25519",
            "sign",
            "never",
        ],
        None,
        b"",
        env.clone(),
    );
    assert!(made.success(), "{}", String::from_utf8_lossy(&made.stderr));

    let (repo, raw) = sb.repo_with_commit("repo");
    let mut config = sb.config(Format::OpenPgp, None);
    config.child_env = env.clone();
    let sig = Signer::from_config(&config).unwrap().sign(&raw).unwrap();
    assert!(sig.starts_with("-----BEGIN PGP SIGNATURE-----\n"), "{sig}");
    assert!(sig.ends_with("-----END PGP SIGNATURE-----\n") && !sig.contains('\r'));
    let signed = insert_gpgsig(&raw, &sig);
    let id = sb.write_object(&repo, &signed);
    let verified = sb.run_env(
        &["git", "verify-commit", &id],
        Some(&repo),
        b"",
        env.clone(),
    );
    let stderr = String::from_utf8_lossy(&verified.stderr);
    assert!(verified.success(), "{stderr}");
    assert!(
        stderr.contains("Good signature from \"Lore Bot <lore@example.com>\""),
        "{stderr}"
    );
    assert_eq!(split_signed_commit(&signed), (raw.clone(), Some(sig)));

    // Not checked natively: E, which is also what git says without the key.
    let ours = verify_commit(&signed, &AllowedSigners::default());
    assert_eq!(status_letter(&ours), 'E', "{ours:?}");
    let empty = sb.path("gnupg-empty");
    fs::create_dir(&empty).unwrap();
    fs::set_permissions(&empty, fs::Permissions::from_mode(0o700)).unwrap();
    let other_env = sb.with_env(&[("GNUPGHOME", empty.to_str().unwrap())]);
    let _other = GpgHome(&sb, other_env.clone());
    let letter = sb.run_env(
        &["git", "log", "-1", "--format=%G?", &id],
        Some(&repo),
        b"",
        other_env,
    );
    assert_eq!(String::from_utf8_lossy(&letter.stdout).trim(), "E");

    config.signing_key = Some("nobody@example.com".into());
    let err = Signer::from_config(&config)
        .unwrap()
        .sign(&raw)
        .unwrap_err();
    assert!(matches!(err, SigningError::ProgramFailed { .. }), "{err}");
    drop(home);
}
