//! Where the file's bytes go: a local file written under a temporary name and
//! moved into place only when the file is complete, or buffers the caller
//! drains (and writes wherever it likes).

use std::collections::VecDeque;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::blocks::{recycle, ChunkBlocks};
use crate::error::{Error, Result, Status};

pub(crate) enum Output {
    /// A local file: bytes go to `temporary`, renamed to `target` on close.
    Path {
        target: PathBuf,
        temporary: PathBuf,
        file: Option<File>,
        overwrite: bool,
    },
    /// Finished byte ranges wait in `pending` until the caller takes them; the
    /// last one taken stays in `lent` until the next take.
    Buffered {
        pending: VecDeque<Vec<u8>>,
        lent: Vec<u8>,
    },
}

fn io_error(what: impl std::fmt::Display, e: std::io::Error) -> Error {
    Error::new(Status::Io, format!("{what}: {e}"))
}

impl Output {
    /// Creates the temporary file next to `target`. Without `overwrite`, an
    /// existing `target` is an error now rather than at close.
    pub(super) fn path(target: &Path, overwrite: bool) -> Result<Output> {
        if !overwrite && fs::symlink_metadata(target).is_ok() {
            return Err(Error::new(
                Status::Io,
                format!("{}: the file already exists", target.display()),
            ));
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = target
            .file_name()
            .ok_or_else(|| {
                Error::invalid_argument(format!("{}: not a file path", target.display()))
            })?
            .to_string_lossy()
            .into_owned();
        let temporary = target.with_file_name(format!(
            ".{name}.isthmus-{}-{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .map_err(|e| io_error(format_args!("creating {}", temporary.display()), e))?;
        Ok(Output::Path {
            target: target.to_path_buf(),
            temporary,
            file: Some(file),
            overwrite,
        })
    }

    pub(super) fn buffered() -> Output {
        Output::Buffered {
            pending: VecDeque::new(),
            lent: Vec::new(),
        }
    }

    /// Emits `bytes` and leaves the vector empty (keeping its capacity where
    /// the bytes were copied out).
    pub(super) fn emit(&mut self, bytes: &mut Vec<u8>) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match self {
            Output::Path {
                file, temporary, ..
            } => {
                let file = file
                    .as_mut()
                    .ok_or_else(|| Error::internal("the output file is closed"))?;
                file.write_all(bytes)
                    .map_err(|e| io_error(format_args!("writing {}", temporary.display()), e))?;
                bytes.clear();
            }
            Output::Buffered { pending, .. } => pending.push_back(std::mem::take(bytes)),
        }
        Ok(())
    }

    /// Emits a chunk's bytes block by block and leaves it empty. The blocks
    /// go back to the cache once written (a buffered output's when the caller
    /// has taken them).
    pub(super) fn emit_chunk(&mut self, bytes: &mut ChunkBlocks) -> Result<()> {
        for mut block in bytes.take_blocks() {
            self.emit(&mut block)?;
            recycle(block);
        }
        Ok(())
    }

    /// The next finished byte range (empty when there is none), valid until
    /// the next call.
    pub(super) fn take(&mut self) -> Result<&[u8]> {
        match self {
            Output::Path { .. } => Err(Error::invalid_argument(
                "a writer opened on a path has no output to take; it writes the file itself",
            )),
            Output::Buffered { pending, lent } => {
                recycle(std::mem::replace(
                    lent,
                    pending.pop_front().unwrap_or_default(),
                ));
                Ok(lent)
            }
        }
    }

    /// Completes the file: closes it and moves it to its name (refusing to
    /// replace an existing file unless asked to).
    pub(super) fn commit(&mut self) -> Result<()> {
        let Output::Path {
            target,
            temporary,
            file,
            overwrite,
        } = self
        else {
            return Ok(());
        };
        // Closed without fsync, as parquet-java's local output does.
        file.take()
            .ok_or_else(|| Error::internal("the output file is closed"))?;
        let placed = if *overwrite {
            fs::rename(&*temporary, &*target)
        } else {
            // A hard link fails if the target exists, where a rename would replace it.
            match fs::hard_link(&*temporary, &*target) {
                Ok(()) => fs::remove_file(&*temporary),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let _ = fs::remove_file(&*temporary);
                    return Err(Error::new(
                        Status::Io,
                        format!("{}: the file already exists", target.display()),
                    ));
                }
                Err(_) if fs::symlink_metadata(&*target).is_err() => {
                    fs::rename(&*temporary, &*target)
                }
                Err(e) => Err(e),
            }
        };
        placed.map_err(|e| {
            let _ = fs::remove_file(&*temporary);
            io_error(format_args!("moving the file to {}", target.display()), e)
        })
    }

    /// Drops the output: the temporary file is deleted, untaken bytes freed.
    pub(super) fn discard(&mut self) {
        match self {
            Output::Path {
                temporary, file, ..
            } => {
                if file.take().is_some() {
                    let _ = fs::remove_file(&*temporary);
                }
            }
            // The range last taken stays valid until the next take, abort or
            // free, as the header promises, even when a later write fails.
            Output::Buffered { pending, .. } => pending.clear(),
        }
    }
}
