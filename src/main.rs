/// mimalloc: a large state is millions of small allocations made on both cores and kept to the
/// end, which it serves with less work per call and less memory than the system allocator
/// (explain on the 150,000-pod state: 1.2 s and 410 MB against 1.4 s and 514 MB).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;
mod completion;

fn main() -> std::process::ExitCode {
    without_huge_pages();
    keep_freed_memory();
    crate::cli::main()
}

/// Transparent huge pages off for this process: mimalloc asks for them on its segments, and
/// faulting them in made a load's kernel time swing between 0.3 s and 1.4 s from run to run.
fn without_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments only and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// mimalloc's `mi_option_purge_delay`, the 16th entry of its option enum in the bundled v3
/// (the binding names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// That option's default in the bundled v3, in milliseconds: checked before the option is
/// changed, so that a mimalloc whose options are numbered otherwise is left as it is.
const DEFAULT_PURGE_DELAY: std::ffi::c_long = 1000;

/// Freed memory stays with the process instead of going back to the system: a command keeps
/// nearly all it allocates to the end, and the 80-90 MiB that mimalloc gave back while reading
/// a 150,000-pod state cache were soon faulted in again (18 ms more CPU, 10 ms more time).
fn keep_freed_memory() {
    // SAFETY: reading and setting an option takes plain integers and touches no memory of ours.
    unsafe {
        if libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) == DEFAULT_PURGE_DELAY {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1);
        }
    }
}
