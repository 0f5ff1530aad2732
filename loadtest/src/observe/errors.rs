//! [`ErrorTally`]: every error the run saw, counted by code.
//!
//! Codes are the contract's (`overloaded`, `unknown_node`, ...) when the server named
//! one, and the harness's own names otherwise (`timeout`, `disconnected`,
//! `tick_order`, `mirror_inconsistency`, ...). Invariant: any error anywhere in the run
//! lands here, because the run fails when the tally is not empty.

use std::collections::BTreeMap;
use std::sync::Mutex;

use canopy_client::ClientError;

/// Errors by code, shared by every task of the run.
#[derive(Debug, Default)]
pub(crate) struct ErrorTally {
    counts: Mutex<BTreeMap<String, u64>>,
}

impl ErrorTally {
    /// Counts one error under `code`.
    pub(crate) fn record(&self, code: &str) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        *counts.entry(code.to_string()).or_default() += 1;
    }

    /// Counts a client error under its code (see [`client_error_code`]) and logs it.
    pub(crate) fn record_client(&self, what: &str, error: &ClientError) {
        let code = client_error_code(error);
        tracing::debug!(%code, %error, "{what} failed");
        self.record(&code);
    }

    /// The counts so far.
    pub(crate) fn snapshot(&self) -> BTreeMap<String, u64> {
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The number of errors so far.
    pub(crate) fn total(&self) -> u64 {
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .sum()
    }
}

/// The code a client error is counted under.
/// Errors by code as a report shows them: `none`, or `code: count` joined by commas.
pub(crate) fn summary(counts: &BTreeMap<String, u64>) -> String {
    if counts.is_empty() {
        return "none".into();
    }
    counts
        .iter()
        .map(|(c, n)| format!("{c}: {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn client_error_code(error: &ClientError) -> String {
    match error {
        ClientError::Api { code, .. } => code.as_str().to_string(),
        ClientError::Timeout(_) => "timeout".into(),
        ClientError::Disconnected => "disconnected".into(),
        ClientError::Stopped(_) => "connection_stopped".into(),
        ClientError::Http(_) => "http_transport".into(),
        ClientError::WebSocket(_) => "websocket".into(),
        ClientError::Decode(_) => "decode".into(),
        ClientError::UnexpectedStatus { status, .. } => format!("http_{status}"),
        ClientError::UnexpectedReply(_) => "unexpected_reply".into(),
        _ => "client_error".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_code() {
        let t = ErrorTally::default();
        t.record("overloaded");
        t.record("overloaded");
        t.record_client("edit", &ClientError::Disconnected);
        assert_eq!(t.total(), 3);
        let s = t.snapshot();
        assert_eq!(s["overloaded"], 2);
        assert_eq!(s["disconnected"], 1);
    }
}
