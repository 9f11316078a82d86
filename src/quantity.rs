//! Kubernetes resource quantities as exact integers.
//!
//! A quantity is held in milli-units (`1` CPU = `1000`, `1Ki` = `1_024_000`), as `i128` so that
//! every suffix up to `Ei` and every decimal exponent the API server accepts fits without
//! rounding. Fractions below one milli-unit round up, as `resource.Quantity.MilliValue` does.
//! Serialises back to a canonical string that parses to the same value, so snapshots round-trip.

use std::fmt;
use std::str::FromStr;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// A resource quantity in exact milli-units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quantity(i128);

/// Why a quantity string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a Kubernetes quantity (expected e.g. `500m`, `2`, `1.5Gi`, `1e3`)")]
pub struct QuantityError {
    /// The text that failed.
    pub input: String,
}

impl Quantity {
    /// Zero.
    pub const ZERO: Quantity = Quantity(0);

    /// A quantity of `milli` thousandths.
    pub const fn from_milli(milli: i128) -> Self {
        Quantity(milli)
    }

    /// A whole-unit quantity (`pods: 110`, bytes).
    pub const fn from_units(units: i128) -> Self {
        Quantity(units * 1000)
    }

    /// The value in milli-units.
    pub const fn milli(self) -> i128 {
        self.0
    }

    /// The value in whole units, rounded up (as `Quantity.Value`).
    pub fn units_ceil(self) -> i128 {
        self.0.div_euclid(1000) + i128::from(self.0.rem_euclid(1000) != 0)
    }

    /// The value as a float of whole units, for display and ratios only.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    /// Saturating addition.
    #[must_use]
    pub fn plus(self, other: Quantity) -> Quantity {
        Quantity(self.0.saturating_add(other.0))
    }

    /// Saturating subtraction (may go negative, as the scheduler's arithmetic does).
    #[must_use]
    pub fn minus(self, other: Quantity) -> Quantity {
        Quantity(self.0.saturating_sub(other.0))
    }
}

const BINARY: [(&str, u32); 6] = [("Ki", 10), ("Mi", 20), ("Gi", 30), ("Ti", 40), ("Pi", 50), ("Ei", 60)];
const DECIMAL: [(&str, i32); 9] =
    [("n", -9), ("u", -6), ("m", -3), ("k", 3), ("M", 6), ("G", 9), ("T", 12), ("P", 15), ("E", 18)];

impl FromStr for Quantity {
    type Err = QuantityError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        parse(input.trim()).ok_or_else(|| QuantityError { input: input.to_owned() })
    }
}

/// Parses `<sign><digits>[.<digits>]<suffix>` into milli-units.
///
/// apimachinery's `ParseQuantity` (resource/quantity.go) holds any decimal exactly (inf.Dec),
/// so `1e2147483647` is a real, enormous value there. Ours saturates at `i128`'s range, which is
/// still larger than any node, so it compares the same way. The exponent is read as
/// `suffixHandler.interpret` (resource/suffix.go) reads it: an int64, then truncated to int32.
fn parse(text: &str) -> Option<Quantity> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let number_end = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
    let (number, suffix) = body.split_at(number_end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
        return None;
    }
    let mut exponent10: i64 = -(fraction.len() as i64);
    let mut binary_shift = 0;
    if let Some((_, shift)) = BINARY.iter().find(|(s, _)| *s == suffix) {
        binary_shift = *shift;
    } else if let Some((_, exp)) = DECIMAL.iter().find(|(s, _)| *s == suffix) {
        exponent10 += i64::from(*exp);
    } else if let Some(exp) = suffix.strip_prefix(['e', 'E']) {
        if exp.is_empty() || !exp.trim_start_matches(['+', '-']).bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        exponent10 += i64::from(exp.parse::<i64>().ok()? as i32);
    } else if !suffix.is_empty() {
        return None;
    }
    exponent10 += 3;
    // Up to 39 significant digits fit an i128 (38 always do); later ones only decide a round-up.
    // 39 matters: a saturated value prints as 39 digits of milli-units and must read back.
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let (kept, mantissa) = match digits[..digits.len().min(39)].parse::<i128>() {
        _ if digits.is_empty() => (0, 0),
        Ok(m) => (digits.len().min(39), m),
        Err(_) => (38, digits[..38].parse().ok()?),
    };
    let dropped_nonzero = digits[kept..].bytes().any(|b| b != b'0');
    exponent10 += (digits.len() - kept) as i64;
    let scaled = mantissa.saturating_mul(1i128 << binary_shift);
    let milli = if scaled == 0 && !dropped_nonzero {
        0
    } else if exponent10 >= 0 {
        u32::try_from(exponent10)
            .ok()
            .and_then(|e| 10i128.checked_pow(e))
            .map_or(i128::MAX, |p| scaled.saturating_mul(p))
    } else {
        let divisor = u32::try_from(-exponent10).ok().and_then(|e| 10i128.checked_pow(e));
        match divisor {
            Some(d) => scaled / d + i128::from(scaled % d != 0 || dropped_nonzero),
            // Smaller than a milli-unit but not zero: rounds up, as MilliValue does.
            None => 1,
        }
    };
    Some(Quantity(if negative { -milli } else { milli }))
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let milli = self.0;
        if milli % 1000 != 0 {
            return write!(f, "{milli}m");
        }
        let units = milli / 1000;
        if units != 0 {
            for (suffix, shift) in BINARY.iter().rev() {
                let base = 1i128 << shift;
                if units % base == 0 {
                    return write!(f, "{}{suffix}", units / base);
                }
            }
        }
        write!(f, "{units}")
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = Quantity;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Kubernetes quantity such as \"500m\" or \"2Gi\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
                v.parse().map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::from_units(i128::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity::from_units(i128::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Quantity, E> {
                v.to_string().parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::Quantity;
    use proptest::prelude::*;

    fn milli(text: &str) -> i128 {
        text.parse::<Quantity>().unwrap().milli()
    }

    #[test]
    fn parses_cpu_forms() {
        assert_eq!(milli("500m"), 500);
        assert_eq!(milli("2"), 2_000);
        assert_eq!(milli("1.5"), 1_500);
        assert_eq!(milli("0.1"), 100);
        assert_eq!(milli("100u"), 1);
    }

    #[test]
    fn parses_memory_forms() {
        assert_eq!(milli("1Ki"), 1_024_000);
        assert_eq!(milli("1.5Gi"), 1_610_612_736_000);
        assert_eq!(milli("1e3"), 1_000_000);
        assert_eq!(milli("1E3"), 1_000_000);
        assert_eq!(milli("128974848"), 128_974_848_000);
        assert_eq!(milli("129M"), 129_000_000_000);
        assert_eq!(milli("8Ei"), 8 * (1i128 << 60) * 1000);
    }

    #[test]
    fn huge_and_tiny_exponents_saturate_or_round_up_never_wrap() {
        // `1e2147483647` once wrapped to `1m`; apimachinery holds it exactly: more than any node.
        assert_eq!(milli("1e2147483647"), i128::MAX);
        assert_eq!(milli("-1e2147483647"), -i128::MAX);
        assert_eq!(milli("1e-2147483647"), 1);
        assert_eq!(milli("0e2147483647"), 0);
        assert_eq!(milli("1e40"), i128::MAX);
        // suffix.go interpret: ParseInt(…, 64) then int32(…): 2^32 + 3 reads as 3.
        assert_eq!(milli("1e4294967299"), 1_000_000);
        assert!("1e99999999999999999999".parse::<Quantity>().is_err());
        // More digits than an i128 holds: kept exactly as far as they go, the rest rounds up.
        assert_eq!(milli(&format!("0.{}1", "0".repeat(60))), 1);
        assert_eq!(milli(&format!("1{}", "0".repeat(60))), i128::MAX);
        assert_eq!(milli(&format!("{}1", "0".repeat(60))), 1000);
        assert_eq!(milli("1e+3"), 1_000_000);
        // Found by the fuzzer: the saturated value must print and read back exactly.
        for text in ["1e2147483647", "-1e2147483647", "170141183460469231731687303715884105727m"] {
            let q: Quantity = text.parse().unwrap();
            assert_eq!(q.to_string().parse::<Quantity>().unwrap(), q, "{text}");
        }
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["lots", "", "1Qi", "--1", "1.2.3", "Gi", ".", "1e", "1e+", "1e1.5", "1ex"] {
            assert!(bad.parse::<Quantity>().is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn accepts_bare_yaml_numbers() {
        let q: Quantity = serde_json::from_str("2").unwrap();
        assert_eq!(q.milli(), 2_000);
        let q: Quantity = serde_json::from_str("0.5").unwrap();
        assert_eq!(q.milli(), 500);
    }

    #[test]
    fn displays_canonically() {
        assert_eq!("1024Mi".parse::<Quantity>().unwrap().to_string(), "1Gi");
        assert_eq!("1500m".parse::<Quantity>().unwrap().to_string(), "1500m");
        assert_eq!("3".parse::<Quantity>().unwrap().to_string(), "3");
        assert_eq!("0".parse::<Quantity>().unwrap().to_string(), "0");
    }

    proptest! {
        #[test]
        fn display_round_trips(m in -1_000_000_000_000_000i128..1_000_000_000_000_000i128) {
            let q = Quantity::from_milli(m);
            prop_assert_eq!(q.to_string().parse::<Quantity>().unwrap(), q);
        }
    }
}
