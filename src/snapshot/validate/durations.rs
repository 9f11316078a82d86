//! Karpenter's durations: `expireAfter` and `consolidateAfter` (`NillableDuration`) and
//! `terminationGracePeriod` (`metav1.Duration`) on NodePools and NodeClaims.
//!
//! Two gates, as upstream has them: the CRD's pattern (pkg/apis/v1/nodepool.go and
//! nodeclaim.go, `+kubebuilder:validation:Pattern`: `^(([0-9]+(s|m|h))+|Never)$` for the first
//! two, `^([0-9]+(s|m|h))+$` for the grace period), which the API server applies; and Go's
//! `time.ParseDuration`, which both types' `UnmarshalJSON` call and which refuses a value past
//! an int64 of nanoseconds (about 2,562,047 hours). A value that passes the pattern but not the
//! parser is stored by the API server and then unreadable to Karpenter: the object never
//! reaches its informer, so no replay of it would be Karpenter's.

/// The largest duration Go holds, in nanoseconds (`math.MaxInt64`).
const MAX_NANOS: u128 = i64::MAX as u128;

/// Why a duration is refused: the CRD's pattern, or Go's parser.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    Pattern,
    Overflow,
}

/// Checks one value; `never` allows `Never` (the `NillableDuration` fields).
pub(super) fn check(value: &str, never: bool) -> Result<(), Refusal> {
    if never && value == "Never" {
        return Ok(());
    }
    let nanos = nanos(value).ok_or(Refusal::Pattern)?;
    if nanos > MAX_NANOS {
        return Err(Refusal::Overflow);
    }
    Ok(())
}

/// The value's length in nanoseconds when it matches `^([0-9]+(s|m|h))+$` (saturating far past
/// [`MAX_NANOS`], so an overflow is seen, never wrapped).
fn nanos(value: &str) -> Option<u128> {
    if value.is_empty() {
        return None;
    }
    let mut total: u128 = 0;
    let mut digits: Option<u128> = None;
    for byte in value.bytes() {
        match byte {
            b'0'..=b'9' => {
                let d = u128::from(byte - b'0');
                digits = Some(digits.unwrap_or(0).saturating_mul(10).saturating_add(d));
            }
            b's' | b'm' | b'h' => {
                let unit: u128 = match byte {
                    b's' => 1_000_000_000,
                    b'm' => 60_000_000_000,
                    _ => 3_600_000_000_000,
                };
                total = total.saturating_add(digits.take()?.saturating_mul(unit));
            }
            _ => return None,
        }
    }
    // Digits without a unit at the end do not match the pattern.
    digits.is_none().then_some(total)
}

#[cfg(test)]
mod tests {
    use super::{check, Refusal};

    #[test]
    fn what_the_crd_pattern_accepts() {
        for ok in ["0s", "30s", "5m", "1h30m", "720h", "1h1m1s", "10m10m"] {
            assert_eq!(check(ok, false), Ok(()), "{ok}");
        }
        assert_eq!(check("Never", true), Ok(()));
        for bad in ["", "Never", "1.5h", "-1h", "1d", "30", "h", "1h ", "1H"] {
            assert_eq!(check(bad, false), Err(Refusal::Pattern), "{bad}");
        }
    }

    #[test]
    fn go_holds_2562047_hours_and_no_more() {
        assert_eq!(check("2562047h", false), Ok(()));
        assert_eq!(check("2562047h47m16s", false), Ok(()));
        assert_eq!(check("2562047h47m17s", false), Err(Refusal::Overflow));
        assert_eq!(check("2562048h", false), Err(Refusal::Overflow));
        assert_eq!(check(&format!("{}h", "9".repeat(5000)), true), Err(Refusal::Overflow));
    }
}
