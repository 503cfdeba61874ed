//! Page compression on helper threads (`isthmus.compression-threads`).
//!
//! A page becomes a [`Job`] once its bytes are final; the column keeps the job
//! and appends the compressed page when it needs it (before sizing the row
//! group, and when the chunk ends), in page order. Helper threads take jobs
//! from a queue; the writer's own thread takes them too, when the queue is
//! full and while it waits for a result, so compression spreads over the
//! helpers and the caller. Every page is compressed exactly as it would be on
//! the caller's thread, and nothing the writer decides depends on timing, so
//! the file is the same byte for byte whatever the number of threads.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use super::stored_page::append_page;
use crate::compression::Codec;
use crate::error::{Error, Result};
use crate::parquet::format::PageHeader;

/// A page waiting to be compressed.
pub(crate) struct Job {
    work: Mutex<Option<Work>>,
    result: Mutex<Option<Result<Compressed>>>,
    done: Condvar,
}

/// A page to compress: `buffer[body_start..]` is compressed and stored after
/// `header` (sizes and CRC filled in) and `prefix` (v2 levels, stored as is).
pub(crate) struct Work {
    pub codec: Codec,
    pub level: i32,
    pub header: PageHeader,
    pub prefix: Vec<u8>,
    pub buffer: Vec<u8>,
    pub body_start: usize,
}

/// A compressed page ready to append: header, prefix and body.
pub(crate) struct Compressed {
    pub bytes: Vec<u8>,
    pub header_len: usize,
    /// The page buffer, for reuse.
    pub buffer: Vec<u8>,
}

impl Job {
    /// Runs the job if no one has started it.
    fn run(&self, scratch: &mut Vec<u8>) {
        let Some(work) = lock(&self.work).take() else {
            return;
        };
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| compress(work, scratch)))
            .unwrap_or_else(|_| Err(Error::internal("page compression panicked")));
        *lock(&self.result) = Some(outcome);
        self.done.notify_all();
    }
}

fn compress(work: Work, scratch: &mut Vec<u8>) -> Result<Compressed> {
    let input = &work.buffer[work.body_start..];
    let bound = work.codec.max_compressed_len(input.len())?;
    if scratch.len() < bound {
        scratch.resize(bound, 0);
    }
    let stored = work.codec.compress(work.level, input, scratch)?;
    let mut bytes = Vec::with_capacity(64 + work.prefix.len() + stored);
    let header_len = append_page(&mut bytes, work.header, &work.prefix, &scratch[..stored])?;
    Ok(Compressed {
        bytes,
        header_len,
        buffer: work.buffer,
    })
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Jobs catch their own panics; a poisoned lock only means another waiter
    // panicked, and the data (an Option) is still consistent.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

struct Queue {
    jobs: VecDeque<Arc<Job>>,
    shutdown: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl Shared {
    fn pop(&self) -> Option<Arc<Job>> {
        lock(&self.queue).jobs.pop_front()
    }
}

/// Helper threads for one writer.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
    /// Queued jobs beyond which the caller compresses a page itself.
    capacity: usize,
}

impl Pool {
    pub(super) fn new(threads: usize) -> Result<Pool> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                shutdown: false,
            }),
            ready: Condvar::new(),
        });
        let mut pool = Pool {
            shared: shared.clone(),
            threads: Vec::with_capacity(threads),
            capacity: 2 * threads,
        };
        for i in 0..threads {
            let shared = shared.clone();
            let thread = std::thread::Builder::new()
                .name(format!("isthmus-compress-{i}"))
                .spawn(move || worker(&shared))
                .map_err(|e| Error::internal(format!("cannot start a compression thread: {e}")))?;
            pool.threads.push(thread);
        }
        Ok(pool)
    }

    /// Queues a page (or compresses it right away when the queue is full).
    pub(super) fn submit(&self, work: Work, scratch: &mut Vec<u8>) -> Arc<Job> {
        let job = Arc::new(Job {
            work: Mutex::new(Some(work)),
            result: Mutex::new(None),
            done: Condvar::new(),
        });
        let mut queue = lock(&self.shared.queue);
        if queue.jobs.len() >= self.capacity {
            drop(queue);
            job.run(scratch);
        } else {
            queue.jobs.push_back(job.clone());
            drop(queue);
            self.shared.ready.notify_one();
        }
        job
    }

    /// The result of `job`, compressing queued pages meanwhile.
    pub(super) fn wait(&self, job: &Job, scratch: &mut Vec<u8>) -> Result<Compressed> {
        loop {
            if let Some(result) = lock(&job.result).take() {
                return result;
            }
            if lock(&job.work).is_some() {
                // Not started yet: do it here rather than wait for a helper.
                job.run(scratch);
                continue;
            }
            match self.shared.pop() {
                Some(other) => other.run(scratch),
                None => {
                    let result = lock(&job.result);
                    if result.is_none() {
                        // Started by a helper: wait for it to finish.
                        let mut result = job
                            .done
                            .wait_while(result, |r| r.is_none())
                            .unwrap_or_else(|p| p.into_inner());
                        if let Some(result) = result.take() {
                            return result;
                        }
                    }
                }
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let mut queue = lock(&self.shared.queue);
        // Nobody waits for queued pages any more (the writer is gone).
        queue.jobs.clear();
        queue.shutdown = true;
        drop(queue);
        self.shared.ready.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn worker(shared: &Shared) {
    let mut scratch = Vec::new();
    loop {
        let job = {
            let mut queue = lock(&shared.queue);
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                if queue.shutdown {
                    return;
                }
                queue = shared.ready.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
        };
        job.run(&mut scratch);
    }
}
