//! Budget schedules, parsed and stepped exactly as Karpenter's cron library does.
//!
//! Karpenter calls `cron.ParseStandard("TZ=UTC " + schedule)` (`pkg/apis/v1/nodepool.go`
//! `Budget.IsActive`) from robfig/cron v3.0.1. This module mirrors `parser.go`
//! (`Parser.Parse`, `normalizeFields`, `getField`, `getRange`, `parseDescriptor`), `spec.go`
//! (`SpecSchedule.Next`, `dayMatches`) and `constantdelay.go` (`Every`, `Next`):
//!
//! - five fields (minute 0–59, hour 0–23, day of month 1–31, month 1–12 or `jan`–`dec`, day of
//!   week 0–6 or `sun`–`sat`), each a comma list of `*`, `?`, `N`, `N-M`, with `/step`;
//!   `N/step` runs to the field's maximum; anything else (day of week `7`, `L`, `W`, `#`, six
//!   fields, a time zone of the user's own) is an error;
//! - `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly` and
//!   `@every <duration>`;
//! - day of month and day of week are ANDed when either field holds a `*` (a `*` with a step
//!   above 1 does not count), ORed otherwise;
//! - `Next` is strictly after its argument, at a whole second, and gives up after five years
//!   (upstream then returns Go's zero time, which `IsActive` reads as "active").
//!
//! We own this parser rather than constrain a general cron crate: the grammar is small, and the
//! crates we looked at differ from robfig in what they accept (day of week 7, `L`/`W`/`#`,
//! seconds) and in when day of month and day of week combine by AND or by OR.
//! Times are UTC throughout (Karpenter pins the zone), so daylight saving never applies.

use jiff::civil::{Date, DateTime, Time};
use jiff::{tz::TimeZone, SignedDuration, Timestamp, ToSpan};

/// Set when a field holds `*` or `?` (robfig's `starBit`).
const STAR: u64 = 1 << 63;

/// A parsed schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// Bit sets per field (bit N = value N), as robfig's `SpecSchedule` (seconds are always 0).
    Spec { minute: u64, hour: u64, dom: u64, month: u64, dow: u64 },
    /// `@every`: a constant delay of whole seconds (`ConstantDelaySchedule`).
    Every(SignedDuration),
}

struct Bounds {
    min: u32,
    max: u32,
    names: &'static [(&'static str, u32)],
}

const MINUTES: Bounds = Bounds { min: 0, max: 59, names: &[] };
const HOURS: Bounds = Bounds { min: 0, max: 23, names: &[] };
const DOM: Bounds = Bounds { min: 1, max: 31, names: &[] };
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[("sun", 0), ("mon", 1), ("tue", 2), ("wed", 3), ("thu", 4), ("fri", 5), ("sat", 6)],
};

/// The longest schedule read. robfig has no limit, but a standard spec needs at most a few
/// hundred characters (every minute listed once is 170); a longer one is refused rather than
/// parsed over and over by every budget evaluation (a forecast evaluates thousands).
pub(crate) const MAX_SCHEDULE_LEN: usize = 1024;

/// Parses a NodePool budget's `schedule` as `cron.ParseStandard("TZ=UTC " + schedule)` does.
/// Errors carry robfig's text, except for the length limit, which is ours.
pub(crate) fn parse_standard(schedule: &str) -> Result<Schedule, String> {
    if schedule.len() > MAX_SCHEDULE_LEN {
        return Err(format!(
            "schedule of {} characters is longer than the {MAX_SCHEDULE_LEN} this replay reads (kubectl-consolidation's limit, not Karpenter's)",
            schedule.len()
        ));
    }
    // After the `TZ=UTC ` prefix is cut at its space, robfig trims what follows.
    let spec = schedule.trim();
    if spec.starts_with('@') {
        return parse_descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!("expected exactly 5 fields, found {}: [{}]", fields.len(), fields.join(" ")));
    }
    Ok(Schedule::Spec {
        minute: field(fields[0], &MINUTES)?,
        hour: field(fields[1], &HOURS)?,
        dom: field(fields[2], &DOM)?,
        month: field(fields[3], &MONTHS)?,
        dow: field(fields[4], &DOW)?,
    })
}

fn parse_descriptor(descriptor: &str) -> Result<Schedule, String> {
    let all = |b: &Bounds| bits(b.min, b.max, 1) | STAR;
    let first = |b: &Bounds| 1u64 << b.min;
    let spec = |minute, hour, dom, month, dow| Schedule::Spec { minute, hour, dom, month, dow };
    match descriptor {
        "@yearly" | "@annually" => Ok(spec(1, 1, first(&DOM), first(&MONTHS), all(&DOW))),
        "@monthly" => Ok(spec(1, 1, first(&DOM), all(&MONTHS), all(&DOW))),
        "@weekly" => Ok(spec(1, 1, all(&DOM), all(&MONTHS), first(&DOW))),
        "@daily" | "@midnight" => Ok(spec(1, 1, all(&DOM), all(&MONTHS), all(&DOW))),
        "@hourly" => Ok(spec(1, all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW))),
        _ => match descriptor.strip_prefix("@every ") {
            // Go's `time.ParseDuration` grammar is read with jiff's (a superset).
            Some(d) => d
                .parse::<SignedDuration>()
                .map(|d| {
                    let d = d.max(SignedDuration::from_secs(1));
                    Schedule::Every(SignedDuration::from_secs(d.as_secs()))
                })
                .map_err(|e| format!("failed to parse duration {descriptor}: {e}")),
            None => Err(format!("unrecognized descriptor: {descriptor}")),
        },
    }
}

/// A comma list of ranges (`getField`); empty items are skipped, as Go's `FieldsFunc` does.
fn field(text: &str, b: &Bounds) -> Result<u64, String> {
    text.split(',').filter(|r| !r.is_empty()).try_fold(0, |acc, r| Ok(acc | range(r, b)?))
}

/// `number | number "-" number [ "/" number ]`, `*` or `?` (`getRange`).
fn range(expr: &str, b: &Bounds) -> Result<u64, String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let (start, mut end, mut extra) = if matches!(low_and_high[0], "*" | "?") {
        (b.min, b.max, STAR)
    } else {
        let start = int_or_name(low_and_high[0], b)?;
        let end = match low_and_high.len() {
            1 => start,
            2 => int_or_name(low_and_high[1], b)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        (start, end, 0)
    };
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = int(range_and_step[1])?;
            if single {
                end = b.max;
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < b.min {
        return Err(format!("beginning of range ({start}) below minimum ({}): {expr}", b.min));
    }
    if end > b.max {
        return Err(format!("end of range ({end}) above maximum ({}): {expr}", b.max));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {expr}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(bits(start, end, step) | extra)
}

fn int_or_name(expr: &str, b: &Bounds) -> Result<u32, String> {
    let lower = expr.to_lowercase();
    b.names.iter().find(|(n, _)| *n == lower).map_or_else(|| int(expr), |(_, v)| Ok(*v))
}

/// Go's `strconv.Atoi`, then robfig's refusal of negatives. Values beyond the bounds are
/// reported by the caller; anything past `u32` is clamped so that it is.
fn int(expr: &str) -> Result<u32, String> {
    let digits = expr.strip_prefix(['+', '-']).unwrap_or(expr);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!("failed to parse int from {expr}: strconv.Atoi: parsing {expr:?}: invalid syntax"));
    }
    let n: i64 = expr.parse().map_err(|_| format!("failed to parse int from {expr}: value out of range"))?;
    if n < 0 {
        return Err(format!("negative number ({n}) not allowed: {expr}"));
    }
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

fn bits(min: u32, max: u32, step: u32) -> u64 {
    (min..=max).step_by(step as usize).fold(0, |acc, i| acc | (1u64 << i))
}

fn has(set: u64, value: i8) -> bool {
    u8::try_from(value).is_ok_and(|v| set & (1u64 << v) != 0)
}

impl Schedule {
    /// The first hit strictly after `t` (`Schedule.Next`); `None` when a five-field schedule
    /// finds none within five years (robfig's zero time).
    pub fn next(&self, t: Timestamp) -> Option<Timestamp> {
        let whole = Timestamp::from_second(t.as_second()).ok()?;
        match *self {
            Schedule::Every(delay) => whole.checked_add(delay).ok(),
            Schedule::Spec { .. } => {
                // The earliest candidate is the next whole second; seconds must be 0.
                let from = whole.checked_add(SignedDuration::from_secs(1)).ok()?.to_zoned(TimeZone::UTC).datetime();
                let minute_start = if from.second() == 0 {
                    from
                } else {
                    from.with().second(0).build().ok()?.checked_add(1.minute()).ok()?
                };
                self.search(minute_start, true).and_then(utc)
            }
        }
    }

    /// The last hit at or before `t`, for showing when an open window closes. `None` for
    /// `@every` (it has no fixed hits) or when there is none within five years.
    pub fn previous(&self, t: Timestamp) -> Option<Timestamp> {
        match self {
            Schedule::Every(_) => None,
            Schedule::Spec { .. } => {
                let at = Timestamp::from_second(t.as_second()).ok()?.to_zoned(TimeZone::UTC).datetime();
                self.search(at.with().second(0).build().ok()?, false).and_then(utc)
            }
        }
    }

    /// The first matching minute at or after `from` (forward) or at or before it (backward).
    fn search(&self, from: DateTime, forward: bool) -> Option<DateTime> {
        let Schedule::Spec { minute, hour, dom, month, dow } = *self else { return None };
        let day_matches = |d: Date| {
            let by_month_day = has(dom, d.day());
            let by_weekday = has(dow, d.weekday().to_sunday_zero_offset());
            if dom & STAR != 0 || dow & STAR != 0 {
                by_month_day && by_weekday
            } else {
                by_month_day || by_weekday
            }
        };
        let limit = if forward { from.year() + 5 } else { from.year() - 5 };
        let mut day = from.date();
        let mut first = true;
        while if forward { day.year() <= limit } else { day.year() >= limit } {
            if has(month, day.month()) && day_matches(day) {
                let hours: Vec<i8> = if forward {
                    ((if first { from.hour() } else { 0 })..24).collect()
                } else {
                    (0..=(if first { from.hour() } else { 23 })).rev().collect()
                };
                for h in hours.into_iter().filter(|&h| has(hour, h)) {
                    let edge = first && h == from.hour();
                    let minutes: Vec<i8> = if forward {
                        ((if edge { from.minute() } else { 0 })..60).collect()
                    } else {
                        (0..=(if edge { from.minute() } else { 59 })).rev().collect()
                    };
                    if let Some(m) = minutes.into_iter().find(|&m| has(minute, m)) {
                        return Some(day.to_datetime(Time::new(h, m, 0, 0).ok()?));
                    }
                }
            }
            first = false;
            day = if forward { day.tomorrow().ok()? } else { day.yesterday().ok()? };
        }
        None
    }
}

fn utc(dt: DateTime) -> Option<Timestamp> {
    dt.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp())
}

#[cfg(test)]
mod tests {
    use super::{parse_standard, Schedule};
    use jiff::Timestamp;

    fn at(t: &str) -> Timestamp {
        t.parse().unwrap()
    }

    fn next(spec: &str, t: &str) -> Option<Timestamp> {
        parse_standard(spec).unwrap().next(at(t))
    }

    /// robfig `parser.go getRange` bounds: day of week is 0–6, so 7 is an error (and with it
    /// a budget that fails closed); names and `?` are accepted.
    #[test]
    fn grammar_is_robfigs() {
        assert_eq!(parse_standard("0 0 * * 7").unwrap_err(), "end of range (7) above maximum (6): 7");
        assert_eq!(parse_standard("* * * * 1-7").unwrap_err(), "end of range (7) above maximum (6): 1-7");
        assert!(parse_standard("0 9 ? JAN-mar mon-FRI").is_ok());
        assert_eq!(parse_standard("0 0 * *").unwrap_err(), "expected exactly 5 fields, found 4: [0 0 * *]");
        assert!(parse_standard("0 0 0 * * *").is_err(), "six fields");
        assert!(parse_standard("0 0 L * *").is_err());
        assert!(parse_standard("0 0 * * 1#2").is_err());
        assert_eq!(parse_standard("*/0 * * * *").unwrap_err(), "step of range should be a positive number: */0");
        assert_eq!(parse_standard("5-1 * * * *").unwrap_err(), "beginning of range (5) beyond end of range (1): 5-1");
        assert_eq!(parse_standard("0 0 0 * *").unwrap_err(), "beginning of range (0) below minimum (1): 0");
        assert_eq!(parse_standard("1-2-3 * * * *").unwrap_err(), "too many hyphens: 1-2-3");
        assert_eq!(parse_standard("@fortnightly").unwrap_err(), "unrecognized descriptor: @fortnightly");
        assert!(parse_standard("").is_err());
        let long = format!("{} * * * *", vec!["0"; 600].join(","));
        assert!(parse_standard(&long).unwrap_err().contains("longer than the 1024"), "bounded input");
        assert!(parse_standard("CRON_TZ=Europe/Paris 0 0 * * *").is_err(), "the zone is Karpenter's");
        assert_eq!(parse_standard(" @daily "), parse_standard("0 0 * * *"));
    }

    #[test]
    fn next_is_strictly_after_and_on_the_minute() {
        assert_eq!(next("0 22 * * *", "2026-11-30T22:00:00Z"), Some(at("2026-12-01T22:00:00Z")));
        assert_eq!(next("0 22 * * *", "2026-11-30T21:59:59.5Z"), Some(at("2026-11-30T22:00:00Z")));
        assert_eq!(next("*/15 * * * *", "2026-11-30T10:07:00Z"), Some(at("2026-11-30T10:15:00Z")));
        assert_eq!(next("5/20 * * * *", "2026-11-30T10:26:00Z"), Some(at("2026-11-30T10:45:00Z")));
        assert_eq!(next("@yearly", "2026-11-30T10:00:00Z"), Some(at("2027-01-01T00:00:00Z")));
        // 2026-11-29 is a Sunday.
        assert_eq!(next("@weekly", "2026-11-28T12:00:00Z"), Some(at("2026-11-29T00:00:00Z")));
    }

    /// robfig `spec.go dayMatches`: OR when neither day field is `*`, AND otherwise.
    #[test]
    fn day_of_month_and_week_combine_as_robfig() {
        // The 1st (a Tuesday in December 2026) or any Sunday: Sunday 2026-12-06 comes first
        // after the 1st.
        assert_eq!(next("0 0 1 * 0", "2026-12-01T00:00:00Z"), Some(at("2026-12-06T00:00:00Z")));
        // A star in day of week makes it AND: only the 1st.
        assert_eq!(next("0 0 1 * *", "2026-12-01T00:00:00Z"), Some(at("2027-01-01T00:00:00Z")));
        // `*/2` in day of month is not a star: OR again, so Sunday the 6th or an odd day (3rd).
        assert_eq!(next("0 0 */2 * 0", "2026-12-01T00:00:00Z"), Some(at("2026-12-03T00:00:00Z")));
    }

    #[test]
    fn never_firing_schedules_and_every() {
        assert_eq!(next("0 0 30 2 *", "2026-11-30T10:00:00Z"), None);
        let every = parse_standard("@every 90m").unwrap();
        assert_eq!(every, Schedule::Every(jiff::SignedDuration::from_mins(90)));
        assert_eq!(every.next(at("2026-11-30T10:00:00.25Z")), Some(at("2026-11-30T11:30:00Z")));
        assert_eq!(
            parse_standard("0 22 * * *").unwrap().previous(at("2026-12-01T01:30:00Z")),
            Some(at("2026-11-30T22:00:00Z"))
        );
    }
}
