/// A subcommand that could not do its work for a reason other than its arguments: a broker that
/// cannot be reached, a mosquitto that will not start, a file that cannot be written.
///
/// `beaconfleet` reports it as `Error: …` with exit status 1 and no usage. A bad flag or value
/// throws `ValidationError` instead (from `validate()` or `run()`), which prints the cause and
/// the subcommand's usage line and exits 64 (see ``BeaconFleet/main()``).
struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong, for the operator.
    let description: String

    init(_ description: String) { self.description = description }
}
