//! One way to print durations and money in every text answer.

/// Seconds in a human form, the two largest units: `45s`, `1m 30s`, `2h 5m`, `2d 4h`.
pub(crate) fn duration(seconds: i64) -> String {
    const UNITS: [(i64, &str); 4] = [(86_400, "d"), (3_600, "h"), (60, "m"), (1, "s")];
    if seconds <= 0 {
        return "0s".to_owned();
    }
    let mut left = seconds;
    let mut parts = Vec::new();
    for (size, unit) in UNITS {
        if left >= size && parts.len() < 2 {
            parts.push(format!("{}{unit}", left / size));
            left %= size;
        } else if !parts.is_empty() {
            // Two units at most, and adjacent ones: `2d 4h`, not `2d 30s`.
            break;
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::duration;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(0), "0s");
        assert_eq!(duration(45), "45s");
        assert_eq!(duration(60), "1m");
        assert_eq!(duration(90), "1m 30s");
        assert_eq!(duration(3_600 * 2 + 300), "2h 5m");
        assert_eq!(duration(86_400 * 2 + 3_600 * 4 + 59), "2d 4h");
        assert_eq!(duration(86_400 + 30), "1d");
        assert_eq!(duration(60_584 * 3_600 + 300), "2524d 8h");
    }
}
