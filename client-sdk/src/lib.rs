//! Canopy client SDK (see issue 5).
