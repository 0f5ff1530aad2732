//! The wire choices a scenario makes, as command-line values: the format of every
//! WebSocket, the transform encoding of the counting subscribers, and how queries
//! travel.
//!
//! Invariant: each value names exactly one protocol choice (`FormatArg::format` is the
//! one conversion).

use canopy_protocol::Format;
use clap::ValueEnum;
use serde::Serialize;

/// The wire format of every WebSocket the harness opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FormatArg {
    Bincode,
    Json,
}

impl FormatArg {
    pub(crate) fn format(self) -> Format {
        match self {
            FormatArg::Bincode => Format::Bincode,
            FormatArg::Json => Format::Json,
        }
    }
}

/// The transform encoding of the counting subscribers (`--encoding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum EncodingArg {
    Exact,
    Compact,
}

impl EncodingArg {
    /// The value as the flag and the contract spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            EncodingArg::Exact => "exact",
            EncodingArg::Compact => "compact",
        }
    }
}

/// How queries reach the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum QueryVia {
    /// `query` messages on WebSocket connections (in `--format`).
    Ws,
    /// `POST /rooms/{room}/query/{kind}` with JSON bodies.
    Http,
}
