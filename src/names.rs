//! `string_enum!`: the one definition of a closed set of names that are
//! spelled as strings in records and trailers and stored as one byte in the
//! index.
//!
//! Each variant names its text and its byte code explicitly, so reordering
//! variants or adding one never changes what an existing record or index
//! file means. The macro gives the enum `ALL`, `as_str`, `code`,
//! `from_code`, `FromStr` (with the caller's error), `Display` and serde
//! as the string.

/// Defines a string enum. See the module documentation.
///
/// ```text
/// string_enum! {
///     /// Who may see a lesson.
///     pub enum Visibility: ModelError::BadVisibility {
///         Private("private", 0),
///         Org("org", 1),
///     }
/// }
/// ```
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident ($text:literal, $code:literal) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name as records and trailers spell it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The byte the index stores for it.
            pub fn code(self) -> u8 {
                match self {
                    $($name::$variant => $code),+
                }
            }

            /// The value stored as `code`, if any.
            pub fn from_code(code: u8) -> Option<$name> {
                match code {
                    $($code => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::names::NameError<$name>;
            fn from_str(s: &str) -> Result<$name, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err($crate::names::NameError::new(s)),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }

        impl $crate::names::Named for $name {
            const WHAT: &'static str = $what;
            fn names() -> Vec<&'static str> {
                $name::ALL.iter().map(|v| v.as_str()).collect()
            }
        }
    };
}

pub(crate) use string_enum;

/// What a string enum says about itself in errors.
pub trait Named {
    /// What a value is called in messages (`visibility`, `status`).
    const WHAT: &'static str;
    /// Every valid spelling.
    fn names() -> Vec<&'static str>;
}

/// A string that is none of an enum's names.
#[derive(Clone, PartialEq, Eq)]
pub struct NameError<T> {
    /// What was given (cut to 64 characters).
    pub given: String,
    _of: std::marker::PhantomData<T>,
}

impl<T> NameError<T> {
    pub(crate) fn new(given: &str) -> NameError<T> {
        NameError {
            given: given.chars().take(64).collect(),
            _of: std::marker::PhantomData,
        }
    }
}

impl<T: Named> std::fmt::Display for NameError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} must be one of: {} (got {:?})",
            T::WHAT,
            T::names().join(", "),
            self.given
        )
    }
}

impl<T: Named> std::fmt::Debug for NameError<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl<T: Named> std::error::Error for NameError<T> {}

#[cfg(test)]
mod tests {
    string_enum! {
        /// A test enum.
        pub enum Colour: "colour" {
            Red("red", 3),
            Blue("blue", 7),
        }
    }

    #[test]
    fn names_round_trip_and_codes_are_explicit() {
        for c in Colour::ALL {
            assert_eq!(c.as_str().parse::<Colour>().unwrap(), *c);
            assert_eq!(Colour::from_code(c.code()), Some(*c));
        }
        assert_eq!(Colour::Blue.code(), 7);
        assert_eq!(Colour::from_code(0), None);
        let e = "green".parse::<Colour>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "colour must be one of: red, blue (got \"green\")"
        );
        assert_eq!(serde_json::to_string(&Colour::Red).unwrap(), "\"red\"");
        assert_eq!(
            serde_json::from_str::<Colour>("\"blue\"").unwrap(),
            Colour::Blue
        );
        assert!(serde_json::from_str::<Colour>("\"Blue\"").is_err());
    }
}
