//! Reading JSON request bodies with the contract's errors: a body over the size limit is
//! `413 too_large`, malformed JSON or a missing field `400 bad_request` with serde's
//! description of what was wrong. (axum's own `Json` extractor answers with its own
//! plain-text bodies, which the contract does not allow.)

use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::registry::AppState;

/// A JSON body decoded into `T`. An empty body decodes as `{}`, so that bodies whose
/// fields are all optional may be left out.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let limit = state.config.max_body_bytes;
        let bytes = axum::body::to_bytes(req.into_body(), limit)
            .await
            .map_err(|e| {
                // axum reports the limit as a `LengthLimitError` inside its error;
                // anything else is a broken body stream.
                if is_length_limit(&e) {
                    ApiError::too_large(format!("the body is over the limit of {limit} bytes"))
                } else {
                    ApiError::bad_request(format!("could not read the body: {e}"))
                }
            })?;
        let bytes: &[u8] = if bytes.iter().all(is_json_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        // serde would read a struct from a JSON array too (`[null, null]`); every body
        // of the contract is an object, so anything else is refused.
        if bytes.iter().find(|b| !is_json_whitespace(b)) != Some(&b'{') {
            return Err(ApiError::bad_request("the body must be a JSON object"));
        }
        canopy_protocol::codec::from_json(bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::new(e.code(), format!("could not read the JSON body: {e}")))
    }
}

fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.to_string().contains("length limit") {
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
