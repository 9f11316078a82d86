//! How much of a value read from the input a message echoes.

/// At most this many characters of a value from the input are echoed in a message.
pub(crate) const ECHO_LIMIT: usize = 64;

/// `value` as a message echoes it: whole when short, else its first [`ECHO_LIMIT`] characters
/// and how long it was (a 5,000-digit version is not printed whole).
pub(crate) fn capped(value: &str) -> String {
    let count = value.chars().count();
    if count <= ECHO_LIMIT {
        return value.to_owned();
    }
    let head: String = value.chars().take(ECHO_LIMIT).collect();
    format!("{head}… ({count} characters)")
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_values_are_cut_and_measured() {
        assert_eq!(super::capped("v1.14.0"), "v1.14.0");
        let long = "9".repeat(5000);
        let shown = super::capped(&long);
        assert!(shown.starts_with(&"9".repeat(64)) && shown.ends_with("… (5000 characters)"), "{shown}");
        assert!(shown.chars().count() < 100);
    }
}
