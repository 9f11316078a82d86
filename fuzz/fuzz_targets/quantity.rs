//! Quantities: parsing never panics, and what parses prints back to the same value.
#![no_main]

use kubectl_consolidation::quantity::Quantity;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(q) = text.parse::<Quantity>() {
        let printed = q.to_string();
        assert_eq!(printed.parse::<Quantity>().ok(), Some(q), "{text} printed as {printed}");
        let _ = q.plus(q).minus(q).units_ceil();
    }
});
