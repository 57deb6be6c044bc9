//! `composer.lock`: the `packages` and `packages-dev` arrays, each entry a
//! `name` and the `version` Composer installed (`v6.4.7`, `7.8.1`,
//! `dev-main`). Branch versions are kept as written (recall reports them
//! as unknown). All are attributed to the lockfile's directory.
//!
//! This file owns that reading only.

use serde::Deserialize;

use super::{depth, detail, text, Package, StackError};

#[derive(Deserialize)]
struct Lock {
    packages: Option<Vec<Entry>>,
    #[serde(rename = "packages-dev")]
    packages_dev: Option<Vec<Entry>>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    version: String,
}

/// Parses a `composer.lock`.
pub fn parse(bytes: &[u8]) -> Result<Vec<Package>, StackError> {
    let text = text(bytes)?;
    depth::json(text, false)?;
    let lock: Lock = serde_json::from_str(text).map_err(|e| StackError::Syntax {
        format: "JSON",
        detail: detail(e),
    })?;
    if lock.packages.is_none() && lock.packages_dev.is_none() {
        return Err(StackError::Shape(
            "neither `packages` nor `packages-dev`: not a composer.lock".to_owned(),
        ));
    }
    Ok(lock
        .packages
        .into_iter()
        .flatten()
        .chain(lock.packages_dev.into_iter().flatten())
        .map(|p| Package::new(&p.name, &p.version, "."))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{golden, survives_garbage};
    use super::*;

    #[test]
    fn lockfile_with_dev_and_path_packages() {
        golden(
            parse,
            "composer.lock",
            &[
                "acme/internal-tools dev-main .",
                "guzzlehttp/guzzle 7.8.1 .",
                "phpunit/phpunit 10.5.20 .",
                "symfony/console v6.4.7 .",
            ],
        );
    }

    #[test]
    fn wrong_shapes_are_clear_errors() {
        let e = |s: &str| parse(s.as_bytes()).unwrap_err().to_string();
        assert_eq!(
            e("{}"),
            "unexpected content: neither `packages` nor `packages-dev`: not a composer.lock"
        );
        assert!(e(r#"{"packages": [{"name": "a", "version": 1}]}"#)
            .starts_with("invalid JSON: invalid type: integer `1`, expected a string"));
        assert!(e(r#"{"packages": {"a": 1}}"#).starts_with("invalid JSON: invalid type: map"));
    }

    #[test]
    fn garbage_never_panics() {
        survives_garbage(parse, "composer.lock");
    }
}
