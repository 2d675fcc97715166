/// One flag of one command, declared once: how it shows (``spec``: its spellings, value,
/// choices and help, which `--help`, the completions and the man page print) and where its
/// value lands in the command's options (``land``, which the parser runs). A command takes
/// exactly the flags its ``CommandForm`` lists, so a flag cannot be parsed without being
/// shown, nor shown without being parsed.
struct CommandFlag<Options: Sendable>: Sendable {
    /// How the flag shows.
    let spec: FlagSpec
    /// Puts the flag's value into the options, or refuses it with a usage error.
    let land: @Sendable (inout Options, ParsedFlag, FlagReader) throws(UsageError) -> Void

    /// Creates a flag; `land` receives the flag with its value when it takes one.
    init(
        _ names: [String], value: String? = nil, choices: [String] = [], optionalValues: [String] = [], help: String,
        land: @escaping @Sendable (inout Options, ParsedFlag, FlagReader) throws(UsageError) -> Void
    ) {
        spec = FlagSpec(names, value: value, choices: choices, optionalValues: optionalValues, help: help)
        self.land = land
    }
}

extension CommandFlag {
    /// A place in the options.
    typealias Field<Value> = any WritableKeyPath<Options, Value> & Sendable

    /// A switch that sets `field` (`--watch`).
    static func toggle(_ names: [String], help: String, sets field: Field<Bool>) -> Self {
        Self(names, help: help) { options, _, _ in options[keyPath: field] = true }
    }

    /// A value kept as given (`--issuer URL`).
    static func text(
        _ names: [String], value: String, choices: [String] = [], help: String, into field: Field<String?>
    ) -> Self {
        Self(names, value: value, choices: choices, help: help) { options, flag, _ in options[keyPath: field] = flag.value }
    }

    /// Space-separated words added to a list; repeatable (`--scope S`).
    static func words(_ names: [String], value: String, help: String, into field: Field<[String]>) -> Self {
        Self(names, value: value, help: help) { options, flag, _ in
            options[keyPath: field] += (flag.value ?? "").split(separator: " ").map(String.init)
        }
    }

    /// A whole number in `range` (`--port N`).
    static func number(
        _ names: [String], value: String, help: String, in range: ClosedRange<Int>,
        set: @escaping @Sendable (inout Options, Int) -> Void
    ) -> Self {
        Self(names, value: value, help: help) { options, flag, reader throws(UsageError) in
            set(&options, try reader.number(flag, in: range))
        }
    }

    /// A file descriptor number (`--passphrase-fd N`).
    static func descriptor(_ names: [String], help: String, into field: Field<Int32?>) -> Self {
        number(names, value: "N", help: help, in: 0...Int(Int32.max)) { options, number in
            options[keyPath: field] = Int32(number)
        }
    }

    /// One word of a closed set, which the completions offer (`--format raw|json|k8s`);
    /// anything else is refused with `refusal`.
    static func choice<Value>(
        _ names: [String], value: String, choices: [String], help: String, refusal: String,
        parse: @escaping @Sendable (String) -> Value?, set: @escaping @Sendable (inout Options, Value) -> Void
    ) -> Self {
        Self(names, value: value, choices: choices, help: help) { options, flag, reader throws(UsageError) in
            guard let chosen = parse(flag.value ?? "") else { throw UsageError(refusal, command: reader.command) }
            set(&options, chosen)
        }
    }

    /// `--token access|id`, of `token` and `setup-kubectl`.
    static func tokenKind(help: String, into field: Field<TokenKind>) -> Self {
        choice(
            ["--token"], value: "KIND", choices: TokenKind.allCases.map(\.rawValue), help: help,
            refusal: "--token must be access or id", parse: TokenKind.init(rawValue:)
        ) { options, kind in options[keyPath: field] = kind }
    }

    /// `--passphrase-fd N`, of `login` and `unlock`.
    static func passphraseDescriptor(into field: Field<Int32?>) -> Self {
        descriptor(
            ["--passphrase-fd"],
            help: "read the passphrase from file descriptor N (a file whole, else one line) instead of the terminal; also VERSOLA_PASSPHRASE_FD",
            into: field)
    }
}
