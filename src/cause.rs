//! An operating system error kept as the cause of an error that is cloned
//! and compared: a batch's per-item outcomes (an unreadable input, a model
//! program that could not be talked to) carry their error in values that
//! are copied and tested for equality, which `std::io::Error` is not.
//!
//! [`IoCause`] shares the error and says what it says; its own cause is the
//! error itself, so a walk down an error's causes (`ops::LoreError::class`
//! looking for a full disk) reaches the `std::io::Error` and its kind. It
//! owns nothing else, and decides nothing.

use std::sync::Arc;

/// An `std::io::Error`, shared: cloned cheaply, compared by its kind and
/// what it says.
#[derive(Clone, Debug)]
pub struct IoCause(Arc<std::io::Error>);

impl IoCause {
    /// The error kept.
    pub fn io(&self) -> &std::io::Error {
        &self.0
    }
}

impl From<std::io::Error> for IoCause {
    fn from(e: std::io::Error) -> IoCause {
        IoCause(Arc::new(e))
    }
}

impl std::fmt::Display for IoCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for IoCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

impl PartialEq for IoCause {
    fn eq(&self, other: &IoCause) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for IoCause {}

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
        assert_ne!(c, IoCause::from(io::Error::from_raw_os_error(13)));
    }
}
