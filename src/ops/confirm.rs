//! The human's verbs: `confirm`, `pass` and `unconfirm`, each one signed
//! ledger commit decided by [`crate::review`] on the proposal as it stands
//! when the commit lands. None of them calls a model.

use super::ledger::transition;
use super::{Lore, LoreError};
use crate::event::Event;
use crate::model::{Id, Visibility};
use crate::pipeline::{validate_confirmed, validate_confirmed_as_held};
use crate::review::{self, Transition};

/// `confirm ID VISIBILITY [--justification TEXT]`. `interactive`: a person
/// could have been asked (recorded on the commit when not).
pub fn confirm(
    lore: &mut Lore,
    id: Id,
    visibility: Visibility,
    justification: Option<&str>,
    interactive: bool,
) -> Result<Transition, LoreError> {
    let now = lore.env.now;
    transition(
        lore,
        id,
        |p| {
            let t = review::confirm(p, visibility, justification, now)?;
            if let Transition::Changed(next) = &t {
                // A candidate the human rewrote (`--justification`) is
                // checked whole; one confirmed as the ledger holds it
                // passed the schema already, and meets the rules again.
                if next.candidate == p.candidate {
                    validate_confirmed_as_held(&next.candidate)
                } else {
                    validate_confirmed(&next.candidate)
                }
                .map_err(|why| LoreError::NotConfirmable { id, why })?;
            }
            Ok(t)
        },
        |step, _| Event::Confirm {
            step,
            visibility,
            interactive,
        },
        |p| format!("confirm {}: {visibility} visibility", p.id),
    )
}

/// `pass ID [REASON]`: the human's "don't share". Terminal.
pub fn pass(lore: &mut Lore, id: Id, reason: Option<&str>) -> Result<Transition, LoreError> {
    let now = lore.env.now;
    let reason_trailer = reason
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    transition(
        lore,
        id,
        |p| Ok(review::pass(p, reason, now)?),
        |step, _| Event::Pass {
            step,
            reason: reason_trailer.clone(),
        },
        |p| format!("pass {}", p.id),
    )
}

/// `unconfirm ID`: back to pending, the pre-confirm candidate restored.
pub fn unconfirm(lore: &mut Lore, id: Id) -> Result<Transition, LoreError> {
    transition(
        lore,
        id,
        |p| Ok(review::unconfirm(p)?),
        |step, _| Event::Unconfirm { step },
        |p| format!("unconfirm {}", p.id),
    )
}
