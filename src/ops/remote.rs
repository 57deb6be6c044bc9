//! A tier's remote: where `pool/org` or `pool/public` is shared, and the
//! keys its first commit must be signed by (pins, as ssh pins host keys).
//!
//! A remote is an ordinary git remote named after its tier (`org`,
//! `public`) whose refspecs carry only that tier's pool branch: fetched
//! into `refs/lore/incoming/<tier>` (a quarantine `sync` verifies before
//! anything builds on it), pushed to the same branch name. The pins live in
//! the git dir, `pins/<tier>`, in allowed-signers format: this machine's
//! decision about whom to trust, never part of a pool (written here, read
//! by the audit's policy, [`super::audit::pins`]). `refs/lore/remotes/<tier>`
//! ([`verified_ref`]) is the remote's last tip whose history verified.

use std::path::Path;

use super::audit::{pins, pins_path};
use super::{Lore, LoreError};
use crate::model::Source;
use crate::signing::{self, AllowedSigners};
use crate::store::{Branch, Store};

/// Where the last verified tip of a tier's remote is kept: rollback
/// protection for `sync` and `publish`.
pub fn verified_ref(tier: Source) -> String {
    format!("refs/lore/remotes/{}", tier.as_str())
}

/// The quarantine ref a tier's pool is fetched into.
pub fn incoming_ref(tier: Source) -> String {
    format!("refs/lore/incoming/{}", tier.as_str())
}

/// The tiers that have remotes: `org` and `public` (the ledger and
/// `pool/local` never leave the machine).
pub fn shared(tier: Source) -> Result<Source, LoreError> {
    match tier {
        Source::Org | Source::Public => Ok(tier),
        Source::Local => Err(LoreError::Input {
            what: "tier local".into(),
            why: "pool/local never leaves this machine; remotes are for org and public".into(),
        }),
    }
}

/// A configured remote.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Remote {
    pub tier: Source,
    pub url: String,
    /// `(principal, SHA256:fingerprint)` of each pinned root signer.
    pub pins: Vec<(String, String)>,
}

/// The first public key found in `text`: a `.pub` file, an allowed-signers
/// line, or what `git lore key` prints; as `key-type base64`.
pub fn find_public_key(text: &str) -> Option<String> {
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        for i in 0..fields.len() {
            if let Some(k) = signing::public_key_line(&fields[i..].join(" ")) {
                return Some(k);
            }
        }
    }
    None
}

/// Reads a public key from `path` (`-`: the text given as `stdin`).
pub fn read_public_key(path: &Path, stdin: Option<&str>) -> Result<String, LoreError> {
    let text = match stdin {
        Some(t) if path == Path::new("-") => t.to_owned(),
        _ => {
            let bytes = super::inputs::read_bounded(path)
                .map_err(|e| LoreError::invalid(path.display().to_string(), e))?;
            String::from_utf8_lossy(&bytes).into_owned()
        }
    };
    find_public_key(&text).ok_or_else(|| LoreError::Input {
        what: path.display().to_string(),
        why: "no ssh public key in it (expected a line like `ssh-ed25519 AAAA… comment`)".into(),
    })
}

/// The principal to list a key under when its file names none: the
/// comment when it looks like an e-mail, else `root@<tier>`.
fn principal_for(text_comment: Option<&str>, tier: Source) -> String {
    match text_comment {
        Some(c) if c.contains('@') && !c.contains([' ', '"', ',']) => c.to_owned(),
        _ => format!("root@{}", tier.as_str()),
    }
}

/// The allowed-signers line that pins `key` for `tier`.
pub(crate) fn pin_line(tier: Source, key: &str, comment: Option<&str>) -> String {
    format!(
        "{} namespaces=\"git\" {key}\n",
        principal_for(comment, tier)
    )
}

/// Adds (or replaces) pins for `tier`: `keys` are `(key-type base64,
/// comment)`.
pub(crate) fn write_pins(
    store: &Store,
    tier: Source,
    keys: &[(String, Option<String>)],
    replace: bool,
) -> Result<(), LoreError> {
    let path = pins_path(tier);
    let mut text = if replace {
        String::new()
    } else {
        std::fs::read_to_string(store.git_dir().join(&path)).unwrap_or_default()
    };
    for (key, comment) in keys {
        let line = pin_line(tier, key, comment.as_deref());
        if !text.contains(key.as_str()) {
            text.push_str(&line);
        }
    }
    store.write_private_file(&path, text.as_bytes(), 0o644, false)?;
    Ok(())
}

/// `remote add <tier> <url> [--signer KEY]…`: configures the tier's remote
/// and pins its root signers (replacing earlier pins when keys are given).
/// A local path is stored absolute, so the remote works from any directory.
pub fn add(
    lore: &mut Lore,
    tier: Source,
    url: &str,
    signers: &[(String, Option<String>)],
) -> Result<Remote, LoreError> {
    let tier = shared(tier)?;
    if url.trim().is_empty() || url.chars().any(char::is_control) {
        return Err(LoreError::Input {
            what: format!("url {url:?}"),
            why: "a remote URL is one line of text".into(),
        });
    }
    let url = if !url.contains("://") && !url.contains(':') && Path::new(url).exists() {
        std::path::absolute(url)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| url.to_owned())
    } else {
        url.to_owned()
    };
    let branch = Branch::Pool(tier).ref_name();
    if lore
        .store
        .remote_url(tier.as_str())
        .is_some_and(|old| old != url)
    {
        // What was fetched and verified from the old remote says nothing
        // about the new one: its first sync starts afresh, not as a
        // rollback of the old remote's tip.
        lore.store.delete_ref(&incoming_ref(tier))?;
        lore.store.delete_ref(&verified_ref(tier))?;
    }
    lore.store
        .set_remote(tier.as_str(), &url, &branch, &incoming_ref(tier))?;
    if !signers.is_empty() {
        write_pins(&lore.store, tier, signers, true)?;
    }
    Ok(list(lore)?
        .into_iter()
        .find(|r| r.tier == tier)
        .expect("just configured"))
}

/// Every configured remote, org first.
pub fn list(lore: &Lore) -> Result<Vec<Remote>, LoreError> {
    let pins = pins(&lore.store)?;
    let mut out = Vec::new();
    for tier in [Source::Org, Source::Public] {
        if let Some(url) = lore.store.remote_url(tier.as_str()) {
            out.push(Remote {
                tier,
                url,
                pins: pins
                    .get(&tier)
                    .map(AllowedSigners::keys)
                    .unwrap_or_default(),
            });
        }
    }
    Ok(out)
}

/// `remote remove <tier>`: forgets the remote, its pins, and what was
/// fetched from it; whether there was one. The pool branch stays.
pub fn remove(lore: &mut Lore, tier: Source) -> Result<bool, LoreError> {
    let tier = shared(tier)?;
    let had = lore.store.remove_remote(tier.as_str())?;
    let pins = lore.store.git_dir().join(pins_path(tier));
    if pins.exists() {
        std::fs::remove_file(&pins).map_err(|source| LoreError::File {
            what: "cannot remove",
            path: pins,
            source,
        })?;
    }
    lore.store.delete_ref(&incoming_ref(tier))?;
    lore.store.delete_ref(&verified_ref(tier))?;
    Ok(had)
}

/// A URL as messages and reports show it: without a password or token.
pub use crate::store::remote::display_url;

/// The repository `gh --repo` names for a remote at `url`: `OWNER/REPO` on
/// github.com, `HOST/OWNER/REPO` on another host, from an https, ssh or
/// scp-like (`git@host:owner/repo.git`) URL whose path is exactly an owner
/// and a repository. `None` for anything else (a path, `file://`, a deeper
/// path): `gh` then goes by the directory it runs in.
pub fn gh_repo(url: &str) -> Option<String> {
    let (host, path) = match url.split_once("://") {
        Some(("https" | "http" | "ssh", rest)) => rest.split_once('/')?,
        Some(_) => return None,
        // scp-like: `[user@]host:path`, with no slash before the colon.
        None => url
            .split_once(':')
            .filter(|(host, _)| !host.is_empty() && !host.contains('/'))?,
    };
    let host = host.rsplit('@').next()?;
    let host = host.split(':').next()?;
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let (owner, repo) = path.split_once('/')?;
    let ok = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    if !ok(host) || !ok(owner) || !ok(repo) || repo.contains('/') {
        return None;
    }
    Some(if host.eq_ignore_ascii_case("github.com") {
        format!("{owner}/{repo}")
    } else {
        format!("{host}/{owner}/{repo}")
    })
}

/// The owner a public-key text names: the first word with an `@` that is
/// neither the key type nor its data (a `.pub` file's comment, the
/// principal of a line `git lore key` printed).
pub fn principal_in(text: &str) -> Option<String> {
    let key = find_public_key(text)?;
    let line = text.lines().find(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        (0..words.len()).any(|i| {
            signing::public_key_line(&words[i..].join(" ")).as_deref() == Some(key.as_str())
        })
    })?;
    line.split_whitespace()
        .filter(|w| !key.split(' ').any(|k| k == *w))
        .find(|w| w.contains('@') && !w.contains(['"', ',']) && !w.starts_with(['#', '!']))
        .map(str::to_owned)
}

/// The URL of `tier`'s remote, or a refusal that says how to add one.
pub(crate) fn url_of(lore: &Lore, tier: Source) -> Result<String, LoreError> {
    lore.store
        .remote_url(tier.as_str())
        .ok_or_else(|| LoreError::Input {
            what: format!("pool/{tier}"),
            why: format!(
            "no remote for {tier}: add one with `git lore remote add {tier} URL --signer OWNER.pub`"
        ),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gh_repo_names_owner_and_repository_of_forge_urls_only() {
        for (url, repo) in [
            ("https://github.com/acme/lessons.git", Some("acme/lessons")),
            (
                "https://ana:tok@github.com/acme/lessons",
                Some("acme/lessons"),
            ),
            ("git@github.com:acme/lessons.git", Some("acme/lessons")),
            (
                "ssh://git@github.com/acme/lessons.git",
                Some("acme/lessons"),
            ),
            (
                "https://ghe.example.com/acme/lessons.git",
                Some("ghe.example.com/acme/lessons"),
            ),
            (
                "ssh://git@ghe.example.com:2222/acme/lessons.git",
                Some("ghe.example.com/acme/lessons"),
            ),
            ("/srv/pools/public.git", None),
            ("file:///srv/pools/public.git", None),
            ("git://127.0.0.1:9418/public.git", None),
            ("https://gitlab.example.com/group/sub/lessons.git", None),
            ("https://github.com/acme", None),
            ("https://github.com/acme/le$sons", None),
        ] {
            assert_eq!(gh_repo(url).as_deref(), repo, "{url}");
        }
    }

    #[test]
    fn urls_are_shown_without_secrets() {
        assert_eq!(
            display_url("https://ana:ghp_secret@github.com/org/pool.git"),
            "https://ana@github.com/org/pool.git"
        );
        assert_eq!(
            display_url("git://127.0.0.1:9418/pool.git"),
            "git://127.0.0.1:9418/pool.git"
        );
        assert_eq!(display_url("/srv/pool.git"), "/srv/pool.git");
        assert_eq!(
            display_url("git@github.com:org/pool.git"),
            "git@github.com:org/pool.git"
        );
    }

    #[test]
    fn the_owner_is_found_in_a_pub_file_and_in_a_key_line() {
        let k = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK4Wb7uhfzI4t7dZTpSziC82tDu+cL7qiBRKhD4dzHJr";
        assert_eq!(
            principal_in(&format!("{k} ana@laptop\n")).as_deref(),
            Some("ana@laptop")
        );
        assert_eq!(
            principal_in(&format!("bo@example.org {k}\n")).as_deref(),
            Some("bo@example.org")
        );
        assert_eq!(principal_in(&format!("{k}\n")), None);
    }

    #[test]
    fn a_public_key_is_found_in_any_of_its_usual_forms() {
        let k = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK4Wb7uhfzI4t7dZTpSziC82tDu+cL7qiBRKhD4dzHJr";
        assert_eq!(
            find_public_key(&format!("{k} ana@laptop\n")).as_deref(),
            Some(k)
        );
        assert_eq!(find_public_key(&format!("ana@x {k}\n")).as_deref(), Some(k));
        assert_eq!(
            find_public_key(&format!("# comment\nana@x namespaces=\"git\" {k}\n")).as_deref(),
            Some(k)
        );
        assert_eq!(find_public_key("ssh-ed25519 not-base64"), None);
    }
}
