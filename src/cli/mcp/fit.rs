//! Answers within the budget, never cut where a cut breaks them: plain
//! text is cut at a character and says so ([`bounded`]); JSON is never
//! cut, whole entries are left out of it and counted ([`fit_json`]), since
//! JSON cut anywhere is no JSON at all.

use serde_json::Value;

use git_lore::recall::render::budget_len;

/// `text` cut to [`super::tools::BUDGET`] (or `budget`), at a character, with a last
/// line saying so.
pub fn bounded(text: String, budget: usize) -> String {
    if budget_len(&text) <= budget {
        return text;
    }
    const CUT: &str = "\n… (cut at the answer's limit)\n";
    let room = budget.saturating_sub(budget_len(CUT));
    let mut used = 0;
    let mut out = String::new();
    for c in text.chars() {
        used += c.len_utf16();
        if used > room {
            break;
        }
        out.push(c);
    }
    out.push_str(CUT);
    out
}

/// The recall document as one line of JSON within `budget`, never cut
/// inside: whole entries are left out, and counted. The project's
/// workspaces and the files not read go first (`stack.workspaces_left_out`,
/// `stack.problems_left_out`); then, in a monorepo, what each lesson
/// lists of the workspaces it applies in and the packages it matched there
/// (down to one workspace; the lesson's `workspaces_left_out`,
/// `matched_left_out`); then lessons, from the least specific up
/// (`left_out`): the lessons are what the answer is for.
pub fn fit_json(doc: &mut Value, budget: usize) -> String {
    let text = json_text(doc);
    if budget_len(&text) <= budget {
        return text;
    }
    for (list, parent, count) in [
        ("/stack/workspaces", "/stack", "workspaces_left_out"),
        ("/stack/problems", "/stack", "problems_left_out"),
    ] {
        let all = take_array(doc, list);
        let fit = most_that_fit(doc, budget, 0, all.len(), |doc, k| {
            keep_first(doc, &all, k, list, parent, count)
        });
        if let Some(text) = fit {
            return text;
        }
    }
    let lessons = take_array(doc, "/lessons");
    let widest = lessons
        .iter()
        .filter_map(|l| l["workspaces"].as_array())
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    let fit = most_that_fit(doc, budget, widest.min(1), widest, |doc, k| {
        let trimmed = lessons.iter().map(|l| in_workspaces(l, k)).collect();
        if let Some(a) = doc.pointer_mut("/lessons") {
            *a = Value::Array(trimmed);
        }
    });
    if let Some(text) = fit {
        return text;
    }
    let lessons = take_array(doc, "/lessons");
    let fit = most_that_fit(doc, budget, 0, lessons.len(), |doc, k| {
        keep_first(doc, &lessons, k, "/lessons", "", "left_out")
    });
    if let Some(text) = fit {
        return text;
    }
    // Only the counts are left, and still do not fit: say so, in JSON.
    json_text(&serde_json::json!({
        "format": doc.get("format"),
        "error": format!("the answer does not fit in {budget} characters: give a larger budget"),
    }))
}

fn json_text(doc: &Value) -> String {
    git_lore::content::text::json_line(doc).expect("a JSON value serialises")
}

/// The array at the JSON pointer `list`, taken out of `doc`.
fn take_array(doc: &mut Value, list: &str) -> Vec<Value> {
    match doc.pointer_mut(list) {
        Some(Value::Array(a)) => std::mem::take(a),
        _ => Vec::new(),
    }
}

/// Puts the first `k` of `all` at `list`, and counts the others in the key
/// `count` of the object at `parent` (no key when none is left out).
fn keep_first(doc: &mut Value, all: &[Value], k: usize, list: &str, parent: &str, count: &str) {
    if let Some(a) = doc.pointer_mut(list) {
        *a = Value::Array(all[..k].to_vec());
    }
    if let Some(Value::Object(o)) = doc.pointer_mut(parent) {
        if k < all.len() {
            o.insert(count.to_owned(), (all.len() - k).into());
        } else {
            o.remove(count);
        }
    }
}

/// A recall lesson with only the first `k` workspaces it applies in, and
/// the packages it matched in those.
fn in_workspaces(lesson: &Value, k: usize) -> Value {
    let mut l = lesson.clone();
    let Some(all) = lesson["workspaces"].as_array().filter(|w| w.len() > k) else {
        return l;
    };
    let kept = &all[..k];
    l["workspaces"] = Value::Array(kept.to_vec());
    l["workspaces_left_out"] = (all.len() - k).into();
    if let Some(matched) = lesson["matched"].as_array() {
        let (inside, outside): (Vec<&Value>, Vec<&Value>) =
            matched.iter().partition(|m| kept.contains(&m["workspace"]));
        l["matched"] = Value::Array(inside.into_iter().cloned().collect());
        if !outside.is_empty() {
            l["matched_left_out"] = outside.len().into();
        }
    }
    l
}

/// The text of `doc` with the most `k` in `min..=max` that fits `budget`
/// once `apply(doc, k)` has shaped it (a larger `k` keeps more, and makes
/// the text longer); `None`, with `doc` shaped by `min`, when none does.
fn most_that_fit(
    doc: &mut Value,
    budget: usize,
    min: usize,
    max: usize,
    apply: impl Fn(&mut Value, usize),
) -> Option<String> {
    let fits = |doc: &mut Value, k: usize| {
        apply(doc, k);
        let text = json_text(doc);
        (budget_len(&text) <= budget).then_some(text)
    };
    let (mut lo, mut hi) = (min, max);
    let mut best = None;
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        match fits(doc, mid) {
            Some(_) => {
                best = Some(mid);
                lo = mid + 1;
            }
            None if mid == min => break,
            None => hi = mid - 1,
        }
    }
    match best {
        Some(k) => fits(doc, k),
        None => {
            apply(doc, min);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::mcp::tools::BUDGET;

    #[test]
    fn answers_are_cut_to_the_budget_at_a_character() {
        let long = "é".repeat(20_000);
        let cut = bounded(long, BUDGET);
        assert!(budget_len(&cut) <= BUDGET, "{}", budget_len(&cut));
        assert!(cut.ends_with("\n… (cut at the answer's limit)\n"));
        // Characters outside the basic plane count twice, as harnesses count.
        let wide = "🦀".repeat(5_000);
        let cut = bounded(wide, BUDGET);
        assert!(budget_len(&cut) <= BUDGET);
        assert_eq!(bounded("short".into(), BUDGET), "short");
    }

    #[test]
    fn a_json_recall_whose_stack_is_too_long_stays_json_and_keeps_its_lessons() {
        let workspaces: Vec<String> = (0..400)
            .map(|i| format!("services/service-{i:04}"))
            .collect();
        let matched: Vec<Value> = workspaces[..50]
            .iter()
            .flat_map(|w| {
                ["vite", "vitest"].map(|k| serde_json::json!({"key": k, "name": k, "version": "5.4.21", "workspace": w}))
            })
            .collect();
        let lesson = serde_json::json!({
            "id": "x", "claim": "c".repeat(300), "workspaces": workspaces[..50], "matched": matched,
        });
        let problems: Vec<serde_json::Value> = (0..100)
            .map(|i| serde_json::json!({"file": format!("w{i}/poetry.lock"), "why": "not TOML"}))
            .collect();
        let doc = serde_json::json!({
            "format": "git-lore.recall/1",
            "stack": {"packages": 900, "workspaces": workspaces, "problems": problems},
            "lessons": vec![lesson; 3],
        });
        for budget in [500, 1_000, 2_000, 5_000, 9_000] {
            let text = fit_json(&mut doc.clone(), budget);
            assert!(
                budget_len(&text) <= budget,
                "{budget}: {}",
                budget_len(&text)
            );
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            let kept = |p: &str| {
                back.pointer(p)
                    .and_then(|v| v.as_array())
                    .map_or(0, Vec::len) as u64
            };
            let out = |p: &str| {
                back.pointer(p)
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0)
            };
            assert_eq!(
                kept("/stack/workspaces") + out("/stack/workspaces_left_out"),
                400,
                "{text}"
            );
            assert_eq!(
                kept("/stack/problems") + out("/stack/problems_left_out"),
                100,
                "{text}"
            );
            assert_eq!(kept("/lessons") + out("/left_out"), 3, "{text}");
            for l in back["lessons"].as_array().unwrap() {
                let ws = l["workspaces"].as_array().unwrap();
                assert!(!ws.is_empty(), "{text}");
                assert_eq!(
                    ws.len() as u64 + l["workspaces_left_out"].as_u64().unwrap_or(0),
                    50
                );
                let m = l["matched"].as_array().unwrap();
                assert_eq!(m.len(), 2 * ws.len(), "{text}");
                assert!(m.iter().all(|m| ws.contains(&m["workspace"])), "{text}");
                assert_eq!(
                    m.len() as u64 + l["matched_left_out"].as_u64().unwrap_or(0),
                    100
                );
            }
            if budget >= 2_000 {
                assert_eq!(
                    kept("/lessons"),
                    3,
                    "{budget}: the stack goes first: {text}"
                );
            }
        }
        // Room for nothing: still JSON, saying so.
        let text = fit_json(&mut doc.clone(), 120);
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            back["error"],
            "the answer does not fit in 120 characters: give a larger budget"
        );
    }

    #[test]
    fn a_json_recall_too_long_leaves_out_lessons_and_says_how_many() {
        let lesson = serde_json::json!({"id": "x", "claim": "c".repeat(1000)});
        let mut doc =
            serde_json::json!({"format": "git-lore.recall/1", "lessons": vec![lesson; 20]});
        let text = fit_json(&mut doc, 5_000);
        assert!(budget_len(&text) <= 5_000);
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        let kept = back["lessons"].as_array().unwrap().len();
        assert_eq!(back["left_out"].as_u64().unwrap() as usize + kept, 20);
        assert!(kept >= 4, "{kept}");
    }
}
