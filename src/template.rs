//! Filling a prompt template's `{{name}}` placeholders, the one way every
//! prompt (transform, capture, judges, relation judge) is rendered.
//!
//! One pass, left to right: text substituted in is never scanned again, so
//! an artifact or a lesson that contains `{{excerpt}}` stays literal. An
//! unknown name, or a `{{` that never closes, is left as written. Pure; it
//! knows no names of its own.

/// Fills every `{{name}}` for which `value(name)` is `Some`.
pub fn fill(template: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        match after
            .find("}}")
            .and_then(|close| Some((close, value(&after[..close])?)))
        {
            Some((close, v)) => {
                out.push_str(&v);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// [`fill`] from a list of names and values.
pub fn fill_from(template: &str, values: &[(&str, String)]) -> String {
    fill(template, |name| {
        values
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_known_names_only() {
        let out = fill_from("a {{x}} b {{y}} {{x}}{{", &[("x", "{{x}}".to_owned())]);
        assert_eq!(out, "a {{x}} b {{y}} {{x}}{{");
        assert_eq!(fill_from("{{x}}{{x}}", &[("x", "1".into())]), "11");
        assert_eq!(fill("no placeholders", |_| None), "no placeholders");
        assert_eq!(fill("{{ x }} {{x", |_| Some("v".into())), "v {{x");
    }
}
