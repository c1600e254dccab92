//! Work shared out on every core with plain threads, for loaders and schedulers whose pieces
//! are known up front. Imports nothing of the workspace.

use std::convert::Infallible;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// The stack of each worker: as much as the main thread's, since decoding and walking a
/// document recurse once per level of nesting (up to the parsers' depth limits).
const WORKER_STACK: usize = 8 << 20;

/// One item's outcome, once a thread has taken it.
type Slot<R, E> = Mutex<Option<Result<R, E>>>;

/// `f` of every item, computed on every core, in the items' order; or the first failure in
/// that order. Threads take items in order and stop taking them after a failure, so every
/// item before a failure has its outcome and the ones left undone all come after it.
pub fn try_map<T, R, E>(items: &[T], f: impl Fn(&T) -> Result<R, E> + Sync) -> Result<Vec<R>, E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<Slot<R, E>> = items.iter().map(|_| Mutex::new(None)).collect();
    // Takes items until none are left or one failed; shared by every thread.
    let work = || {
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let outcome = f(item);
            failed.fetch_or(outcome.is_err(), Ordering::Relaxed);
            *slots[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..threads.min(items.len()) {
            let worker = std::thread::Builder::new().stack_size(WORKER_STACK);
            if worker.spawn_scoped(scope, work).is_err() {
                // No more threads: this one takes its share instead.
                work();
                break;
            }
        }
    });
    slots
        .into_iter()
        .map_while(|slot| slot.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect()
}

/// `f` of every item, computed on every core, in the items' order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    try_map(items, |item| Ok::<R, Infallible>(f(item))).unwrap_or_else(|never| match never {})
}

/// `other()` on another thread while `here()` runs on this one (both on this one when no
/// thread can be had): for two independent steps of one pipeline.
pub fn join<A: Send, B>(other: impl FnOnce() -> A + Send, here: impl FnOnce() -> B) -> (A, B) {
    // Taken by the worker, or by this thread when the worker could not start.
    let other = Mutex::new(Some(other));
    let run_other = || {
        let taken = other.lock().unwrap_or_else(PoisonError::into_inner).take();
        taken.map(|f| f())
    };
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new().stack_size(WORKER_STACK);
        let spawned = worker.spawn_scoped(scope, run_other);
        let b = here();
        let a = match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => run_other(),
        };
        (a.expect("the other step runs exactly once"), b)
    })
}

#[cfg(test)]
mod tests {
    use super::{join, map, try_map};

    #[test]
    fn outcomes_keep_the_items_order_and_the_first_failure_wins() {
        let items: Vec<u32> = (0..1000).collect();
        let doubled = try_map(&items, |&i| Ok::<u32, u32>(i * 2)).unwrap();
        assert_eq!(doubled, (0..1000).map(|i| i * 2).collect::<Vec<_>>());
        let failing = try_map(&items, |&i| if i % 300 == 299 { Err(i) } else { Ok(i) });
        assert_eq!(failing, Err(299));
        assert_eq!(try_map(&[] as &[u32], |&i| Ok::<u32, ()>(i)), Ok(vec![]));
        assert_eq!(map(&items, |&i| i + 1)[999], 1000);
    }

    #[test]
    fn join_returns_both_outcomes() {
        let items: Vec<u64> = (1..=100).collect();
        let (sum, product) = join(
            || items.iter().sum::<u64>(),
            || items[..10].iter().product::<u64>(),
        );
        assert_eq!((sum, product), (5050, 3_628_800));
    }
}
