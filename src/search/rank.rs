//! How search ranks what matches: every word of the query must match
//! ([`super::Group`]); then a lesson one of whose packages a query word
//! names exactly comes first (more such words, earlier), then the higher
//! BM25F score (ties: the wider pool, then the smaller id; `ops::search`).
//!
//! BM25F (Robertson and Zaragoza, "The Probabilistic Relevance Framework:
//! BM25 and Beyond", 2009), per term `t` found in a lesson:
//!
//! ```text
//! tf~(t)    = Σ_field weight(field) · tf(t, field) / (1 − b + b · len(field) / avglen(field))
//! idf(t)    = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
//! score(t)  = idf(t) · tf~(t) / (k1 + tf~(t))
//! ```
//!
//! summed over the whole and the parts of every query word the lesson has;
//! `N` is every searched lesson, `df(t)` how many have `t`, `avglen` the
//! mean length of a field over all of them. The weights put the claim
//! above the stack, the stack above the resolution, and the resolution
//! above the rationale ([`WEIGHTS`]); `k1` = 1.2 and `b` = 0.75, the usual
//! values. The statistics are exact (the index keeps its totals per
//! layer), so a rebuilt index ranks exactly as the one it replaces.
//!
//! Pure: the caller looks the terms up.

use super::{Query, FIELDS};

/// Term-frequency saturation.
pub const K1: f64 = 1.2;
/// How much a field's length matters.
pub const B: f64 = 0.75;
/// Field weights: claim, rationale, resolution, stack.
pub const WEIGHTS: [f64; FIELDS] = [3.0, 1.0, 1.5, 2.0];

/// What the whole corpus adds up to: how many lessons are searched, and
/// the sum of each field's length over them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub docs: u64,
    pub lengths: [u64; FIELDS],
}

impl Totals {
    /// Adds (`sign` 1) or takes away (`sign` -1) one lesson's lengths.
    pub fn count(&mut self, lengths: &[u16; FIELDS], add: bool) {
        if add {
            self.docs += 1;
        } else {
            self.docs = self.docs.saturating_sub(1);
        }
        for (t, l) in self.lengths.iter_mut().zip(lengths) {
            *t = if add {
                *t + u64::from(*l)
            } else {
                t.saturating_sub(u64::from(*l))
            };
        }
    }

    fn average(&self, field: usize) -> f64 {
        if self.docs == 0 || self.lengths[field] == 0 {
            1.0
        } else {
            self.lengths[field] as f64 / self.docs as f64
        }
    }
}

/// Inverse document frequency (never negative).
pub fn idf(docs: u64, df: u64) -> f64 {
    let (n, df) = (docs.max(df) as f64, df as f64);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// One term's BM25F score in a lesson with field lengths `lengths`.
pub fn term_score(idf: f64, tf: &[u8; FIELDS], lengths: &[u16; FIELDS], totals: &Totals) -> f64 {
    let mut weighted = 0.0;
    for f in 0..FIELDS {
        if tf[f] == 0 {
            continue;
        }
        let norm = 1.0 - B + B * f64::from(lengths[f]) / totals.average(f);
        weighted += WEIGHTS[f] * f64::from(tf[f]) / norm;
    }
    if weighted == 0.0 {
        return 0.0;
    }
    idf * weighted / (K1 + weighted)
}

/// What one lesson holds of a query's terms.
pub struct Candidate<'a> {
    pub lengths: &'a [u16; FIELDS],
    /// Its posting of a term key, if it has the term: (tf, exact).
    pub find: &'a dyn Fn(u64) -> Option<([u8; FIELDS], bool)>,
}

/// How a lesson that matches ranks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rank {
    /// How many query words name one of its packages exactly.
    pub exact: usize,
    /// Its BM25F score.
    pub score: f64,
}

/// The rank of a lesson, if it matches every word of the query. `df`
/// gives each term key's document frequency.
pub fn rank(
    query: &Query,
    c: &Candidate<'_>,
    df: &dyn Fn(u64) -> u64,
    totals: &Totals,
) -> Option<Rank> {
    let mut exact = 0;
    let mut score = 0.0;
    for g in &query.groups {
        let whole = g.whole.as_ref().and_then(|w| (c.find)(w.key));
        let parts = !g.parts.is_empty() && g.parts.iter().all(|p| (c.find)(p.key).is_some());
        if whole.is_none() && !parts {
            return None;
        }
        if whole.is_some_and(|(_, e)| e) {
            exact += 1;
        }
        for t in g.terms() {
            if let Some((tf, _)) = (c.find)(t.key) {
                score += term_score(idf(totals.docs, df(t.key)), &tf, c.lengths, totals);
            }
        }
    }
    Some(Rank { exact, score })
}

/// Orders ranks best first: more exact package words, then the higher
/// score.
pub fn better(a: &Rank, b: &Rank) -> std::cmp::Ordering {
    b.exact.cmp(&a.exact).then(b.score.total_cmp(&a.score))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::terms::Term;

    fn totals() -> Totals {
        Totals {
            docs: 100,
            lengths: [1000, 3000, 1000, 300],
        }
    }

    #[test]
    fn rarer_terms_weigh_more_and_idf_is_never_negative() {
        assert!(idf(100, 1) > idf(100, 50));
        assert!(idf(100, 100) > 0.0);
        assert!(idf(0, 0) > 0.0);
        assert!(idf(1, 3) > 0.0, "a df above N (a stale count) stays finite");
    }

    #[test]
    fn the_claim_weighs_more_than_the_rationale_and_shorter_fields_more() {
        let t = totals();
        let lengths = [10, 30, 10, 3];
        let claim = term_score(1.0, &[1, 0, 0, 0], &lengths, &t);
        let rationale = term_score(1.0, &[0, 1, 0, 0], &lengths, &t);
        assert!(claim > rationale);
        let long = term_score(1.0, &[1, 0, 0, 0], &[40, 30, 10, 3], &t);
        assert!(claim > long);
        assert_eq!(term_score(1.0, &[0; 4], &lengths, &t), 0.0);
    }

    #[test]
    fn every_word_must_match_and_exact_packages_count() {
        let q = Query::parse("vite @vitejs/plugin-legacy");
        let lengths = [10, 30, 10, 3];
        let vite = Term::key("vite");
        let legacy = Term::key("@vitejs/plugin-legacy");
        let parts = ["vitejs", "plugin", "legacy"].map(Term::key);
        let df = |_| 10;
        let t = totals();
        // Both words, the second by its whole name, in the stack.
        let all = move |k: u64| {
            (k == vite || k == legacy || parts.contains(&k)).then_some(([0, 0, 0, 1], k == legacy))
        };
        let r = rank(
            &q,
            &Candidate {
                lengths: &lengths,
                find: &all,
            },
            &df,
            &t,
        )
        .unwrap();
        assert_eq!(r.exact, 1);
        // The second word by its parts only: a match, not exact, lower.
        let by_parts =
            move |k: u64| (k == vite || parts.contains(&k)).then_some(([1, 0, 0, 0], false));
        let p = rank(
            &q,
            &Candidate {
                lengths: &lengths,
                find: &by_parts,
            },
            &df,
            &t,
        )
        .unwrap();
        assert_eq!(p.exact, 0);
        assert_eq!(better(&r, &p), std::cmp::Ordering::Less, "r first");
        // One part missing: no match.
        let missing = move |k: u64| (k == vite || k == parts[0]).then_some(([1, 0, 0, 0], false));
        assert!(rank(
            &q,
            &Candidate {
                lengths: &lengths,
                find: &missing
            },
            &df,
            &t
        )
        .is_none());
    }
}
