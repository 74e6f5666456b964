//! The Memoir-compatible view of a slot (SPEC §5): a v2 blob whose `content`
//! joins the active entries oldest first with `"\n\n[update] "`, exactly as
//! the legacy append did, plus the v1 → v2 upgrade.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::{Error, ErrorCode, Result};
use crate::model::{Claim, Slot, Status};

pub const UPDATE_SEPARATOR: &str = "\n\n[update] ";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct BlobEntry {
    pub content: String,
    pub confidence: f64,
    /// Epoch seconds.
    pub timestamp: f64,
    pub status: Status,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Blob {
    pub key: String,
    pub content: String,
    pub confidence: f64,
    /// Epoch seconds.
    pub timestamp: f64,
    pub schema_version: u32,
    pub entries: Vec<BlobEntry>,
}

/// `content`, `confidence` and `timestamp` over `actives` (oldest first).
pub struct Projection {
    pub content: String,
    pub confidence: f64,
    pub timestamp: f64,
}

pub fn project(actives: &[Claim]) -> Projection {
    Projection {
        content: actives.iter().map(|c| c.object.as_str()).collect::<Vec<_>>().join(UPDATE_SEPARATOR),
        confidence: actives.iter().map(|c| c.stated_confidence).fold(0.0, f64::max),
        timestamp: actives.iter().map(|c| c.recorded_at.epoch_seconds()).fold(0.0, f64::max),
    }
}

pub fn blob_of(key: &str, slot: &Slot) -> Blob {
    let actives = slot.current_claims();
    let p = project(&actives);
    Blob {
        key: key.to_string(),
        content: p.content,
        confidence: p.confidence,
        timestamp: p.timestamp,
        schema_version: 2,
        // An erased claim (a tombstone) says nothing: it is no entry, so a
        // blob of this memory imports back as it was (an entry says something).
        entries: slot
            .claims
            .iter()
            .filter(|c| !c.object.is_empty())
            .map(|c| BlobEntry {
                content: c.object.clone(),
                confidence: c.stated_confidence,
                timestamp: c.recorded_at.epoch_seconds(),
                status: c.status,
            })
            .collect(),
    }
}

/// A blob's epoch-seconds timestamp read as a time: `None` for 0 ("not
/// known", a v1 blob's default); before 1970 or outside years 0–9999
/// (milliseconds read as seconds) is INVALID_TIME naming `field`.
pub fn blob_time(seconds: f64, field: &str) -> Result<Option<crate::time::Timestamp>> {
    if seconds < 0.0 {
        return Err(Error::new(ErrorCode::InvalidTime, format!("{field}: must be epoch seconds ≥ 0 (0: unknown, read as now), got {seconds}")).with_field(field));
    }
    if seconds == 0.0 {
        return Ok(None);
    }
    // `as` saturates, so a huge count still lands outside the range and is refused.
    crate::time::Timestamp::checked((seconds * 1000.0).round() as i64, field).map(Some)
}

fn malformed(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message).with_field("blob")
}

/// Lifts a bare v1 blob (`{ key, content, confidence?, timestamp? }`) to v2,
/// keeping unknown top-level fields. A v2 blob comes back unchanged.
pub fn upgrade_blob(blob: &Value) -> Result<Value> {
    let obj = blob.as_object().ok_or_else(|| malformed("blob: must be an object"))?;
    if let Some(v) = obj.get("schema_version") {
        return match v.as_u64() {
            Some(2) if obj.get("entries").is_some_and(Value::is_array) => Ok(blob.clone()),
            Some(2) => Err(malformed("blob.entries: a v2 blob needs an entries array")),
            _ => Err(malformed(format!("blob.schema_version: unsupported version {v}"))),
        };
    }
    // Lifting a v1 blob replaces `entries`: entries sent without the version
    // that reads them would be dropped without a word.
    if obj.get("entries").is_some_and(|e| !e.is_null()) {
        return Err(malformed("blob.schema_version: a blob with entries must say schema_version: 2 (a v1 blob has none)").with_field("blob.schema_version"));
    }
    let content = match obj.get("content") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err(malformed("blob.content: must be a string")),
    };
    let number = |field: &str, default: f64| -> Result<f64> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v.as_f64().ok_or_else(|| malformed(format!("blob.{field}: must be a number"))),
        }
    };
    let confidence = number("confidence", 1.0)?;
    if !(0.0..=1.0).contains(&confidence) {
        return Err(malformed("blob.confidence: must be from 0 to 1").with_field("blob.confidence"));
    }
    let timestamp = number("timestamp", 0.0)?;
    blob_time(timestamp, "blob.timestamp")?;
    if obj.get("key").is_some_and(|k| !k.is_string()) {
        return Err(malformed("blob.key: must be a string").with_field("blob.key"));
    }
    let mut out: Map<String, Value> = obj.clone();
    out.insert("content".into(), json!(content));
    out.insert("confidence".into(), json!(confidence));
    out.insert("timestamp".into(), json!(timestamp));
    out.insert("schema_version".into(), json!(2));
    let entries = if content.is_empty() {
        json!([])
    } else {
        json!([{ "content": content, "confidence": confidence, "timestamp": timestamp, "status": "active" }])
    };
    out.insert("entries".into(), entries);
    Ok(Value::Object(out))
}

/// The entries of an upgraded blob, validated.
pub fn entries_of(blob: &Value) -> Result<(String, Vec<BlobEntry>)> {
    let v2 = upgrade_blob(blob)?;
    let key = v2.get("key").and_then(Value::as_str).unwrap_or("").trim().to_string();
    if key.is_empty() {
        return Err(malformed("blob.key: is required to name the slot"));
    }
    let entries: Vec<BlobEntry> = serde_json::from_value(v2.get("entries").cloned().unwrap_or(json!([])))
        .map_err(|e| malformed(format!("blob.entries: {e}")))?;
    if key.contains(crate::model::KEY_SEPARATOR) {
        return Err(malformed("blob.key: must not contain U+001F (the unit separator), which credence keeps for its slot keys"));
    }
    for (i, e) in entries.iter().enumerate() {
        if !(0.0..=1.0).contains(&e.confidence) {
            return Err(malformed(format!("blob.entries[{i}].confidence: must be from 0 to 1")));
        }
        if e.content.trim().is_empty() {
            return Err(malformed(format!("blob.entries[{i}].content: must not be empty (an entry says something)")));
        }
    }
    Ok((key, entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upgrade_is_idempotent_and_keeps_unknown_fields() {
        let v1 = json!({ "key": "preferences.editor", "content": "vim", "owner": "ana" });
        let v2 = upgrade_blob(&v1).unwrap();
        assert_eq!(v2["schema_version"], 2);
        assert_eq!(v2["confidence"], 1.0);
        assert_eq!(v2["owner"], "ana");
        assert_eq!(v2["entries"][0]["content"], "vim");
        assert_eq!(v2["entries"][0]["status"], "active");
        assert_eq!(upgrade_blob(&v2).unwrap(), v2);
    }

    #[test]
    fn refuses_a_v1_blob_it_could_not_import() {
        let code = |v: Value| upgrade_blob(&v).unwrap_err();
        let e = code(json!({ "key": "k", "content": "x", "confidence": 1.5 }));
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some("blob.confidence")));
        let e = code(json!({ "key": "k", "content": "x", "timestamp": -1 }));
        assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidTime, Some("blob.timestamp")));
        let e = code(json!({ "key": 7, "content": "x" }));
        assert_eq!(e.field.as_deref(), Some("blob.key"));
    }

    #[test]
    fn refuses_what_is_not_a_blob() {
        assert!(upgrade_blob(&json!("text")).is_err());
        assert!(upgrade_blob(&json!({ "content": 3 })).is_err());
        assert!(upgrade_blob(&json!({ "schema_version": 7 })).is_err());
        assert!(entries_of(&json!({ "content": "x" })).is_err());
        // Entries without the version that reads them are refused, not dropped.
        let e = upgrade_blob(&json!({ "key": "notes", "content": "", "entries": [{ "content": "vim" }] })).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("blob.schema_version"));
    }
}
