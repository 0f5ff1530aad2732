//! Reading JSON request bodies with the contract's errors: a body over the size limit is
//! `413 too_large`, malformed JSON or a missing field `400 bad_request` with serde's
//! description of what was wrong, a body that does not arrive within the request timeout
//! `503 overloaded`. (axum's own `Json` extractor answers with plain-text bodies, which
//! the contract does not allow.)

use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::net::offload;
use crate::state::AppState;
use canopy_room::refusal::Refusal;

/// A JSON body decoded into `T`. An empty body decodes as `{}`, so that bodies whose
/// fields are all optional may be left out.
#[derive(Debug)]
pub(super) struct JsonBody<T>(pub T);

impl<T: DeserializeOwned + Send + 'static> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let limit = state.config.max_body_bytes;
        let wait = state.config.request_timeout;
        let read = tokio::time::timeout(wait, axum::body::to_bytes(req.into_body(), limit));
        let bytes = read
            .await
            .map_err(|_| {
                Refusal::overloaded(format!(
                    "the body did not arrive within {} s",
                    wait.as_secs()
                ))
            })?
            .map_err(|e| {
                if is_length_limit(&e) {
                    Refusal::too_large(format!("the body is over the limit of {limit} bytes"))
                } else {
                    Refusal::bad_request(format!("could not read the body: {e}"))
                }
            })?;
        let bytes = if bytes.iter().all(is_json_whitespace) {
            bytes::Bytes::from_static(b"{}")
        } else {
            bytes
        };
        // serde would read a struct from a JSON array too (`[null, null]`); every body
        // of the contract is an object, so anything else is refused.
        if bytes.iter().find(|b| !is_json_whitespace(b)) != Some(&b'{') {
            return Err(Refusal::bad_request("the body must be a JSON object").into());
        }
        offload::decode(bytes, |b| canopy_protocol::codec::from_json::<T>(b))
            .await
            .map(JsonBody)
            .map_err(|e| {
                let refusal = Refusal::from(e);
                Refusal {
                    message: format!("could not read the JSON body: {}", refusal.message),
                    ..refusal
                }
            })
            .map_err(ApiError::from)
    }
}

/// axum reports a body over the limit as a `LengthLimitError` somewhere in its error's
/// source chain.
fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// JSON's whitespace: space, tab, line feed and carriage return (not form feed).
fn is_json_whitespace(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}
