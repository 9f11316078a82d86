use std::process::ExitCode;

// The replay allocates many small, short-lived values (requirements, pod sets, simulation
// scratch); glibc's allocator spent about a fifth of a forecast's CPU on them, mimalloc a
// fraction of that. The library keeps the system allocator: fuzz targets and tests link it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    kubectl_consolidation::app::main()
}
