//! The per-room snapshot file format: plain data, CRC32C-checked.
//!
//! File `snap/<room>.<seq:020>.snap`, all integers little-endian:
//!
//! | bytes       | field                                                        |
//! |-------------|--------------------------------------------------------------|
//! | 0..8        | magic `CANOPYSN`                                             |
//! | 8..10       | format version, u16 = 1                                      |
//! | 10          | checksum algorithm, u8: 1 = CRC32C                           |
//! | 11          | reserved, 0                                                  |
//! | 12..20      | body length B, u64                                           |
//! | 20..20+B    | body                                                         |
//! | 20+B..24+B  | CRC32C of bytes 0..20+B                                      |
//!
//! Body: room str8, tick_hz u32, created_ms u64, editor opt, viewer opt (as in the log),
//! created_seq u64 (the seq of the room's `created` record: which incarnation of the id
//! this is), seq u64 (the seq of the room's last record the snapshot reflects), tick u64,
//! time_ms u64, next_id u64 (the next server-assigned id), node count u64, the nodes,
//! retired range count u64, the ranges.
//!
//! A node is 57 bytes: id u32, has_parent u8 (0 or 1), parent u32 (0 if none), t 3×f32,
//! r 4×f32, s f32, extent 3×f32, mask u32. Nodes come parent before child. Retired ids
//! (removed, never to be reused) are inclusive ranges `first u32, last u32`, sorted and
//! disjoint.
//!
//! Invariant: [`decode`] accepts exactly what [`encode`] produces: a CRC match, every
//! length consistent, nodes unique and parent-first, ranges sorted, disjoint and free of
//! live ids; floats are kept as bits.

use rustc_hash::FxHashSet;

use super::bytes::{Put, ReadError, Reader};
use super::record::RoomMeta;

const MAGIC: &[u8; 8] = b"CANOPYSN";
const FORMAT_VERSION: u16 = 1;
const CHECKSUM_CRC32C: u8 = 1;
const HEADER_LEN: usize = 20;
/// Bytes of one node in a snapshot.
pub(super) const NODE_LEN: usize = 57;

/// A live node as a snapshot keeps it.
#[derive(Clone, Copy, Debug)]
pub struct SnapNode {
    /// The node's id.
    pub id: u32,
    /// Its parent's id; `None` for a root.
    pub parent: Option<u32>,
    /// Local translation.
    pub t: [f32; 3],
    /// Local rotation, a unit quaternion `[x, y, z, w]`.
    pub r: [f32; 4],
    /// Local uniform scale.
    pub s: f32,
    /// Half-sizes of the node's box.
    pub extent: [f32; 3],
    /// Layer bits.
    pub mask: u32,
}

impl PartialEq for SnapNode {
    /// Bitwise on the floats: a snapshot must give back the very bits it was given.
    fn eq(&self, o: &Self) -> bool {
        let bits = |n: &SnapNode| {
            let mut v = Vec::with_capacity(11);
            v.extend(n.t.iter().map(|f| f.to_bits()));
            v.extend(n.r.iter().map(|f| f.to_bits()));
            v.push(n.s.to_bits());
            v.extend(n.extent.iter().map(|f| f.to_bits()));
            v
        };
        self.id == o.id && self.parent == o.parent && self.mask == o.mask && bits(self) == bits(o)
    }
}

/// What a room hands over for a snapshot: its scene and counters after its last record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoomState {
    /// The room's tick counter.
    pub tick: u64,
    /// That tick's time, milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// Where the search for the next server-assigned id starts.
    pub next_id: u64,
    /// Every live node, parent before child.
    pub nodes: Vec<SnapNode>,
    /// Retired ids as sorted, disjoint, inclusive ranges.
    pub retired: Vec<(u32, u32)>,
}

/// A snapshot file's content.
#[derive(Clone, Debug, PartialEq)]
pub struct RoomSnapshot {
    /// The room's id, rate, tokens and creation time.
    pub meta: RoomMeta,
    /// The seq of the room's `created` record.
    pub created_seq: u64,
    /// The seq of the room's last record reflected here.
    pub seq: u64,
    /// The room's scene and counters as of `seq`.
    pub state: RoomState,
}

/// The file name of a snapshot.
pub fn file_name(room: &str, seq: u64) -> String {
    format!("{room}.{seq:020}.snap")
}

/// The room and seq of a snapshot file name, if it is one. Room ids have no `.`.
pub fn parse_file_name(name: &str) -> Option<(String, u64)> {
    let stem = name.strip_suffix(".snap")?;
    let (room, seq) = stem.split_once('.')?;
    if room.is_empty() || seq.len() != 20 || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((room.to_string(), seq.parse().ok()?))
}

/// Turns a list of ids into sorted, disjoint, inclusive ranges.
pub fn ranges_of(ids: impl IntoIterator<Item = u32>) -> Vec<(u32, u32)> {
    let mut ids: Vec<u32> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut out: Vec<(u32, u32)> = Vec::new();
    for id in ids {
        match out.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(id) => *last = id,
            _ => out.push((id, id)),
        }
    }
    out
}

/// The bytes of a snapshot file.
pub fn encode(snap: &RoomSnapshot) -> Vec<u8> {
    let s = &snap.state;
    let mut out = Vec::with_capacity(HEADER_LEN + 128 + s.nodes.len() * NODE_LEN);
    out.extend_from_slice(MAGIC);
    out.put_u16(FORMAT_VERSION);
    out.put_u8(CHECKSUM_CRC32C);
    out.put_u8(0);
    out.put_u64(0); // the body length, filled in below
    let m = &snap.meta;
    out.put_str8(&m.id);
    out.put_u32(m.tick_hz);
    out.put_u64(m.created_ms);
    out.put_opt_str(m.editor_token.as_deref());
    out.put_opt_str(m.viewer_token.as_deref());
    out.put_u64(snap.created_seq);
    out.put_u64(snap.seq);
    out.put_u64(s.tick);
    out.put_u64(s.time_ms);
    out.put_u64(s.next_id);
    out.put_u64(s.nodes.len() as u64);
    for n in &s.nodes {
        out.put_u32(n.id);
        out.put_u8(u8::from(n.parent.is_some()));
        out.put_u32(n.parent.unwrap_or(0));
        n.t.iter().for_each(|&f| out.put_f32(f));
        n.r.iter().for_each(|&f| out.put_f32(f));
        out.put_f32(n.s);
        n.extent.iter().for_each(|&f| out.put_f32(f));
        out.put_u32(n.mask);
    }
    out.put_u64(s.retired.len() as u64);
    for &(first, last) in &s.retired {
        out.put_u32(first);
        out.put_u32(last);
    }
    let body = (out.len() - HEADER_LEN) as u64;
    out[12..20].copy_from_slice(&body.to_le_bytes());
    let crc = crc32c::crc32c(&out);
    out.put_u32(crc);
    out
}

/// Whether `bytes` has a snapshot header and a matching checksum (without decoding).
pub(super) fn checksum_ok(bytes: &[u8]) -> bool {
    bytes.len() >= HEADER_LEN + 4
        && &bytes[..8] == MAGIC
        && u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes")) + HEADER_LEN as u64 + 4
            == bytes.len() as u64
        && {
            let end = bytes.len() - 4;
            crc32c::crc32c(&bytes[..end]) == u32::from_le_bytes(bytes[end..].try_into().expect("4"))
        }
}

/// Reads a snapshot file; the error says what is wrong and at which byte.
pub fn decode(bytes: &[u8]) -> Result<RoomSnapshot, (u64, ReadError)> {
    let at = |r: &Reader<'_>, e: ReadError| (r.pos() as u64, e);
    let mut r = Reader::new(bytes);
    let magic = r.take(8, "snapshot magic").map_err(|e| at(&r, e))?;
    if magic != MAGIC {
        return Err((0, "not a Canopy snapshot (bad magic)".into()));
    }
    let version = r.u16("format version").map_err(|e| at(&r, e))?;
    if version != FORMAT_VERSION {
        let e = format!("snapshot format version {version}, this binary reads {FORMAT_VERSION}");
        return Err((8, e));
    }
    let alg = r.u8("checksum algorithm").map_err(|e| at(&r, e))?;
    if alg != CHECKSUM_CRC32C {
        return Err((10, format!("unknown checksum algorithm {alg}")));
    }
    r.u8("reserved").map_err(|e| at(&r, e))?;
    let body = r.u64("body length").map_err(|e| at(&r, e))?;
    let expect = (HEADER_LEN as u64)
        .checked_add(body)
        .and_then(|n| n.checked_add(4));
    if expect != Some(bytes.len() as u64) {
        let e = format!(
            "body length {body} does not match a file of {} bytes",
            bytes.len()
        );
        return Err((12, e));
    }
    let end = bytes.len() - 4;
    let crc = u32::from_le_bytes(bytes[end..].try_into().expect("4 bytes"));
    if crc32c::crc32c(&bytes[..end]) != crc {
        return Err((end as u64, "snapshot checksum mismatch".into()));
    }
    let mut r = Reader::new(&bytes[..end]);
    r.take(HEADER_LEN, "header").map_err(|e| at(&r, e))?;
    body_of(&mut r).map_err(|e| at(&r, e))
}

fn body_of(r: &mut Reader<'_>) -> Result<RoomSnapshot, ReadError> {
    let id = r.str8("room id")?;
    let tick_hz = r.u32("tick_hz")?;
    let created_ms = r.u64("created_ms")?;
    let editor_token = r.opt_str("editor token")?;
    let viewer_token = r.opt_str("viewer token")?;
    let meta = RoomMeta {
        id,
        tick_hz,
        editor_token,
        viewer_token,
        created_ms,
    };
    let created_seq = r.u64("created_seq")?;
    let seq = r.u64("seq")?;
    let tick = r.u64("tick")?;
    let time_ms = r.u64("time_ms")?;
    let next_id = r.u64("next_id")?;
    let count = r.u64("node count")?;
    if count > (r.remaining() / NODE_LEN) as u64 {
        return Err(format!("node count {count} exceeds the file"));
    }
    let mut nodes = Vec::with_capacity(count as usize);
    let mut seen = FxHashSet::default();
    seen.reserve(count as usize);
    for _ in 0..count {
        let id = r.u32("node id")?;
        let parent = match (r.u8("has_parent")?, r.u32("parent")?) {
            (0, _) => None,
            (1, p) => Some(p),
            (b, _) => return Err(format!("node {id}: has_parent byte {b}")),
        };
        let mut f = [0f32; 11];
        for v in &mut f {
            *v = r.f32("transform")?;
        }
        let mask = r.u32("mask")?;
        if let Some(p) = parent
            && !seen.contains(&p)
        {
            return Err(format!("node {id} comes before its parent {p}"));
        }
        if !seen.insert(id) {
            return Err(format!("node {id} appears twice"));
        }
        nodes.push(SnapNode {
            id,
            parent,
            t: [f[0], f[1], f[2]],
            r: [f[3], f[4], f[5], f[6]],
            s: f[7],
            extent: [f[8], f[9], f[10]],
            mask,
        });
    }
    let ranges = r.u64("retired range count")?;
    if ranges > (r.remaining() / 8) as u64 {
        return Err(format!("retired range count {ranges} exceeds the file"));
    }
    let mut retired: Vec<(u32, u32)> = Vec::with_capacity(ranges as usize);
    for _ in 0..ranges {
        let (first, last) = (r.u32("retired first")?, r.u32("retired last")?);
        let sorted = retired.last().is_none_or(|&(_, prev)| first > prev);
        if first > last || !sorted {
            return Err(format!("retired range {first}..={last} out of order"));
        }
        retired.push((first, last));
    }
    r.end("snapshot body")?;
    for n in &nodes {
        let i = retired.partition_point(|&(_, last)| last < n.id);
        if retired.get(i).is_some_and(|&(first, _)| first <= n.id) {
            return Err(format!("node {} is live and retired", n.id));
        }
    }
    Ok(RoomSnapshot {
        meta,
        created_seq,
        seq,
        state: RoomState {
            tick,
            time_ms,
            next_id,
            nodes,
            retired,
        },
    })
}
