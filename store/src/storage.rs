//! The [`Storage`] trait: the only way the storage layer touches files, and
//! [`FsStorage`], its implementation on the real file system.
//!
//! Invariant: every path given to a [`Storage`] is relative to its data dir, and nothing
//! is durable until it was made so explicitly: a file's bytes by [`WriteFile::sync_data`],
//! a file's existence, name or removal by [`Storage::sync_dir`] of its directory. The
//! layer above is written against exactly this contract, which the simulated disk
//! ([`super::SimDisk`]) enforces, so that what passes the crash tests holds on a disk that
//! only keeps what was synced.

use std::any::Any;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::{PersistError, Result};

/// A file open for appending.
pub trait WriteFile: Send {
    /// Appends all of `buf` at the end of the file. After an error, a prefix of `buf` may
    /// have been written.
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()>;
    /// Makes every byte written so far durable (`fdatasync`). After an error, what is
    /// durable is unknown.
    fn sync_data(&mut self) -> io::Result<()>;
}

/// A data dir: files in directories, with explicit durability.
pub trait Storage: Send + Sync {
    /// Creates `dir` (and its parents) if missing, durably (the parent is synced).
    fn create_dir(&self, dir: &Path) -> io::Result<()>;
    /// Creates `path` empty (truncating it if it exists) and opens it for appending. The
    /// new name is durable only after [`Storage::sync_dir`] of its directory.
    fn create(&self, path: &Path) -> io::Result<Box<dyn WriteFile>>;
    /// The whole content of `path`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// Cuts `path` to `len` bytes and makes that durable before returning.
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;
    /// Renames `from` to `to` (same directory), replacing `to`. Durable after `sync_dir`.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Removes `path`. Durable after `sync_dir`.
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// The names of the files in `dir`, sorted; empty if `dir` does not exist.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// Makes the entries of `dir` (creates, renames, removes) durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// Takes the exclusive lock of the data dir, held until the returned guard is dropped.
    fn lock(&self) -> Result<Box<dyn Any + Send>>;
    /// The full name of `path` for messages (the real path, or `sim:/...`).
    fn display(&self, path: &Path) -> PathBuf;
}

/// What turns an I/O error of `op` on `path` (relative to `storage`'s data dir) into a
/// [`PersistError`] naming the whole path, for `map_err`.
pub(crate) fn io_error(
    storage: &dyn Storage,
    path: &Path,
    op: &'static str,
) -> impl FnOnce(io::Error) -> PersistError + use<> {
    let path = storage.display(path);
    move |e| PersistError::io(path, op, e)
}

/// The real file system under one data dir.
#[derive(Debug, Clone)]
pub struct FsStorage {
    root: PathBuf,
}

impl FsStorage {
    /// A storage rooted at `root`, which is created if missing and made private to the
    /// server's user (0700): the logs hold every room's scene and token digests.
    pub fn new(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        private_dir_builder()
            .create(&root)
            .map_err(|e| PersistError::io(&root, "create dir", e))?;
        restrict_to_owner(&root, DIR_MODE).map_err(|e| PersistError::io(&root, "chmod", e))?;
        Ok(FsStorage { root })
    }

    /// The data dir.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn full(&self, path: &Path) -> PathBuf {
        self.root.join(path)
    }
}

struct FsFile(File);

impl WriteFile for FsFile {
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }
    fn sync_data(&mut self) -> io::Result<()> {
        // `File::sync_data` is `fdatasync(2)` on Linux: the bytes and the size, not the
        // times, which is all a reader needs.
        self.0.sync_data()
    }
}

/// Directories under the data dir: the owner only.
const DIR_MODE: u32 = 0o700;
/// Files under the data dir (logs, snapshots, the lock): the owner only.
const FILE_MODE: u32 = 0o600;

fn private_dir_builder() -> fs::DirBuilder {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder
}

fn private_file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    options
}

/// Narrows an existing path's permissions to `mode` (a data dir made by an older
/// server, or by hand with the umask's 0755).
fn restrict_to_owner(path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let current = fs::metadata(path)?.permissions().mode() & 0o777;
        if current & !mode != 0 {
            fs::set_permissions(path, fs::Permissions::from_mode(current & mode))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}

fn sync_dir_at(dir: &Path) -> io::Result<()> {
    // Opening a directory read-only and fsyncing it is how POSIX makes its entries durable.
    File::open(dir)?.sync_all()
}

impl Storage for FsStorage {
    fn create_dir(&self, dir: &Path) -> io::Result<()> {
        let full = self.full(dir);
        if full.is_dir() {
            return Ok(());
        }
        private_dir_builder().create(&full)?;
        sync_dir_at(full.parent().unwrap_or(&self.root))
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn WriteFile>> {
        let file = private_file_options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(self.full(path))?;
        Ok(Box::new(FsFile(file)))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(self.full(path))
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = OpenOptions::new().write(true).open(self.full(path))?;
        file.set_len(len)?;
        file.sync_all()
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(self.full(from), self.full(to))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(self.full(path))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let read = match fs::read_dir(self.full(dir)) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut names = Vec::new();
        for entry in read {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        sync_dir_at(&self.full(dir))
    }

    fn lock(&self) -> Result<Box<dyn Any + Send>> {
        // `File::try_lock` is `flock(LOCK_EX | LOCK_NB)` on Linux: held by the open file,
        // released when the process dies (so a `kill -9` never leaves a stale lock), and
        // it conflicts even between two opens in one process.
        let path = self.full(Path::new("LOCK"));
        let mut file = private_file_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| PersistError::io(&path, "open lock file", e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(PersistError::Locked {
                    dir: self.root.clone(),
                    pid: text.trim().parse().ok(),
                });
            }
            Err(fs::TryLockError::Error(e)) => return Err(PersistError::io(&path, "lock", e)),
        }
        // The pid is for the message of the next process that tries; it need not be
        // durable (the lock itself never survives the process).
        let pid = std::process::id().to_string();
        let written = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(pid.as_bytes()));
        written.map_err(|e| PersistError::io(&path, "write lock file", e))?;
        Ok(Box::new(file))
    }

    fn display(&self, path: &Path) -> PathBuf {
        self.full(path)
    }
}
