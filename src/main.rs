fn main() -> std::process::ExitCode {
    kubectl_dataflow::cli::main()
}
