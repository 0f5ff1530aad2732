//! [`SimDisk`]: a simulated disk for crash tests, in the manner of redb's `CrashBackend`
//! and SpacetimeDB's partial-write tests.
//!
//! It keeps, per file, the bytes written and the bytes durable; per directory, the live
//! entries, the durable entries and the entry changes not yet synced. It can:
//! * crash at the k-th I/O operation ([`SimDisk::crash_at`]): that operation and every
//!   later one fail, and [`SimDisk::crash_image`] then builds the disk as a power loss
//!   leaves it: only what was durable, plus (in the torn variant) a random prefix of each
//!   file's unsynced tail and a random prefix, in order, of each directory's unsynced
//!   changes, as a journaling file system may have written some of them;
//! * fail the n-th fsync with EIO ([`SimDisk::fail_sync`]), after which a random part of
//!   what it was asked to sync is durable: its fate is unknown, as on Linux;
//! * fail writes with ENOSPC once a byte budget is used ([`SimDisk::capacity`]), after
//!   writing the prefix that fits.
//!
//! Invariant: an operation either fails or does exactly what [`Storage`] promises, and
//! nothing is durable that was not synced, except in the torn crash image, which only
//! adds unsynced bytes and directory changes in the order they were made.
//!
//! Simplifications, all on the lenient side of what they model: directories exist
//! durably once created; a rename stays within one directory; removed files keep their
//! bytes counted against the ENOSPC budget. I/O operations counted: create, write,
//! sync_data, truncate, rename, remove, sync_dir, create_dir (reads and lists are not:
//! crashing at a read is crashing before the next write).

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::error::{PersistError, Result};
use super::storage::{Storage, WriteFile};

#[derive(Clone, Default)]
struct SimFile {
    data: Vec<u8>,
    durable: Vec<u8>,
    /// `durable` is a prefix of `data` (no truncation since the last sync), so the
    /// unsynced tail is `data[durable.len()..]`.
    appended: bool,
}

/// A change to one directory entry: `Some(inode)` to set it, `None` to remove it.
type EntryChange = (String, Option<u64>);

#[derive(Clone, Default)]
struct SimDir {
    live: BTreeMap<String, u64>,
    durable: BTreeMap<String, u64>,
    /// Changes since the last sync, each group atomic (a rename is two changes).
    pending: Vec<Vec<EntryChange>>,
}

struct SimState {
    files: HashMap<u64, SimFile>,
    dirs: BTreeMap<PathBuf, SimDir>,
    next_inode: u64,
    ops: u64,
    syncs: u64,
    crash_at: Option<u64>,
    fail_sync: Option<u64>,
    capacity: Option<u64>,
    used: u64,
    crashed: bool,
    locked: bool,
    rng: SmallRng,
    /// When recording: the files and directories before every I/O operation, with the
    /// tag set at that moment.
    history: Option<Vec<Frozen>>,
    tag: u64,
}

type Frozen = (HashMap<u64, SimFile>, BTreeMap<PathBuf, SimDir>, u64);

/// A simulated disk; clones share the same disk.
#[derive(Clone)]
pub struct SimDisk {
    state: Arc<Mutex<SimState>>,
}

impl std::fmt::Debug for SimDisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.lock();
        f.debug_struct("SimDisk")
            .field("files", &s.files.len())
            .field("ops", &s.ops)
            .field("crashed", &s.crashed)
            .finish()
    }
}

fn crashed_error() -> io::Error {
    io::Error::other("simulated crash: the disk is gone")
}

fn parent_of(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn name_of(path: &Path) -> io::Result<String> {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))
}

impl SimState {
    fn new(seed: u64) -> Self {
        let mut dirs = BTreeMap::new();
        dirs.insert(PathBuf::new(), SimDir::default());
        SimState {
            files: HashMap::new(),
            dirs,
            next_inode: 1,
            ops: 0,
            syncs: 0,
            crash_at: None,
            fail_sync: None,
            capacity: None,
            used: 0,
            crashed: false,
            locked: false,
            rng: SmallRng::seed_from_u64(seed),
            history: None,
            tag: 0,
        }
    }

    /// Counts one I/O operation; `Ok(false)` means "this is the crash: do the op's
    /// volatile effect if it has one, then fail".
    fn begin(&mut self) -> io::Result<bool> {
        if self.crashed {
            return Err(crashed_error());
        }
        self.ops += 1;
        if let Some(h) = &mut self.history {
            h.push((self.files.clone(), self.dirs.clone(), self.tag));
        }
        if self.crash_at == Some(self.ops) {
            self.crashed = true;
            return Ok(false);
        }
        Ok(true)
    }

    /// Counts one fsync; true if it is the one to fail.
    fn sync_fails(&mut self) -> bool {
        self.syncs += 1;
        self.fail_sync == Some(self.syncs)
    }

    fn dir(&mut self, dir: &Path) -> io::Result<&mut SimDir> {
        self.dirs
            .get_mut(dir)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such directory"))
    }

    fn lookup(&self, path: &Path) -> io::Result<u64> {
        let dir = self
            .dirs
            .get(&parent_of(path))
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such directory"))?;
        dir.live
            .get(&name_of(path)?)
            .copied()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }

    fn write(&mut self, inode: u64, buf: &[u8]) -> io::Result<()> {
        let go_on = self.begin()?;
        let fits = match self.capacity {
            Some(cap) => (cap.saturating_sub(self.used) as usize).min(buf.len()),
            None => buf.len(),
        };
        let file = self
            .files
            .get_mut(&inode)
            .expect("open files have an inode");
        file.data.extend_from_slice(&buf[..fits]);
        self.used += fits as u64;
        if !go_on {
            return Err(crashed_error());
        }
        if fits < buf.len() {
            // ENOSPC (28 on Linux), after the prefix that fitted, as a real short write.
            return Err(io::Error::from_raw_os_error(28));
        }
        Ok(())
    }

    fn sync_file(&mut self, inode: u64) -> io::Result<()> {
        if !self.begin()? {
            return Err(crashed_error());
        }
        let fail = self.sync_fails();
        let keep = if fail {
            let file = &self.files[&inode];
            let tail = file.data.len() - file.durable.len().min(file.data.len());
            Some(self.rng.random_range(0..=tail))
        } else {
            None
        };
        let file = self
            .files
            .get_mut(&inode)
            .expect("open files have an inode");
        match keep {
            // A failed fsync leaves an unknown part durable: some prefix of the tail.
            Some(n) if file.appended => {
                let end = file.durable.len() + n;
                file.durable = file.data[..end].to_vec();
            }
            Some(_) => {}
            None => {
                if file.appended {
                    let from = file.durable.len();
                    file.durable.extend_from_slice(&file.data[from..]);
                } else {
                    file.durable = file.data.clone();
                }
                file.appended = true;
            }
        }
        if fail {
            return Err(io::Error::other("simulated EIO on fsync"));
        }
        Ok(())
    }
}

impl SimDisk {
    /// An empty disk; `seed` drives every random choice it makes.
    pub fn new(seed: u64) -> Self {
        SimDisk {
            state: Arc::new(Mutex::new(SimState::new(seed))),
        }
    }

    /// Makes the `k`-th I/O operation from now on (1-based, counting from the start of
    /// this disk) and every later one fail, as if power was lost during it.
    pub fn crash_at(&self, k: u64) {
        self.state.lock().crash_at = Some(k);
    }

    /// Makes the `n`-th fsync (file or directory, 1-based) fail with EIO.
    pub fn fail_sync(&self, n: u64) {
        self.state.lock().fail_sync = Some(n);
    }

    /// Lets at most `bytes` more bytes be written to files; then writes fail with ENOSPC.
    pub fn capacity(&self, bytes: u64) {
        let mut s = self.state.lock();
        s.capacity = Some(s.used + bytes);
    }

    /// I/O operations done so far.
    pub fn ops(&self) -> u64 {
        self.state.lock().ops
    }

    /// Whether the injected crash happened.
    pub fn crashed(&self) -> bool {
        self.state.lock().crashed
    }

    /// The disk after a power loss now: only what is durable, plus, if `torn`, random
    /// prefixes of the unsynced file tails and of the unsynced directory changes.
    pub fn crash_image(&self, torn: bool, seed: u64) -> SimDisk {
        let s = self.state.lock();
        image_of(&s.files, &s.dirs, s.next_inode, torn, seed)
    }

    /// From now on, keeps the disk's state before every I/O operation, so that
    /// [`SimDisk::image_before`] can build the crash image of any of them from one run.
    pub fn record_history(&self) {
        self.state.lock().history = Some(Vec::new());
    }

    /// Sets the tag kept with each recorded state (a test stores what was acknowledged).
    pub fn set_tag(&self, tag: u64) {
        self.state.lock().tag = tag;
    }

    /// States recorded so far (one per I/O operation since [`SimDisk::record_history`]).
    pub fn history_len(&self) -> usize {
        self.state.lock().history.as_ref().map_or(0, Vec::len)
    }

    /// The crash image of a power loss just before recorded operation `k` (0-based),
    /// with the tag of that moment.
    pub fn image_before(&self, k: usize, torn: bool, seed: u64) -> (SimDisk, u64) {
        let s = self.state.lock();
        let (files, dirs, tag) = &s.history.as_ref().expect("recording")[k];
        (image_of(files, dirs, s.next_inode, torn, seed), *tag)
    }

    /// The disk after the process died but the machine did not: everything written is
    /// still there (in the page cache), durable or not; faults and the lock are cleared.
    pub fn restart(&self) -> SimDisk {
        let s = self.state.lock();
        let mut next = SimState::new(s.ops ^ 0x5851_f42d_4c95_7f2d);
        next.files = s.files.clone();
        next.dirs = s.dirs.clone();
        next.next_inode = s.next_inode;
        next.used = s.used;
        SimDisk {
            state: Arc::new(Mutex::new(next)),
        }
    }

    /// Overwrites byte `offset` of `path` with `f(byte)`, durably (for corruption tests).
    pub fn corrupt(&self, path: &Path, offset: usize, f: impl Fn(u8) -> u8) -> io::Result<()> {
        let mut s = self.state.lock();
        let inode = s.lookup(path)?;
        let file = s.files.get_mut(&inode).expect("entries have an inode");
        if offset >= file.data.len() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "past the end"));
        }
        file.data[offset] = f(file.data[offset]);
        file.durable = file.data.clone();
        Ok(())
    }

    /// Replaces the content of `path` durably (creating it, for corruption tests).
    pub fn put(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut s = self.state.lock();
        let inode = match s.lookup(path) {
            Ok(inode) => inode,
            Err(_) => {
                let inode = s.next_inode;
                s.next_inode += 1;
                let dir = s.dir(&parent_of(path))?;
                dir.live.insert(name_of(path)?, inode);
                dir.durable.insert(name_of(path)?, inode);
                inode
            }
        };
        let file = SimFile {
            data: bytes.to_vec(),
            durable: bytes.to_vec(),
            appended: true,
        };
        s.files.insert(inode, file);
        Ok(())
    }
}

/// The disk a power loss leaves from these files and directories.
fn image_of(
    files: &HashMap<u64, SimFile>,
    dirs: &BTreeMap<PathBuf, SimDir>,
    next_inode: u64,
    torn: bool,
    seed: u64,
) -> SimDisk {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut next = SimState::new(seed ^ 0x9e37_79b9_7f4a_7c15);
    for (path, dir) in dirs {
        let mut entries = dir.durable.clone();
        if torn {
            let groups = rng.random_range(0..=dir.pending.len());
            for group in &dir.pending[..groups] {
                for (name, inode) in group {
                    match inode {
                        Some(i) => entries.insert(name.clone(), *i),
                        None => entries.remove(name),
                    };
                }
            }
        }
        for inode in entries.values() {
            if next.files.contains_key(inode) {
                continue;
            }
            let file = &files[inode];
            let mut bytes = file.durable.clone();
            if torn && file.appended && file.data.len() > bytes.len() {
                let tail = rng.random_range(0..=file.data.len() - bytes.len());
                bytes.extend_from_slice(&file.data[file.durable.len()..][..tail]);
            }
            next.used += bytes.len() as u64;
            let kept = SimFile {
                data: bytes.clone(),
                durable: bytes,
                appended: true,
            };
            next.files.insert(*inode, kept);
        }
        let kept = SimDir {
            live: entries.clone(),
            durable: entries,
            pending: Vec::new(),
        };
        next.dirs.insert(path.clone(), kept);
    }
    next.next_inode = next_inode;
    SimDisk {
        state: Arc::new(Mutex::new(next)),
    }
}

struct SimWriteFile {
    state: Arc<Mutex<SimState>>,
    inode: u64,
}

impl WriteFile for SimWriteFile {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.state.lock().write(self.inode, buf)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        self.state.lock().sync_file(self.inode)
    }
}

struct SimLock(Arc<Mutex<SimState>>);

impl Drop for SimLock {
    fn drop(&mut self) {
        self.0.lock().locked = false;
    }
}

impl Storage for SimDisk {
    fn create_dir(&self, dir: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        if !s.begin()? {
            return Err(crashed_error());
        }
        let mut path = PathBuf::new();
        for part in dir.components() {
            path.push(part);
            s.dirs.entry(path.clone()).or_default();
        }
        Ok(())
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn WriteFile>> {
        let mut s = self.state.lock();
        if !s.begin()? {
            return Err(crashed_error());
        }
        let inode = match s.lookup(path) {
            Ok(inode) => {
                // Truncating an existing file is a data change, durable at its next sync.
                let file = s.files.get_mut(&inode).expect("entries have an inode");
                file.data.clear();
                file.appended = false;
                inode
            }
            Err(_) => {
                let inode = s.next_inode;
                s.next_inode += 1;
                s.files.insert(inode, SimFile::default());
                let name = name_of(path)?;
                let dir = s.dir(&parent_of(path))?;
                dir.live.insert(name.clone(), inode);
                dir.pending.push(vec![(name, Some(inode))]);
                inode
            }
        };
        Ok(Box::new(SimWriteFile {
            state: Arc::clone(&self.state),
            inode,
        }))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let s = self.state.lock();
        if s.crashed {
            return Err(crashed_error());
        }
        let inode = s.lookup(path)?;
        Ok(s.files[&inode].data.clone())
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let mut s = self.state.lock();
        if !s.begin()? {
            return Err(crashed_error());
        }
        let inode = s.lookup(path)?;
        let file = s.files.get_mut(&inode).expect("entries have an inode");
        file.data.truncate(len as usize);
        file.durable = file.data.clone();
        file.appended = true;
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        if !s.begin()? {
            return Err(crashed_error());
        }
        if parent_of(from) != parent_of(to) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the simulated disk renames within one directory only",
            ));
        }
        let inode = s.lookup(from)?;
        let dir_path = parent_of(from);
        let (from, to) = (name_of(from)?, name_of(to)?);
        let dir = s.dir(&dir_path)?;
        dir.live.remove(&from);
        dir.live.insert(to.clone(), inode);
        // One group: a rename is atomic, the old and the new name change together.
        dir.pending.push(vec![(to, Some(inode)), (from, None)]);
        Ok(())
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        if !s.begin()? {
            return Err(crashed_error());
        }
        s.lookup(path)?;
        let name = name_of(path)?;
        let dir = s.dir(&parent_of(path))?;
        dir.live.remove(&name);
        dir.pending.push(vec![(name, None)]);
        Ok(())
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let s = self.state.lock();
        if s.crashed {
            return Err(crashed_error());
        }
        Ok(s.dirs
            .get(dir)
            .map(|d| d.live.keys().cloned().collect())
            .unwrap_or_default())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut s = self.state.lock();
        if !s.begin()? {
            return Err(crashed_error());
        }
        let fail = s.sync_fails();
        let keep = if fail {
            let n = s.dir(dir)?.pending.len();
            s.rng.random_range(0..=n)
        } else {
            usize::MAX
        };
        let d = s.dir(dir)?;
        let keep = keep.min(d.pending.len());
        for group in d.pending.drain(..keep) {
            for (name, inode) in group {
                match inode {
                    Some(i) => d.durable.insert(name, i),
                    None => d.durable.remove(&name),
                };
            }
        }
        if fail {
            return Err(io::Error::other("simulated EIO on directory fsync"));
        }
        Ok(())
    }

    fn lock(&self) -> Result<Box<dyn Any + Send>> {
        let mut s = self.state.lock();
        if s.locked {
            return Err(PersistError::Locked {
                dir: PathBuf::from("sim:/"),
                pid: Some(std::process::id()),
            });
        }
        s.locked = true;
        Ok(Box::new(SimLock(Arc::clone(&self.state))))
    }

    fn display(&self, path: &Path) -> PathBuf {
        Path::new("sim:/").join(path)
    }
}
