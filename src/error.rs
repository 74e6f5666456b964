//! The one error type of the core. Codes are stable strings that reach JS as
//! `CredenceError.code`; a failure raised by user code (a store, a hook) is kept
//! as an opaque `cause` so the binding layer can hand the original object back.

use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// Stable error codes (SPEC §11). The string form is the public contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidInput,
    InvalidStrategy,
    InvalidTime,
    Concurrency,
    StoreFailed,
    MalformedStoreData,
    MergeHookMissing,
    HookFailed,
    ConflictNotFound,
    ConflictAlreadySettled,
    ConflictNotSettled,
    UndoStale,
    RandomSourceFailed,
    InvalidSettlement,
    ClaimNotFound,
    JudgeMissing,
    ClaimNotLive,
    /// A JS store written against ClaimStore v1 (no index methods).
    StoreV1,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 18] = [
        ErrorCode::InvalidInput, ErrorCode::InvalidStrategy, ErrorCode::InvalidTime, ErrorCode::Concurrency,
        ErrorCode::StoreFailed, ErrorCode::MalformedStoreData, ErrorCode::MergeHookMissing, ErrorCode::HookFailed,
        ErrorCode::ConflictNotFound, ErrorCode::ConflictAlreadySettled, ErrorCode::ConflictNotSettled, ErrorCode::UndoStale,
        ErrorCode::RandomSourceFailed, ErrorCode::InvalidSettlement, ErrorCode::ClaimNotFound, ErrorCode::JudgeMissing,
        ErrorCode::ClaimNotLive, ErrorCode::StoreV1,
    ];

    /// One of the stable codes (a store or hook may throw a CredenceError of its own making).
    pub fn is_known(code: &str) -> bool {
        Self::ALL.iter().any(|c| c.as_str() == code)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::InvalidStrategy => "INVALID_STRATEGY",
            ErrorCode::InvalidTime => "INVALID_TIME",
            ErrorCode::Concurrency => "CONCURRENCY",
            ErrorCode::StoreFailed => "STORE_FAILED",
            ErrorCode::MalformedStoreData => "MALFORMED_STORE_DATA",
            ErrorCode::MergeHookMissing => "MERGE_HOOK_MISSING",
            ErrorCode::HookFailed => "HOOK_FAILED",
            ErrorCode::ConflictNotFound => "CONFLICT_NOT_FOUND",
            ErrorCode::ConflictAlreadySettled => "CONFLICT_ALREADY_SETTLED",
            ErrorCode::ConflictNotSettled => "CONFLICT_NOT_SETTLED",
            ErrorCode::UndoStale => "UNDO_STALE",
            ErrorCode::RandomSourceFailed => "RANDOM_SOURCE_FAILED",
            ErrorCode::InvalidSettlement => "INVALID_SETTLEMENT",
            ErrorCode::ClaimNotFound => "CLAIM_NOT_FOUND",
            ErrorCode::JudgeMissing => "JUDGE_MISSING",
            ErrorCode::ClaimNotLive => "CLAIM_NOT_LIVE",
            ErrorCode::StoreV1 => "STORE_V1",
        }
    }
}

/// What user code threw, carried untouched (a `JsValue` on wasm).
pub type Cause = Rc<dyn Any>;

#[derive(Clone)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    /// The input field at fault, when there is one (`"predicate"`, `"provenance.sourceTrust"`).
    pub field: Option<String>,
    pub cause: Option<Cause>,
}

pub type Result<T> = std::result::Result<T, Error>;

/// Messages quote ids and values; a hostile one (a 5 MB "id") is cut, so an
/// error stays readable and cheap to log.
const MESSAGE_MAX: usize = 2_000;

fn bounded(mut message: String) -> String {
    if message.len() > MESSAGE_MAX {
        let cut = (0..=MESSAGE_MAX).rev().find(|&i| message.is_char_boundary(i)).unwrap_or(0);
        let rest = message.len() - cut;
        message.truncate(cut);
        message.push_str(&format!("… ({rest} more bytes)"));
    }
    message
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: bounded(message.into()), field: None, cause: None }
    }

    pub fn invalid(field: &str, message: impl fmt::Display) -> Self {
        Error {
            code: ErrorCode::InvalidInput,
            message: bounded(format!("{field}: {message}")),
            field: Some(field.to_string()),
            cause: None,
        }
    }

    pub fn with_field(mut self, field: &str) -> Self {
        self.field = Some(field.to_string());
        self
    }

    pub fn with_cause(mut self, cause: Cause) -> Self {
        self.cause = Some(cause);
        self
    }

    pub fn is(&self, code: ErrorCode) -> bool {
        self.code == code
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_on_a_char_boundary() {
        let id = "é".repeat(5_000);
        let e = Error::new(ErrorCode::ClaimNotFound, format!("no claim with id {id:?}"));
        assert!(e.message.len() < MESSAGE_MAX + 40, "{}", e.message.len());
        assert!(e.message.starts_with("no claim with id \"éé"));
        assert!(e.message.ends_with("more bytes)"));
        assert_eq!(Error::new(ErrorCode::ClaimNotFound, "short").message, "short");
    }
}
