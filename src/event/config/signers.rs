//! Who may sign a pool, and how that may change: the files under `.lore/`
//! of a pool branch and the rules `config` commits follow (the `config`
//! action's rule, which its check in `config/mod.rs` applies).
//!
//! - `.lore/allowed_signers`: the keys whose signatures the pool trusts
//!   (OpenSSH allowed-signers format).
//! - `.lore/threshold` (optional): how many of them must agree to change
//!   who may sign. Without it: 2 on `pool/public` once it has two or more
//!   signers, else 1 (`pool/org`, `pool/local`, a public pool with one
//!   signer).
//! - `.lore/proposed/allowed_signers`, `.lore/proposed/threshold`,
//!   `.lore/proposed/acks`: a change waiting for acknowledgements, and the
//!   fingerprints of the signers who acknowledged it (its proposer first).
//!
//! With a threshold of 1 a `config signers` commit changes the list
//! directly. Above 1, a `signers-propose` commit writes the proposal (its
//! signer is the first acknowledgement), each `signers-ack` commit adds one
//! distinct signer, and the acknowledgement that reaches the threshold also
//! puts the proposal in force. Only signers listed in force count, so a
//! key cannot vouch for itself. This is the rule `verify`, `sync` and a
//! pool host apply to every `config` commit ([`check`]).
//!
//! The module is pure: callers read the files at a commit and pass the
//! text in.

use super::ConfigTopic;
use crate::model::Source;
use crate::signing::AllowedSigners;

pub const ALLOWED: &str = ".lore/allowed_signers";
pub const THRESHOLD: &str = ".lore/threshold";
pub const PROPOSED: &str = ".lore/proposed/allowed_signers";
pub const PROPOSED_THRESHOLD: &str = ".lore/proposed/threshold";
pub const ACKS: &str = ".lore/proposed/acks";

/// Every signer file, in the order [`State`] keeps them.
pub const FILES: [&str; 5] = [ALLOWED, THRESHOLD, PROPOSED, PROPOSED_THRESHOLD, ACKS];

/// The signer files of a pool at one commit, as text (`None`: absent).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub allowed: Option<String>,
    pub threshold: Option<String>,
    pub proposed: Option<String>,
    pub proposed_threshold: Option<String>,
    pub acks: Option<String>,
}

impl State {
    /// The state from `read(path)` for each of [`FILES`].
    pub fn read(mut read: impl FnMut(&str) -> Option<String>) -> State {
        State {
            allowed: read(ALLOWED),
            threshold: read(THRESHOLD),
            proposed: read(PROPOSED),
            proposed_threshold: read(PROPOSED_THRESHOLD),
            acks: read(ACKS),
        }
    }

    /// The files as `(path, text)`; absent ones as `None`.
    pub fn files(&self) -> [(&'static str, Option<&str>); 5] {
        [
            (ALLOWED, self.allowed.as_deref()),
            (THRESHOLD, self.threshold.as_deref()),
            (PROPOSED, self.proposed.as_deref()),
            (PROPOSED_THRESHOLD, self.proposed_threshold.as_deref()),
            (ACKS, self.acks.as_deref()),
        ]
    }

    /// The signers in force (an unreadable or absent list: nobody).
    pub fn signers(&self) -> AllowedSigners {
        self.allowed
            .as_deref()
            .and_then(|t| AllowedSigners::parse(t).ok())
            .unwrap_or_default()
    }

    /// The fingerprints that acknowledged the proposal, in order.
    pub fn ack_list(&self) -> Vec<String> {
        self.acks
            .as_deref()
            .unwrap_or("")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// How many listed signers must agree to change who may sign `tier`.
    pub fn threshold(&self, tier: Source) -> usize {
        if let Some(n) = self.threshold.as_deref().and_then(parse_threshold) {
            return n;
        }
        match tier {
            Source::Public if self.signers().fingerprints().len() >= 2 => 2,
            _ => 1,
        }
    }

    /// Whether a proposal is waiting.
    pub fn pending(&self) -> bool {
        self.proposed.is_some()
    }

    /// The proposal as it would be in force: its list and threshold, and no
    /// proposal.
    pub fn applied(&self) -> State {
        State {
            allowed: self.proposed.clone(),
            threshold: self
                .proposed_threshold
                .clone()
                .or_else(|| self.threshold.clone()),
            proposed: None,
            proposed_threshold: None,
            acks: None,
        }
    }
}

/// A threshold file's number: a whole number from 1 up, alone on its line.
pub fn parse_threshold(text: &str) -> Option<usize> {
    text.trim().parse::<usize>().ok().filter(|n| *n >= 1)
}

/// What a list must be to be put in force: readable, naming someone, and
/// at least as many signers as the threshold asks for.
fn check_list(what: &str, list: Option<&str>, threshold: Option<&str>) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(text) = list else {
        problems.push(format!("{what} is missing"));
        return problems;
    };
    let count = match AllowedSigners::parse(text) {
        Err(e) => {
            problems.push(format!("{what} is invalid: {e}"));
            return problems;
        }
        Ok(s) if s.is_empty() => {
            problems.push(format!("{what} names nobody"));
            return problems;
        }
        Ok(s) => s.fingerprints().len(),
    };
    if let Some(t) = threshold {
        match parse_threshold(t) {
            None => problems.push(format!(
                "its threshold {:?} is not a whole number from 1 up",
                t.trim()
            )),
            Some(n) if n > count => problems.push(format!(
                "its threshold {n} asks for more signers than the {count} it lists"
            )),
            Some(_) => {}
        }
    }
    problems
}

/// Checks one `config` commit's change of the signer files of pool `tier`
/// (`before` at its first parent, `after` at the commit). `signer` is the
/// fingerprint of the key that signed the commit, when its signature is
/// good; `root` says the commit is the pool's first.
pub fn check(
    tier: Source,
    topic: ConfigTopic,
    before: &State,
    after: &State,
    signer: Option<&str>,
    root: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let listed = before.signers().fingerprints();
    let is_listed = |fp: Option<&str>| fp.is_some_and(|f| listed.iter().any(|l| l == f));
    let threshold = before.threshold(tier);
    let same_proposal =
        before.proposed == after.proposed && before.proposed_threshold == after.proposed_threshold;
    match topic {
        ConfigTopic::Rubrics => {}
        ConfigTopic::Signers => {
            problems.extend(check_list(
                ALLOWED,
                after.allowed.as_deref(),
                after.threshold.as_deref(),
            ));
            let changed = before.allowed != after.allowed || before.threshold != after.threshold;
            if !root && changed && threshold > 1 {
                problems.push(format!(
                    "config signers: on {} a change of who may sign needs {threshold} signers to agree; propose it (`git lore trust add`) and have them acknowledge it (`git lore trust ack`)",
                    pool_name(tier)
                ));
            }
            if !same_proposal || before.acks != after.acks {
                problems.push("config signers may not change a pending proposal".into());
            }
        }
        ConfigTopic::SignersPropose => {
            if !is_listed(signer) {
                problems.push(
                    "config signers-propose: only a signer of the pool may propose a change of its signers"
                        .into(),
                );
            }
            if before.allowed != after.allowed || before.threshold != after.threshold {
                problems.push(
                    "config signers-propose may not change the signers in force, only propose"
                        .into(),
                );
            }
            problems.extend(
                check_list(
                    PROPOSED,
                    after.proposed.as_deref(),
                    after.proposed_threshold.as_deref(),
                )
                .into_iter()
                .map(|p| format!("config signers-propose: {p}")),
            );
            if let Some(fp) = signer {
                if after.ack_list() != [fp.to_owned()] {
                    problems.push(format!(
                        "config signers-propose: {ACKS} must hold exactly the proposer's fingerprint {fp}"
                    ));
                }
            }
        }
        ConfigTopic::SignersAck => {
            if !before.pending() {
                problems.push("config signers-ack: there is no proposal to acknowledge".into());
                return problems;
            }
            if !is_listed(signer) {
                problems.push(
                    "config signers-ack: only a signer of the pool may acknowledge a change of its signers"
                        .into(),
                );
                return problems;
            }
            let fp = signer.expect("listed signers have a fingerprint");
            let mut acks = before.ack_list();
            if acks.iter().any(|a| a == fp) {
                problems.push(format!(
                    "config signers-ack: {fp} already acknowledged this proposal"
                ));
                return problems;
            }
            acks.push(fp.to_owned());
            let counted = acks.iter().filter(|a| listed.contains(a)).count();
            let expected = if counted >= threshold {
                before.applied()
            } else {
                State {
                    acks: Some(format!("{}\n", acks.join("\n"))),
                    ..before.clone()
                }
            };
            if after != &expected {
                problems.push(if counted >= threshold {
                    format!(
                        "config signers-ack: this acknowledgement is the {counted}th of {threshold}, so it must put the proposal in force and remove it, and change nothing else"
                    )
                } else {
                    format!(
                        "config signers-ack: {counted} of {threshold} acknowledgements; it must add exactly its signer's fingerprint to {ACKS} and change nothing else"
                    )
                });
            }
        }
    }
    problems
}

fn pool_name(tier: Source) -> &'static str {
    match tier {
        Source::Local => "pool/local",
        Source::Org => "pool/org",
        Source::Public => "pool/public",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "a@x namespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK4Wb7uhfzI4t7dZTpSziC82tDu+cL7qiBRKhD4dzHJr\n";
    const B: &str = "b@x namespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB9wooyj6SH2Gy+XSWLCYax6qdIxvn5A53NTrKKEsIVm\n";
    const C: &str = "c@x namespaces=\"git\" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGVwGibcZDBIMmAu2b+5HB8yEZhvfmi065DueCueTkSH\n";

    fn fp(line: &str) -> String {
        AllowedSigners::parse(line).unwrap().fingerprints()[0].clone()
    }

    fn state(allowed: &str) -> State {
        State {
            allowed: Some(allowed.into()),
            ..State::default()
        }
    }

    #[test]
    fn thresholds_default_by_tier_and_size() {
        let one = state(A);
        let two = state(&format!("{A}{B}"));
        assert_eq!(one.threshold(Source::Public), 1);
        assert_eq!(two.threshold(Source::Public), 2);
        assert_eq!(two.threshold(Source::Org), 1);
        let explicit = State {
            threshold: Some("3\n".into()),
            ..two.clone()
        };
        assert_eq!(explicit.threshold(Source::Org), 3);
        assert_eq!(parse_threshold("0"), None);
        assert_eq!(parse_threshold(" 2\n"), Some(2));
    }

    #[test]
    fn a_direct_change_needs_a_threshold_of_one() {
        let before = state(A);
        let after = state(&format!("{A}{B}"));
        let ok = check(
            Source::Public,
            ConfigTopic::Signers,
            &before,
            &after,
            Some(&fp(A)),
            false,
        );
        assert!(ok.is_empty(), "{ok:?}");
        // Two signers on public: adding a third directly is refused.
        let third = state(&format!("{A}{B}{C}"));
        let refused = check(
            Source::Public,
            ConfigTopic::Signers,
            &after,
            &third,
            Some(&fp(A)),
            false,
        );
        assert!(
            refused[0].contains("needs 2 signers to agree"),
            "{refused:?}"
        );
        // The same on org is one signer's call.
        assert!(check(
            Source::Org,
            ConfigTopic::Signers,
            &after,
            &third,
            Some(&fp(A)),
            false
        )
        .is_empty());
        // A root commit starts the list as it likes, but not empty.
        assert!(check(
            Source::Public,
            ConfigTopic::Signers,
            &State::default(),
            &third,
            None,
            true
        )
        .is_empty());
        let empty = check(
            Source::Org,
            ConfigTopic::Signers,
            &State::default(),
            &state("# nobody\n"),
            None,
            true,
        );
        assert!(empty[0].contains("names nobody"), "{empty:?}");
    }

    #[test]
    fn a_proposal_takes_effect_at_the_threshold_and_not_before() {
        let two = state(&format!("{A}{B}"));
        let proposed = State {
            proposed: Some(format!("{A}{B}{C}")),
            acks: Some(format!("{}\n", fp(A))),
            ..two.clone()
        };
        let p = check(
            Source::Public,
            ConfigTopic::SignersPropose,
            &two,
            &proposed,
            Some(&fp(A)),
            false,
        );
        assert!(p.is_empty(), "{p:?}");
        // An outsider cannot propose, nor acknowledge.
        let outsider = check(
            Source::Public,
            ConfigTopic::SignersPropose,
            &two,
            &proposed,
            Some(&fp(C)),
            false,
        );
        assert!(outsider[0].contains("only a signer"), "{outsider:?}");
        // The proposer acknowledging again does not count twice.
        let again = check(
            Source::Public,
            ConfigTopic::SignersAck,
            &proposed,
            &proposed.applied(),
            Some(&fp(A)),
            false,
        );
        assert!(again[0].contains("already acknowledged"), "{again:?}");
        // The second signer's acknowledgement puts it in force...
        let done = check(
            Source::Public,
            ConfigTopic::SignersAck,
            &proposed,
            &proposed.applied(),
            Some(&fp(B)),
            false,
        );
        assert!(done.is_empty(), "{done:?}");
        // ...and must: adding itself to the list alone is not enough.
        let partial = State {
            acks: Some(format!("{}\n{}\n", fp(A), fp(B))),
            ..proposed.clone()
        };
        let wrong = check(
            Source::Public,
            ConfigTopic::SignersAck,
            &proposed,
            &partial,
            Some(&fp(B)),
            false,
        );
        assert!(
            wrong[0].contains("must put the proposal in force"),
            "{wrong:?}"
        );
    }

    #[test]
    fn below_the_threshold_an_acknowledgement_only_adds_itself() {
        let three = State {
            threshold: Some("3\n".into()),
            ..state(&format!("{A}{B}{C}"))
        };
        let proposed = State {
            proposed: Some(A.into()),
            acks: Some(format!("{}\n", fp(A))),
            ..three.clone()
        };
        let next = State {
            acks: Some(format!("{}\n{}\n", fp(A), fp(B))),
            ..proposed.clone()
        };
        let ok = check(
            Source::Org,
            ConfigTopic::SignersAck,
            &proposed,
            &next,
            Some(&fp(B)),
            false,
        );
        assert!(ok.is_empty(), "{ok:?}");
        let early = check(
            Source::Org,
            ConfigTopic::SignersAck,
            &proposed,
            &proposed.applied(),
            Some(&fp(B)),
            false,
        );
        assert!(early[0].contains("2 of 3"), "{early:?}");
        // A proposal whose threshold exceeds its list is refused.
        let bad = State {
            proposed_threshold: Some("2\n".into()),
            ..proposed.clone()
        };
        let p = check(
            Source::Org,
            ConfigTopic::SignersPropose,
            &three,
            &bad,
            Some(&fp(A)),
            false,
        );
        assert!(
            p.iter().any(|x| x.contains("more signers than the 1")),
            "{p:?}"
        );
    }
}
