//! Times cross the boundary as ISO 8601 strings and live inside as UTC
//! milliseconds. Parsing accepts a date (`2026-06-01`), a year or a month
//! (`2026`, `2026-06`: their first instant), a timestamp with an offset, or a
//! timestamp without one (read as UTC); output is always a full UTC timestamp
//! such as `2026-06-01T00:00:00.000Z`.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorCode, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

pub const MS_PER_DAY: f64 = 86_400_000.0;
/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the years SPEC §11 accepts.
const MIN_MS: i64 = -62_167_219_200_000;
const MAX_MS: i64 = 253_402_300_799_999;

impl Timestamp {
    pub fn from_millis(ms: i64) -> Self {
        Timestamp(ms)
    }

    /// `ms` as a time, refused (`INVALID_TIME`, naming `field`) outside years
    /// 0–9999: a millisecond count read as seconds lands near year 55,000.
    pub fn checked(ms: i64, field: &str) -> Result<Self> {
        if (MIN_MS..=MAX_MS).contains(&ms) {
            return Ok(Timestamp(ms));
        }
        Err(Error::new(ErrorCode::InvalidTime, format!("{field}: {ms} ms since 1970 is outside years 0–9999 (seconds and milliseconds mixed up?)")).with_field(field))
    }

    pub fn millis(self) -> i64 {
        self.0
    }

    pub fn epoch_seconds(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Timestamp) -> f64 {
        (later.0 - self.0) as f64 / MS_PER_DAY
    }

    /// Parses an ISO 8601 date or timestamp; `field` names the input in errors.
    pub fn parse(text: &str, field: &str) -> Result<Self> {
        // Stored times never carry blanks: `trim` (Unicode-aware) stood out in a write's profile.
        let bare = |b: Option<&u8>| b.is_some_and(|c| c.is_ascii_graphic());
        let t = if bare(text.as_bytes().first()) && bare(text.as_bytes().last()) { text } else { text.trim() };
        if let Some(ms) = parse_plain(t) {
            return Timestamp::checked(ms, field);
        }
        match parse_chrono(t) {
            Some(ms) => Timestamp::checked(ms, field),
            None => Err(Error::new(
                ErrorCode::InvalidTime,
                format!("{field}: {text:?} is not an ISO 8601 date or timestamp"),
            )
            .with_field(field)),
        }
    }

    pub fn to_iso(self) -> String {
        match Utc.timestamp_millis_opt(self.0).single() {
            Some(d) => d.to_rfc3339_opts(SecondsFormat::Millis, true),
            None => format!("@{}ms", self.0),
        }
    }
}

/// Every accepted shape, through chrono: RFC 3339 (a space for the `T`
/// too), an offset without its colon (`+0200`), a timestamp without an
/// offset or without seconds (UTC), a date, and the reduced precisions of
/// ISO 8601 — a year (`2019`) or a month (`2019-07`), which stand for their
/// first instant (real data states when a fact began by year more often than
/// by day).
fn parse_chrono(t: &str) -> Option<i64> {
    let spaced = t.as_bytes().get(10) == Some(&b' ');
    let t = &if spaced { format!("{}T{}", &t[..10], &t[11..]) } else { t.to_string() };
    let utc = |n: NaiveDateTime| Utc.from_utc_datetime(&n);
    DateTime::parse_from_rfc3339(t)
        .or_else(|_| DateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f%z"))
        .map(|d| d.with_timezone(&Utc))
        .ok()
        .or_else(|| NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f").ok().map(utc))
        .or_else(|| NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M").ok().map(utc))
        .or_else(|| {
            let date = match t.len() {
                4 if t.bytes().all(|b| b.is_ascii_digit()) => format!("{t}-01-01"),
                7 if t.as_bytes()[4] == b'-' => format!("{t}-01"),
                _ => t.to_string(),
            };
            NaiveDate::parse_from_str(&date, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)).map(utc)
        })
        .map(|d| d.timestamp_millis())
}

/// The two shapes almost every stored time has — what `to_iso` writes
/// (`2026-06-01T00:00:00.000Z`) and a plain date (`2026-06-01`) — read by
/// fixed positions into chrono's constructors, without its format parser:
/// belief reads every observation's time on every write. Anything else
/// (offsets, other precisions, leap seconds, impossible dates) returns
/// `None` and goes through `parse_chrono`, so the answer is chrono's either way.
fn parse_plain(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    let num = |from: usize, len: usize| -> Option<u32> {
        b.get(from..from + len)?.iter().try_fold(0u32, |n, &d| d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0')))
    };
    if !matches!(b.len(), 10 | 24) || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(num(0, 4)? as i32, num(5, 2)?, num(8, 2)?)?;
    let time = if b.len() == 10 {
        date.and_hms_milli_opt(0, 0, 0, 0)
    } else if b[10] == b'T' && b[13] == b':' && b[16] == b':' && b[19] == b'.' && b[23] == b'Z' {
        date.and_hms_milli_opt(num(11, 2)?, num(14, 2)?, num(17, 2)?, num(20, 3)?)
    } else {
        None
    };
    Some(time?.and_utc().timestamp_millis())
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_iso())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse(&text, "time").map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_around_a_time_are_ignored() {
        for text in [" 2026-06-01", "2026-06-01\n", "\u{a0}2026-06-01T00:00:00.000Z\u{2003}"] {
            assert_eq!(Timestamp::parse(text, "t").unwrap().to_iso(), "2026-06-01T00:00:00.000Z", "{text:?}");
        }
    }

    #[test]
    fn parses_dates_and_timestamps_to_utc() {
        let d = Timestamp::parse("2026-06-01", "validFrom").unwrap();
        assert_eq!(d.to_iso(), "2026-06-01T00:00:00.000Z");
        let t = Timestamp::parse("2026-06-01T12:30:00+02:00", "t").unwrap();
        assert_eq!(t.to_iso(), "2026-06-01T10:30:00.000Z");
        let n = Timestamp::parse("2026-06-01T10:30:00", "t").unwrap();
        assert_eq!(n, t);
    }

    /// ISO 8601's reduced precisions and the spellings databases and other
    /// languages print; each reads as the instant it names (UTC when no offset).
    #[test]
    fn reads_reduced_precision_and_common_spellings() {
        for (text, iso) in [
            ("2019", "2019-01-01T00:00:00.000Z"),
            ("2019-07", "2019-07-01T00:00:00.000Z"),
            ("0000", "0000-01-01T00:00:00.000Z"),
            ("2024-03-05T10:00", "2024-03-05T10:00:00.000Z"),
            ("2024-03-05 10:00:00", "2024-03-05T10:00:00.000Z"),
            ("2024-03-05 10:00:00.5+02:00", "2024-03-05T08:00:00.500Z"),
            ("2024-03-05T10:00:00-0500", "2024-03-05T15:00:00.000Z"),
        ] {
            assert_eq!(Timestamp::parse(text, "t").map(Timestamp::to_iso).ok().as_deref(), Some(iso), "{text}");
        }
        for bad in ["19", "201", "20190", "2019-13", "2019-7", "2019-07-", "2024-02-30", "2024-03-05T25:00", "-2019", "1e10", "March 2019"] {
            assert!(Timestamp::parse(bad, "t").is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_times_outside_years_0_to_9999() {
        assert!(Timestamp::checked(253_402_300_799_999, "t").is_ok());
        let e = Timestamp::checked(1_700_000_000_000 * 1000, "blob.entries[0].timestamp").unwrap_err();
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidTime, Some("blob.entries[0].timestamp")));
        assert!(Timestamp::parse("0000-01-01", "t").is_ok());
    }

    /// The fast path answers exactly as chrono wherever it answers, and
    /// answers for every valid time in the two shapes it covers (a sweep of
    /// years, every month and day number 0–32, clock fields on and past their
    /// limits). Breaking `days_from_civil` or a range check fails here.
    #[test]
    fn plain_shapes_read_as_chrono_reads_them() {
        let (mut answered, mut valid) = (0, 0);
        let years = (0..=9999).step_by(97).chain([0, 1, 4, 100, 400, 1600, 1900, 1969, 1970, 2000, 2024, 2100, 9999]);
        for year in years {
            for month in 0..=13 {
                for day in 0..=32 {
                    let date = format!("{year:04}-{month:02}-{day:02}");
                    let clock = ["00:00:00.000", "23:59:59.999", "12:34:56.789", "24:00:00.000", "23:60:00.000", "23:59:60.000"][(day % 6) as usize];
                    for text in [date.clone(), format!("{date}T{clock}Z")] {
                        let fast = parse_plain(&text);
                        let slow = parse_chrono(&text);
                        if fast.is_some() {
                            assert_eq!(fast, slow, "{text}");
                            answered += 1;
                        }
                        // A leap second (":60") is left to chrono on purpose.
                        valid += usize::from(slow.is_some() && !text.contains(":60."));
                    }
                }
            }
        }
        assert_eq!(answered, valid, "the fast path left valid plain times to chrono");
        for odd in ["2026-06-01T10:30:00+02:00", "2026-06-01T10:30:00Z", "2026-06-01T10:30:00.5Z", "2026-6-01", "20260601", "2026-06-01t10:30:00.000z", "２026-06-01"] {
            assert_eq!(parse_plain(odd), None, "{odd}");
        }
    }

    #[test]
    fn refuses_garbage_naming_the_field() {
        let e = Timestamp::parse("next tuesday", "validFrom").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidTime);
        assert!(e.message.contains("validFrom"));
        assert_eq!(e.field.as_deref(), Some("validFrom"));
    }
}
