//! Fuzz target: the JSON decoders of everything a client sends never panic.
//!
//! One input is tried as every client-facing JSON type: the WebSocket [`ClientMsg`] (via
//! `codec::decode_client`, exactly as the WebSocket reader calls it) and the HTTP bodies
//! ([`Batch`], the four query bodies, [`CreateRoom`]). A failed decode must still produce
//! an error code and message (the server sends both back). A successful decode must
//! encode again in both formats, and its bincode form must decode to the same bytes:
//! whatever the server accepts it can also echo (in acks, logs and tests).

#![no_main]

use canopy_protocol::codec::{self, Format};
use canopy_protocol::http::CreateRoom;
use canopy_protocol::query::{NearestQuery, Query, RayQuery, RegionQuery, SphereQuery};
use canopy_protocol::{Batch, ClientMsg};
use libfuzzer_sys::fuzz_target;

/// Decodes `$data` as `$ty` from JSON and checks what the module docs promise.
macro_rules! check_json {
    ($ty:ty, $data:expr) => {{
        match codec::from_json::<$ty>($data) {
            Ok(value) => {
                let _ = codec::to_json(&value);
                let bin = codec::to_bincode(&value);
                let back: $ty = codec::from_bincode(&bin).expect("bincode round trip decodes");
                assert_eq!(codec::to_bincode(&back), bin, "bincode round trip is exact");
            }
            Err(e) => {
                let _ = (e.code(), e.to_string());
            }
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    match codec::decode_client(data, Format::Json) {
        Ok(msg) => {
            let _ = codec::encode_client(&msg, Format::Json);
            let bin = codec::encode_client(&msg, Format::Bincode);
            let back = codec::decode_client(&bin, Format::Bincode).expect("bincode round trip");
            assert_eq!(codec::encode_client(&back, Format::Bincode), bin);
        }
        Err(e) => {
            let _ = (e.code(), e.to_string());
        }
    }
    check_json!(ClientMsg, data);
    check_json!(Batch, data);
    check_json!(Query, data);
    check_json!(RegionQuery, data);
    check_json!(SphereQuery, data);
    check_json!(RayQuery, data);
    check_json!(NearestQuery, data);
    check_json!(CreateRoom, data);
});
