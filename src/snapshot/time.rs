//! Kubernetes timestamps (`metav1.Time`, RFC 3339) as [`Timestamp`]s, whole range included.
//!
//! Kubernetes accepts any year up to 9999 (Go's `time.Time` holds them), but the date library
//! ends at 9999-12-30T22:00:00Z. A well-formed time beyond that end is clamped to it, so that
//! `9999-12-31T23:59:59Z` ("never", as some tools write it) reads as the latest instant held.

use jiff::Timestamp;
use serde::{Deserialize, Deserializer};

/// `deserialize_with` for an optional Kubernetes timestamp.
pub(super) fn k8s_time<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Timestamp>, D::Error> {
    match Option::<String>::deserialize(deserializer)? {
        None => Ok(None),
        Some(text) => parse(&text).map(Some).map_err(serde::de::Error::custom),
    }
}

/// Parses an RFC 3339 time; one past the library's end (year 9999) is its last instant.
pub(crate) fn parse(text: &str) -> Result<Timestamp, String> {
    text.parse::<Timestamp>().or_else(|e| {
        // The same text a year earlier parses: the form is right, only the range is not.
        match text.strip_prefix("9999-") {
            Some(rest) if format!("9998-{rest}").parse::<Timestamp>().is_ok() => Ok(Timestamp::MAX),
            _ => Err(format!("`{}` is not an RFC 3339 timestamp ({e})", crate::echo::capped(text))),
        }
    })
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;

    #[test]
    fn the_last_second_of_year_9999_is_the_latest_instant_held() {
        assert_eq!(super::parse("9999-12-31T23:59:59Z"), Ok(Timestamp::MAX));
        assert_eq!(super::parse("9999-12-31T23:59:59.999999999+00:00"), Ok(Timestamp::MAX));
        assert_eq!(super::parse("2026-11-29T10:00:00Z").unwrap().to_string(), "2026-11-29T10:00:00Z");
        assert!(super::parse("9999-13-31T23:59:59Z").is_err(), "month 13 is still wrong");
        assert!(super::parse("9999-12-31").is_err(), "a date alone is no timestamp");
        assert!(super::parse("yesterday").unwrap_err().contains("RFC 3339"));
    }
}
