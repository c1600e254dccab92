/// mimalloc: a large state is millions of small allocations made on both cores and kept to the
/// end, which it serves with less work per call and less memory than the system allocator
/// (explain on the 150,000-pod state: 1.2 s and 410 MB against 1.4 s and 514 MB).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    without_huge_pages();
    kubectl_dataflow::cli::main()
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
