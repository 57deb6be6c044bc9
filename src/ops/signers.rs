//! Who may sign a pool: this repository's key as a teammate adds it (`git
//! lore key`), and the changes to a pool's `.lore/allowed_signers` (`git
//! lore trust add|list|remove|ack|threshold`). Each change is one signed
//! `config` commit on that pool; above a threshold of 1 it is a proposal
//! that other signers acknowledge ([`crate::review::signers`]).
//!
//! It also keeps the repository's own allowed-signers file able to check
//! every pool commit with `git verify-commit`: the signers of every pool
//! and the pinned root signers are copied into a marked section of it. The
//! ledger's own trust never reads that section.

use std::collections::BTreeSet;

use super::{Lore, LoreError};
use crate::event::signers::{self as policy, State};
use crate::event::{ConfigTopic, Event};
use crate::model::Source;
use crate::signing::{self, AllowedSigners, Signer};
use crate::store::{Branch, Change, CommitSpec};

/// The lines that open and close the copied section of the repository's
/// allowed-signers file.
pub const SECTION_BEGIN: &str = "# git-lore:begin pool signers (copied by git-lore for git verify-commit; the ledger does not trust them)";
pub const SECTION_END: &str = "# git-lore:end pool signers";

/// The text of an allowed-signers file without the copied section.
pub fn own_part(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let l = line.trim_end();
        if l == SECTION_BEGIN {
            inside = true;
        } else if l == SECTION_END && inside {
            inside = false;
        } else if !inside {
            out.push_str(line);
        }
    }
    out
}

/// This repository's public key, as a teammate lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Key {
    pub principal: String,
    pub key_type: String,
    pub key: String,
    pub fingerprint: String,
}

impl Key {
    /// `<principal> <key-type> <key>`.
    pub fn line(&self) -> String {
        format!("{} {} {}", self.principal, self.key_type, self.key)
    }
}

/// `git lore key`: the public half of the key this repository signs with.
pub fn key(lore: &Lore) -> Result<Key, LoreError> {
    let signer = Signer::from_config(&super::signing_config(&lore.store, &lore.env)?)?;
    let line = signer.public_key_line().ok_or_else(|| LoreError::Input {
        what: "the signing key".into(),
        why: format!(
            "{} has no ssh public key git-lore can read (put the .pub file next to the key, or set user.signingkey to `key::ssh-…`)",
            signer.description()
        ),
    })?;
    let mut parts = line.split_whitespace();
    let (key_type, key) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let fingerprint = AllowedSigners::parse(&format!("x {line}"))
        .ok()
        .and_then(|a| a.fingerprints().into_iter().next())
        .unwrap_or_default();
    Ok(Key {
        principal: lore.identity().email,
        key_type: key_type.into(),
        key: key.into(),
        fingerprint,
    })
}

/// A pool's signer files at its tip.
pub fn state(lore: &Lore, tier: Source) -> Result<State, LoreError> {
    let branch = Branch::Pool(tier);
    let mut st = State::default();
    if let Some(tip) = lore.store.tip(branch)? {
        let text = |p: &str| -> Result<Option<String>, LoreError> {
            Ok(lore
                .store
                .read_at(tip, p)?
                .map(|b| String::from_utf8_lossy(&b).into_owned()))
        };
        st = State {
            allowed: text(policy::ALLOWED)?,
            threshold: text(policy::THRESHOLD)?,
            proposed: text(policy::PROPOSED)?,
            proposed_threshold: text(policy::PROPOSED_THRESHOLD)?,
            acks: text(policy::ACKS)?,
        };
    }
    Ok(st)
}

/// One signer as `trust list` shows it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SignerEntry {
    pub principal: String,
    pub fingerprint: String,
}

/// A pool's signers, threshold and pending proposal.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Listing {
    pub tier: Source,
    pub exists: bool,
    pub signers: Vec<SignerEntry>,
    pub threshold: usize,
    /// The proposal waiting for acknowledgements: its signers, threshold,
    /// and who acknowledged it.
    pub proposal: Option<Proposal>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Proposal {
    pub signers: Vec<SignerEntry>,
    pub threshold: Option<usize>,
    pub acknowledged_by: Vec<String>,
}

fn signers_of(text: Option<&str>) -> Vec<SignerEntry> {
    text.and_then(|t| AllowedSigners::parse(t).ok())
        .map(|a| {
            a.keys()
                .into_iter()
                .map(|(principal, fingerprint)| SignerEntry {
                    principal,
                    fingerprint,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `trust list <tier>`.
pub fn list(lore: &Lore, tier: Source) -> Result<Listing, LoreError> {
    let st = state(lore, tier)?;
    let exists = lore.store.tip(Branch::Pool(tier))?.is_some();
    let signers = if exists {
        signers_of(st.allowed.as_deref())
    } else {
        // A pool that does not exist yet starts with the repository's own.
        signers_of(Some(&initial_signers(lore)?))
    };
    Ok(Listing {
        tier,
        exists,
        threshold: st.threshold(tier),
        proposal: st.proposed.as_ref().map(|p| Proposal {
            signers: signers_of(Some(p)),
            threshold: st
                .proposed_threshold
                .as_deref()
                .and_then(policy::parse_threshold),
            acknowledged_by: st.ack_list(),
        }),
        signers,
    })
}

/// The allowed signers a new pool starts with: the repository's own.
pub(crate) fn initial_signers(lore: &Lore) -> Result<String, LoreError> {
    let own = lore.ledger_allowed_signers()?;
    if own.is_empty() {
        return Err(LoreError::NoPoolSigners);
    }
    let text = match lore.store.config_string("gpg.ssh.allowedSignersFile") {
        None => String::new(),
        Some(p) => {
            let path = super::expand_path(&p, lore.env.home.as_deref(), lore.store.git_dir());
            std::fs::read_to_string(&path).map_err(|source| LoreError::File {
                what: "cannot read",
                path,
                source,
            })?
        }
    };
    Ok(own_part(&text))
}

/// What a trust change did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Changed {
    /// The change is in force.
    InForce,
    /// The change waits for `needed` more acknowledgements.
    Proposed { needed: usize },
    /// Nothing to do: the list already is that way.
    Unchanged,
}

/// A change of a pool's list and threshold: from the text in force (and
/// the threshold file), the new text and threshold.
type Edit<'a> = dyn Fn(&str, Option<&str>) -> Result<(String, Option<String>), LoreError> + 'a;

/// Applies `edit` to the list in force of pool `tier`: in force at once
/// when the pool's threshold is 1, else as a proposal this key
/// acknowledges. `what` is the commit subject's description.
fn change(
    lore: &mut Lore,
    tier: Source,
    what: &str,
    edit: &Edit<'_>,
) -> Result<Changed, LoreError> {
    let branch = Branch::Pool(tier);
    let me = key(lore)?.fingerprint;
    let initial = initial_signers(lore)?;
    let mut outcome = Changed::Unchanged;
    lore.transact(branch, |tx| {
        let read = |p: &str| -> Result<Option<String>, LoreError> {
            Ok(tx.read(p)?.map(|b| String::from_utf8_lossy(&b).into_owned()))
        };
        let root = tx.base().is_none();
        let before = State {
            allowed: if root { Some(initial.clone()) } else { read(policy::ALLOWED)? },
            threshold: read(policy::THRESHOLD)?,
            proposed: read(policy::PROPOSED)?,
            proposed_threshold: read(policy::PROPOSED_THRESHOLD)?,
            acks: read(policy::ACKS)?,
        };
        let current = before.allowed.clone().unwrap_or_default();
        let (list, threshold) = edit(&current, before.threshold.as_deref())?;
        if list == current && threshold == before.threshold && !root {
            outcome = Changed::Unchanged;
            return Ok(());
        }
        let needed = if root { 1 } else { before.threshold(tier) };
        let put = |path: &str, text: &str| Change::Put {
            path: path.into(),
            bytes: text.as_bytes().to_vec(),
        };
        if needed <= 1 {
            let mut changes = vec![put(policy::ALLOWED, &list)];
            if let Some(t) = &threshold {
                changes.push(put(policy::THRESHOLD, t));
            }
            tx.commit(CommitSpec::new(
                &format!("config: {what} on pool/{tier}"),
                None,
                Event::Config {
                    topic: ConfigTopic::Signers,
                },
                changes,
            )?)?;
            outcome = Changed::InForce;
        } else {
            if !before.signers().fingerprints().contains(&me) {
                return Err(LoreError::Input {
                    what: format!("pool/{tier}"),
                    why: format!(
                        "only a signer of pool/{tier} may propose a change of its signers, and this repository's key {me} is not one"
                    ),
                });
            }
            let mut changes = vec![
                put(policy::PROPOSED, &list),
                put(policy::ACKS, &format!("{me}\n")),
            ];
            match &threshold {
                Some(t) => changes.push(put(policy::PROPOSED_THRESHOLD, t)),
                None => changes.push(Change::Delete {
                    path: policy::PROPOSED_THRESHOLD.into(),
                }),
            }
            tx.commit(CommitSpec::new(
                &format!("config: propose {what} on pool/{tier}"),
                Some(&format!(
                    "In force once {needed} signers of pool/{tier} acknowledge it (`git lore trust ack {tier}`)."
                )),
                Event::Config {
                    topic: ConfigTopic::SignersPropose,
                },
                changes,
            )?)?;
            outcome = Changed::Proposed { needed: needed - 1 };
        }
        Ok(())
    })?;
    refresh_verify_file(lore)?;
    Ok(outcome)
}

/// `trust add <tier> <key> --principal P`.
pub fn add(
    lore: &mut Lore,
    tier: Source,
    key_line: &str,
    principal: &str,
) -> Result<Changed, LoreError> {
    // The same rules as an allowed-signers line git-lore writes itself.
    let pubkey = ssh_key::PublicKey::from_openssh(key_line).ok();
    let line = match &pubkey {
        Some(k) => signing::allowed_signers_line(principal, k)?,
        None => signing::allowed_signers_line(principal, &placeholder())
            .map(|_| format!("{principal} namespaces=\"git\" {key_line}"))?,
    };
    let fp = AllowedSigners::parse(&line)
        .map_err(|e| LoreError::Input {
            what: format!("key for {principal}"),
            why: e.to_string(),
        })?
        .fingerprints()
        .into_iter()
        .next()
        .unwrap_or_default();
    change(
        lore,
        tier,
        &format!("trust {principal} ({fp})"),
        &|current, threshold| {
            let listed = AllowedSigners::parse(current)
                .map(|a| a.fingerprints().contains(&fp))
                .unwrap_or(false);
            if listed {
                return Ok((current.to_owned(), threshold.map(str::to_owned)));
            }
            let mut text = current.to_owned();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
            text.push('\n');
            Ok((text, threshold.map(str::to_owned)))
        },
    )
}

/// A key for checking a principal alone (the line's key is checked by
/// parsing the line).
fn placeholder() -> ssh_key::PublicKey {
    ssh_key::PublicKey::from_openssh(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK4Wb7uhfzI4t7dZTpSziC82tDu+cL7qiBRKhD4dzHJr",
    )
    .expect("a valid key")
}

/// `trust remove <tier> <principal|fingerprint>`.
pub fn remove(lore: &mut Lore, tier: Source, who: &str) -> Result<Changed, LoreError> {
    let st = state(lore, tier)?;
    let listed = signers_of(st.allowed.as_deref());
    let matching: Vec<&SignerEntry> = listed
        .iter()
        .filter(|s| s.fingerprint == who || s.principal.split(',').any(|p| p == who))
        .collect();
    if matching.is_empty() {
        return Err(LoreError::Input {
            what: who.into(),
            why: format!("no signer of pool/{tier} has that principal or fingerprint (`git lore trust list {tier}`)"),
        });
    }
    let gone: BTreeSet<String> = matching.iter().map(|s| s.fingerprint.clone()).collect();
    if gone.len()
        == listed
            .iter()
            .map(|s| &s.fingerprint)
            .collect::<BTreeSet<_>>()
            .len()
    {
        return Err(LoreError::Input {
            what: who.into(),
            why: format!("that would leave pool/{tier} with nobody allowed to sign it"),
        });
    }
    change(
        lore,
        tier,
        &format!("untrust {who}"),
        &|current, threshold| {
            let mut kept = String::new();
            for line in current.split_inclusive('\n') {
                let fp = AllowedSigners::parse(line)
                    .ok()
                    .and_then(|a| a.fingerprints().into_iter().next());
                if fp.is_some_and(|f| gone.contains(&f)) {
                    continue;
                }
                kept.push_str(line);
            }
            // A threshold above what is left would lock the pool.
            let left = AllowedSigners::parse(&kept)
                .map(|a| a.fingerprints().len())
                .unwrap_or(0);
            let threshold = match threshold.and_then(policy::parse_threshold) {
                Some(t) if t > left => Some(format!("{left}\n")),
                _ => threshold.map(str::to_owned),
            };
            Ok((kept, threshold))
        },
    )
}

/// `trust threshold <tier> N`.
pub fn set_threshold(lore: &mut Lore, tier: Source, n: usize) -> Result<Changed, LoreError> {
    let count = signers_of(state(lore, tier)?.allowed.as_deref()).len();
    if n == 0 || n > count.max(1) {
        return Err(LoreError::Input {
            what: format!("threshold {n}"),
            why: format!(
                "pool/{tier} has {count} signers; the threshold must be from 1 to {count}"
            ),
        });
    }
    change(lore, tier, &format!("threshold {n}"), &|current, _| {
        Ok((current.to_owned(), Some(format!("{n}\n"))))
    })
}

/// `trust ack <tier>`: this key acknowledges the pending proposal.
pub fn ack(lore: &mut Lore, tier: Source) -> Result<Changed, LoreError> {
    let branch = Branch::Pool(tier);
    let me = key(lore)?.fingerprint;
    let mut outcome = Changed::Unchanged;
    lore.transact(branch, |tx| {
        let read = |p: &str| -> Result<Option<String>, LoreError> {
            Ok(tx.read(p)?.map(|b| String::from_utf8_lossy(&b).into_owned()))
        };
        let before = State {
            allowed: read(policy::ALLOWED)?,
            threshold: read(policy::THRESHOLD)?,
            proposed: read(policy::PROPOSED)?,
            proposed_threshold: read(policy::PROPOSED_THRESHOLD)?,
            acks: read(policy::ACKS)?,
        };
        if !before.pending() {
            return Err(LoreError::Input {
                what: format!("pool/{tier}"),
                why: "there is no proposal to acknowledge (`git lore trust list` shows the signers)".into(),
            });
        }
        let listed = before.signers().fingerprints();
        if !listed.contains(&me) {
            return Err(LoreError::Input {
                what: format!("pool/{tier}"),
                why: format!("this repository's key {me} is not a signer of pool/{tier}, so it cannot acknowledge"),
            });
        }
        let mut acks = before.ack_list();
        if acks.contains(&me) {
            outcome = Changed::Unchanged;
            return Ok(());
        }
        acks.push(me.clone());
        let counted = acks.iter().filter(|a| listed.contains(a)).count();
        let threshold = before.threshold(tier);
        let changes = if counted >= threshold {
            let after = before.applied();
            outcome = Changed::InForce;
            vec![
                Change::Put {
                    path: policy::ALLOWED.into(),
                    bytes: after.allowed.unwrap_or_default().into_bytes(),
                },
                match after.threshold {
                    Some(t) => Change::Put {
                        path: policy::THRESHOLD.into(),
                        bytes: t.into_bytes(),
                    },
                    None => Change::Delete {
                        path: policy::THRESHOLD.into(),
                    },
                },
                Change::Delete { path: policy::PROPOSED.into() },
                Change::Delete { path: policy::PROPOSED_THRESHOLD.into() },
                Change::Delete { path: policy::ACKS.into() },
            ]
        } else {
            outcome = Changed::Proposed {
                needed: threshold - counted,
            };
            vec![Change::Put {
                path: policy::ACKS.into(),
                bytes: format!("{}\n", acks.join("\n")).into_bytes(),
            }]
        };
        tx.commit(CommitSpec::new(
            &format!("config: acknowledge the signer change on pool/{tier} ({counted} of {threshold})"),
            None,
            Event::Config {
                topic: ConfigTopic::SignersAck,
            },
            changes,
        )?)?;
        Ok(())
    })?;
    refresh_verify_file(lore)?;
    Ok(outcome)
}

/// Copies the signers of every pool, and the pinned root signers, into
/// the marked section of the repository's own allowed-signers file, so
/// `git verify-commit` checks pool commits as git-lore does. Only a file
/// under the git dir (the one `init` made) is touched.
pub fn refresh_verify_file(lore: &Lore) -> Result<(), LoreError> {
    let Some(p) = lore.store.config_string("gpg.ssh.allowedSignersFile") else {
        return Ok(());
    };
    let path = super::expand_path(&p, lore.env.home.as_deref(), lore.store.git_dir());
    if !path.starts_with(lore.store.git_dir()) || !path.exists() {
        return Ok(());
    }
    let text = std::fs::read_to_string(&path).map_err(|source| LoreError::File {
        what: "cannot read",
        path: path.clone(),
        source,
    })?;
    let own = own_part(&text);
    let own_keys: BTreeSet<String> = AllowedSigners::parse(&own)
        .map(|a| a.fingerprints().into_iter().collect())
        .unwrap_or_default();
    let mut lines: Vec<String> = Vec::new();
    let mut seen = own_keys.clone();
    let mut take = |body: &str| {
        for line in body.lines() {
            let Ok(parsed) = AllowedSigners::parse(line) else {
                continue;
            };
            let Some(fp) = parsed.fingerprints().into_iter().next() else {
                continue;
            };
            if seen.insert(fp) {
                lines.push(line.to_owned());
            }
        }
    };
    for tier in [Source::Local, Source::Org, Source::Public] {
        // Only a pool whose history verifies may tell stock git whom to
        // trust: a forged signers change must not reach this file.
        let branch = Branch::Pool(tier);
        let tip = lore.store.tip(branch)?;
        let standing = super::audit::standing(&lore.store, &lore.env, branch, tip)?;
        if !matches!(standing, super::audit::Standing::Verified) {
            continue;
        }
        if let Some(t) = state(lore, tier)?.allowed {
            take(&t);
        }
    }
    for tier in [Source::Org, Source::Public] {
        if let Ok(t) =
            std::fs::read_to_string(lore.store.git_dir().join(super::audit::pins_path(tier)))
        {
            take(&t);
        }
    }
    let mut new = own.clone();
    if !lines.is_empty() {
        if !new.is_empty() && !new.ends_with('\n') {
            new.push('\n');
        }
        new.push_str(SECTION_BEGIN);
        new.push('\n');
        for l in &lines {
            new.push_str(l);
            new.push('\n');
        }
        new.push_str(SECTION_END);
        new.push('\n');
    }
    if new != text {
        let rel = path
            .strip_prefix(lore.store.git_dir())
            .expect("checked above")
            .to_string_lossy()
            .into_owned();
        lore.store
            .write_private_file(&rel, new.as_bytes(), 0o644, false)?;
    }
    Ok(())
}
