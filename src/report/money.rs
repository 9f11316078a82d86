//! Money as documents print it: a fixed number of decimals, applied when a field is serialised
//! (`#[serde(serialize_with = "money::hourly")]`), so the replay and the text renderers keep
//! full precision and JSON/YAML carry no float noise (`1.92`, not `1.9199999999999997`).
//!
//! - $/h: 6 decimals. Karpenter's price tables and AWS's spot price history state prices to
//!   6 decimals (`0.031300`), so no figure a price source gives is cut.
//! - $/month (730 h): 2 decimals, cents.
//!
//! docs/DESIGN.md ("Money in documents") states the same contract.

use serde::{Serialize, Serializer};

/// A month as pricing pages count it (365 × 24 / 12): every `perMonth` figure.
pub(crate) const HOURS_PER_MONTH: f64 = 730.0;

/// Decimals of a $/h figure.
pub(crate) const HOURLY_DECIMALS: i32 = 6;
/// Decimals of a $/month figure.
pub(crate) const MONTHLY_DECIMALS: i32 = 2;

/// `value` rounded half away from zero to `decimals` places; the result is the `f64` nearest
/// that decimal, which serde_json prints in its shortest form. `-0.0` becomes `0.0` (a saving
/// of "minus nothing" reads as a sign error), and what is not finite is left alone.
pub(crate) fn round_to(value: f64, decimals: i32) -> f64 {
    if !value.is_finite() {
        return value;
    }
    let scale = 10f64.powi(decimals);
    let rounded = (value * scale).round() / scale;
    // Values so large that scaling overflows keep their own digits.
    let rounded = if rounded.is_finite() { rounded } else { value };
    rounded + 0.0
}

/// A money figure, or an optional one: the shapes money fields take.
pub(crate) trait Money {
    fn rounded(&self, decimals: i32) -> Self;
}

impl Money for f64 {
    fn rounded(&self, decimals: i32) -> Self {
        round_to(*self, decimals)
    }
}

impl Money for Option<f64> {
    fn rounded(&self, decimals: i32) -> Self {
        self.map(|v| round_to(v, decimals))
    }
}

/// Serialises a $/h figure with [`HOURLY_DECIMALS`].
pub(crate) fn hourly<T: Money + Serialize, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    value.rounded(HOURLY_DECIMALS).serialize(serializer)
}

/// Serialises a $/month figure with [`MONTHLY_DECIMALS`].
pub(crate) fn monthly<T: Money + Serialize, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    value.rounded(MONTHLY_DECIMALS).serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Priced {
        #[serde(serialize_with = "hourly")]
        per_hour: f64,
        #[serde(serialize_with = "hourly")]
        maybe: Option<f64>,
        #[serde(serialize_with = "monthly")]
        per_month: f64,
    }

    fn json(per_hour: f64, maybe: Option<f64>, per_month: f64) -> String {
        serde_json::to_string(&Priced { per_hour, maybe, per_month }).expect("serialises")
    }

    #[test]
    fn float_noise_is_gone_and_real_digits_stay() {
        // Ten nodes at $0.192/h, summed: the figure issue #36 quotes.
        let sum: f64 = std::iter::repeat_n(0.192, 10).sum();
        assert_eq!(sum.to_string(), "1.9199999999999997");
        assert_eq!(json(sum, Some(0.0313), sum * 730.0), r#"{"per_hour":1.92,"maybe":0.0313,"per_month":1401.6}"#);
        // A spot price to 6 decimals keeps them; a 7th is cut.
        assert_eq!(
            json(0.003_125, Some(0.000_000_4), 0.005),
            r#"{"per_hour":0.003125,"maybe":0.0,"per_month":0.01"#.to_owned() + "}"
        );
        assert_eq!(json(-0.192, None, -0.192 * 730.0), r#"{"per_hour":-0.192,"maybe":null,"per_month":-140.16}"#);
    }

    #[test]
    fn no_negative_zero_and_no_overflow() {
        assert_eq!(round_to(-0.000_000_1, HOURLY_DECIMALS).to_string(), "0");
        assert_eq!(round_to(f64::MAX, HOURLY_DECIMALS).to_bits(), f64::MAX.to_bits());
        assert!(round_to(f64::NAN, MONTHLY_DECIMALS).is_nan());
        assert_eq!(round_to(f64::INFINITY, MONTHLY_DECIMALS).to_bits(), f64::INFINITY.to_bits());
    }
}
