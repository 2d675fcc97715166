/// What the flags accepted everywhere set while a command line is read.
struct GlobalSettings: Sendable {
    /// The options the command runs with.
    var options = GlobalOptions()
    /// `--help`, `-h` or the word `help`.
    var wantsHelp = false
    /// `--version`.
    var wantsVersion = false

    /// The defaults the environment gives: `NO_COLOR`, `VERSOLA_NO_AGENT`, `VERSOLA_PROFILE`.
    init(environment: [String: String]) {
        options.color = (environment["NO_COLOR"] ?? "").isEmpty
        options.noAgent = ["1", "true", "yes"].contains(environment["VERSOLA_NO_AGENT"] ?? "")
        if let profile = environment["VERSOLA_PROFILE"], !profile.isEmpty {
            options.profile = profile
            options.profileGiven = true
        }
    }
}

/// The flags every command accepts, before or after the command's name.
enum GlobalFlags {
    static let all: [CommandFlag<GlobalSettings>] = [
        CommandFlag(["--profile"], value: "NAME", help: "the profile to use (default: $VERSOLA_PROFILE, else default)") {
            settings, flag, _ in
            settings.options.profile = flag.value ?? ""
            settings.options.profileGiven = true
        },
        .toggle(["--json"], help: "results and errors as JSON", sets: \.options.json),
        .toggle(
            ["--no-agent"], help: "run in this process, without the session agent (also VERSOLA_NO_AGENT=1)",
            sets: \.options.noAgent),
        .toggle(
            ["--verbose", "-v"],
            help: "show each HTTP exchange on stderr (method, URL without query values, status, time, retries), secrets left out; implies --no-agent",
            sets: \.options.verbose),
        .toggle(["--help", "-h"], help: "this help, or a command's", sets: \.wantsHelp),
        .toggle(["--version"], help: "print the version and exit", sets: \.wantsVersion),
    ]

    /// The global flag spelled `name`, if it is one.
    static func named(_ name: String) -> CommandFlag<GlobalSettings>? {
        all.first { $0.spec.names.contains(name) }
    }
}
