//! Times cross the boundary as ISO 8601 strings and live inside as UTC
//! milliseconds. Parsing accepts a date (`2026-06-01`), a timestamp with an
//! offset, or a timestamp without one (read as UTC); output is always a full
//! UTC timestamp such as `2026-06-01T00:00:00.000Z`.

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
        let t = text.trim();
        let parsed = DateTime::parse_from_rfc3339(t)
            .map(|d| d.with_timezone(&Utc))
            .ok()
            .or_else(|| {
                NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f")
                    .ok()
                    .map(|n| Utc.from_utc_datetime(&n))
            })
            .or_else(|| {
                NaiveDate::parse_from_str(t, "%Y-%m-%d")
                    .ok()
                    .and_then(|d| d.and_hms_opt(0, 0, 0))
                    .map(|n| Utc.from_utc_datetime(&n))
            });
        match parsed {
            Some(d) => Timestamp::checked(d.timestamp_millis(), field),
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
    fn parses_dates_and_timestamps_to_utc() {
        let d = Timestamp::parse("2026-06-01", "validFrom").unwrap();
        assert_eq!(d.to_iso(), "2026-06-01T00:00:00.000Z");
        let t = Timestamp::parse("2026-06-01T12:30:00+02:00", "t").unwrap();
        assert_eq!(t.to_iso(), "2026-06-01T10:30:00.000Z");
        let n = Timestamp::parse("2026-06-01T10:30:00", "t").unwrap();
        assert_eq!(n, t);
    }

    #[test]
    fn refuses_times_outside_years_0_to_9999() {
        assert!(Timestamp::checked(253_402_300_799_999, "t").is_ok());
        let e = Timestamp::checked(1_700_000_000_000 * 1000, "blob.entries[0].timestamp").unwrap_err();
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidTime, Some("blob.entries[0].timestamp")));
        assert!(Timestamp::parse("0000-01-01", "t").is_ok());
    }

    #[test]
    fn refuses_garbage_naming_the_field() {
        let e = Timestamp::parse("next tuesday", "validFrom").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidTime);
        assert!(e.message.contains("validFrom"));
        assert_eq!(e.field.as_deref(), Some("validFrom"));
    }
}
