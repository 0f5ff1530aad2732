//! The bincode form of [`Query`], written by hand so that v1.2's `around` leaves v1.1
//! readers untouched: a sphere or nearest query measured from a point is variant 1 or 3
//! with the v1.1 fields, exactly as `#[derive(Encode)]` wrote it; one measured from a
//! node is variant 4 (`sphere_around { around: u32, radius: f32, mask: u32 }`) or 5
//! (`nearest_around { around: u32, k: u32, max_dist: Option<f32>, mask: u32 }`).
//!
//! A query that names neither origin, or both, has no bincode form: encoding it fails
//! rather than write something a reader would take for another query.

use bincode::de::{BorrowDecoder, Decoder};
use bincode::enc::Encoder;
use bincode::error::{AllowedEnumVariants, DecodeError, EncodeError};
use bincode::{BorrowDecode, Decode, Encode};

use crate::query::{NearestQuery, Origin, Query, SphereQuery};

impl Encode for Query {
    fn encode<E: Encoder>(&self, e: &mut E) -> Result<(), EncodeError> {
        let bad = |why: crate::query::OriginError| EncodeError::OtherString(why.to_string());
        match self {
            Query::Region(q) => {
                0u32.encode(e)?;
                q.encode(e)
            }
            Query::Sphere(q) => {
                match q.origin().map_err(bad)? {
                    Origin::Point(center) => {
                        1u32.encode(e)?;
                        center.encode(e)?;
                    }
                    Origin::Around(id) => {
                        4u32.encode(e)?;
                        id.encode(e)?;
                    }
                }
                q.radius.encode(e)?;
                q.mask.encode(e)
            }
            Query::Ray(q) => {
                2u32.encode(e)?;
                q.encode(e)
            }
            Query::Nearest(q) => {
                match q.origin().map_err(bad)? {
                    Origin::Point(point) => {
                        3u32.encode(e)?;
                        point.encode(e)?;
                    }
                    Origin::Around(id) => {
                        5u32.encode(e)?;
                        id.encode(e)?;
                    }
                }
                q.k.encode(e)?;
                q.max_dist.encode(e)?;
                q.mask.encode(e)
            }
        }
    }
}

impl<Ctx> Decode<Ctx> for Query {
    fn decode<D: Decoder<Context = Ctx>>(d: &mut D) -> Result<Query, DecodeError> {
        Ok(match u32::decode(d)? {
            0 => Query::Region(Decode::decode(d)?),
            v @ (1 | 4) => {
                let (center, around) = if v == 1 {
                    (Some(Decode::decode(d)?), None)
                } else {
                    (None, Some(Decode::decode(d)?))
                };
                Query::Sphere(SphereQuery {
                    center,
                    around,
                    radius: Decode::decode(d)?,
                    mask: Decode::decode(d)?,
                })
            }
            2 => Query::Ray(Decode::decode(d)?),
            v @ (3 | 5) => {
                let (point, around) = if v == 3 {
                    (Some(Decode::decode(d)?), None)
                } else {
                    (None, Some(Decode::decode(d)?))
                };
                Query::Nearest(NearestQuery {
                    point,
                    around,
                    k: Decode::decode(d)?,
                    max_dist: Decode::decode(d)?,
                    mask: Decode::decode(d)?,
                })
            }
            found => {
                return Err(DecodeError::UnexpectedVariant {
                    type_name: "Query",
                    allowed: &AllowedEnumVariants::Range { min: 0, max: 5 },
                    found,
                });
            }
        })
    }
}

impl<'de, Ctx> BorrowDecode<'de, Ctx> for Query {
    fn borrow_decode<D: BorrowDecoder<'de, Context = Ctx>>(
        d: &mut D,
    ) -> Result<Query, DecodeError> {
        Query::decode(d)
    }
}
