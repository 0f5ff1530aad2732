//! The data dir is private to the server's user: it holds every room's scene and its
//! token digests, so other local users may not list or read it.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use canopy_store::{FsStorage, Storage};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn the_data_dir_its_directories_and_its_files_are_the_owners_only() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("data");
    let storage = FsStorage::new(&root).unwrap();
    assert_eq!(mode(&root), 0o700);
    storage.create_dir(Path::new("log")).unwrap();
    assert_eq!(mode(&root.join("log")), 0o700);
    let mut file = storage.create(Path::new("log/000001.clog")).unwrap();
    file.write_all(b"x").unwrap();
    assert_eq!(mode(&root.join("log/000001.clog")), 0o600);
    let _lock = storage.lock().unwrap();
    assert_eq!(mode(&root.join("LOCK")), 0o600);
}

#[test]
fn a_data_dir_made_with_the_usual_umask_is_narrowed_when_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("data");
    std::fs::create_dir(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    FsStorage::new(&root).unwrap();
    assert_eq!(mode(&root), 0o700);
}
