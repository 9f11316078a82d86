use std::process::ExitCode;

fn main() -> ExitCode {
    kubectl_consolidation::app::main()
}
