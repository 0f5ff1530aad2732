//! Little-endian byte writing and bounds-checked reading for the hand-written layouts of
//! the log and the snapshots.
//!
//! Invariant: a [`Reader`] never panics and never reads past its slice; every failure
//! says what was being read, so that the caller can name the file and offset.

/// Appends little-endian values to a buffer.
pub(crate) trait Put {
    fn put_u8(&mut self, v: u8);
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_u64(&mut self, v: u64);
    fn put_f32(&mut self, v: f32);
    /// A string of at most 255 bytes (room ids), length as one byte.
    fn put_str8(&mut self, s: &str);
    /// An optional string: 0, or 1 then a u32 length and the bytes.
    fn put_opt_str(&mut self, s: Option<&str>);
}

impl Put for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, v: f32) {
        // Bits, not value: NaN payloads and -0.0 survive, so recovery is bit-exact.
        self.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    fn put_str8(&mut self, s: &str) {
        debug_assert!(s.len() <= 255, "checked by the caller");
        self.push(s.len() as u8);
        self.extend_from_slice(s.as_bytes());
    }
    fn put_opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.push(0),
            Some(s) => {
                self.push(1);
                self.put_u32(s.len() as u32);
                self.extend_from_slice(s.as_bytes());
            }
        }
    }
}

/// Reads little-endian values from a slice, tracking the position.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// What a [`Reader`] could not read.
pub(crate) type ReadError = String;

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes read so far.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ReadError> {
        if self.remaining() < n {
            return Err(format!(
                "{what}: needs {n} bytes, {} left",
                self.remaining()
            ));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Everything left.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ReadError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, ReadError> {
        Ok(self.array::<1>(what)?[0])
    }
    pub(crate) fn u16(&mut self, what: &str) -> Result<u16, ReadError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, ReadError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, ReadError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }
    pub(crate) fn f32(&mut self, what: &str) -> Result<f32, ReadError> {
        Ok(f32::from_bits(self.u32(what)?))
    }

    fn utf8(bytes: &[u8], what: &str) -> Result<String, ReadError> {
        String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what}: not UTF-8"))
    }

    pub(crate) fn str8(&mut self, what: &str) -> Result<String, ReadError> {
        let len = self.u8(what)? as usize;
        Self::utf8(self.take(len, what)?, what)
    }

    pub(crate) fn opt_str(&mut self, what: &str) -> Result<Option<String>, ReadError> {
        match self.u8(what)? {
            0 => Ok(None),
            1 => {
                let len = self.u32(what)? as usize;
                Ok(Some(Self::utf8(self.take(len, what)?, what)?))
            }
            other => Err(format!("{what}: presence byte {other} is neither 0 nor 1")),
        }
    }

    /// Fails unless everything was read.
    pub(crate) fn end(&self, what: &str) -> Result<(), ReadError> {
        if self.remaining() != 0 {
            return Err(format!("{what}: {} trailing bytes", self.remaining()));
        }
        Ok(())
    }
}
