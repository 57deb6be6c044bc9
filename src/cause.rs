//! An error kept as the cause of an error that is cloned and compared: a
//! batch's per-item outcomes (an unreadable input, a model program that
//! could not be talked to) and review's refusals are values that are copied
//! and tested for equality, which `std::io::Error` and `serde_json::Error`
//! are not.
//!
//! [`Shared`] shares the error and says what it says; its own cause is the
//! error itself, so a walk down an error's causes (`ops::LoreError::class`
//! looking for a full disk) reaches the `std::io::Error` and its kind. It
//! owns nothing else, and decides nothing.

use std::sync::Arc;

/// An error, shared: cloned cheaply, compared by what it says.
pub struct Shared<E: ?Sized>(Arc<E>);

/// An operating system error, shared.
pub type IoCause = Shared<std::io::Error>;

/// Any error, shared (a parse error of a type chosen by the caller).
pub type AnyCause = Shared<dyn std::error::Error + Send + Sync>;

impl<E: ?Sized> Shared<E> {
    /// The error kept.
    pub fn error(&self) -> &E {
        &self.0
    }
}

impl AnyCause {
    /// Keeps `e`, whatever its type.
    pub fn any(e: impl std::error::Error + Send + Sync + 'static) -> AnyCause {
        Shared(Arc::new(e))
    }
}

impl<E: ?Sized> Clone for Shared<E> {
    fn clone(&self) -> Shared<E> {
        Shared(Arc::clone(&self.0))
    }
}

impl<E> From<E> for Shared<E> {
    fn from(e: E) -> Shared<E> {
        Shared(Arc::new(e))
    }
}

impl<E: std::fmt::Debug + ?Sized> std::fmt::Debug for Shared<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: std::fmt::Display + ?Sized> std::fmt::Display for Shared<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: std::error::Error + 'static> std::error::Error for Shared<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

impl std::error::Error for AnyCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

impl<E: std::fmt::Display + ?Sized> PartialEq for Shared<E> {
    fn eq(&self, other: &Shared<E>) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl<E: std::fmt::Display + ?Sized> Eq for Shared<E> {}

#[cfg(test)]
mod tests {
    use super::IoCause;
    use std::error::Error;
    use std::io;

    #[test]
    fn it_says_what_the_error_says_and_leads_to_it() {
        let c = IoCause::from(io::Error::from_raw_os_error(28));
        assert_eq!(c.to_string(), io::Error::from_raw_os_error(28).to_string());
        let inner = c.source().and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(inner.and_then(io::Error::raw_os_error), Some(28));
        assert_eq!(c.clone(), c);
        assert_eq!(c, IoCause::from(io::Error::from_raw_os_error(28)));
        assert_ne!(c, IoCause::from(io::Error::from_raw_os_error(13)));
    }
}
