//! Fuzz target: the bincode decoder of every client message never panics, never
//! allocates past its limit, and what it accepts round-trips exactly.
//!
//! Binary WebSocket frames carry a bincode [`ClientMsg`]; the reader decodes them with
//! `codec::decode_client(bytes, Format::Bincode)`, which this target calls. The same
//! input is also tried as the types nested in a message ([`Batch`], [`Query`]) so that
//! the fuzzer reaches their decoders with less structure to guess. A decoded value must
//! survive a round trip: encoding it and decoding the result gives the same bytes again
//! (f32 bit patterns, NaN included, are preserved).

#![no_main]

use canopy_protocol::Batch;
use canopy_protocol::codec::{self, Format};
use canopy_protocol::http::CreateRoom;
use canopy_protocol::query::Query;
use libfuzzer_sys::fuzz_target;

/// Decodes `$data` as `$ty` from bincode and checks what the module docs promise.
macro_rules! check_bincode {
    ($ty:ty, $data:expr) => {{
        match codec::from_bincode::<$ty>($data) {
            Ok(value) => {
                let bin = codec::to_bincode(&value);
                let back: $ty = codec::from_bincode(&bin).expect("re-encoded value decodes");
                assert_eq!(codec::to_bincode(&back), bin, "bincode round trip is exact");
                // JSON cannot carry NaN or infinity (serde_json writes `null`), so only
                // check that encoding does not panic.
                let _ = codec::to_json(&value);
            }
            Err(e) => {
                let _ = (e.code(), e.to_string());
            }
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    match codec::decode_client(data, Format::Bincode) {
        Ok(msg) => {
            let bin = codec::encode_client(&msg, Format::Bincode);
            let back = codec::decode_client(&bin, Format::Bincode).expect("re-encoded decodes");
            assert_eq!(codec::encode_client(&back, Format::Bincode), bin);
            let _ = codec::encode_client(&msg, Format::Json);
        }
        Err(e) => {
            let _ = (e.code(), e.to_string());
        }
    }
    check_bincode!(Batch, data);
    check_bincode!(Query, data);
    check_bincode!(CreateRoom, data);
});
