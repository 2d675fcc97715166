import Foundation
import Versola

/// What the example is started with: `--issuer URL --client-id ID [--profile NAME]
/// [--redirect-scheme URI] [--state-log FILE]`, and `--redirect URL` when the desktop runs it
/// as the handler of its private-use scheme.
struct ExampleOptions: Sendable {
    var issuer = ""
    var clientID = ""
    var profile = "desktop"
    var redirectScheme = "com.example.versola-desktop:/callback"
    /// Each state the window shows is appended here, one line each (for tests and people).
    var stateLog: String?
    /// The redirect URL the desktop handed over: deliver it and exit.
    var redirect: String?

    static func parse(_ arguments: [String]) -> ExampleOptions {
        var options = ExampleOptions()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { fail("\(flag) needs a value") }
            switch flag {
            case "--issuer": options.issuer = value
            case "--client-id": options.clientID = value
            case "--profile": options.profile = value
            case "--redirect-scheme": options.redirectScheme = value
            case "--state-log": options.stateLog = value
            case "--redirect": options.redirect = value
            default: fail("unknown option \(flag)")
            }
        }
        if options.issuer.isEmpty || options.clientID.isEmpty { fail("--issuer and --client-id are required") }
        return options
    }

    /// The arguments that start this program again with the same settings (the handler's command).
    var handlerArguments: [String] {
        ["--issuer", issuer, "--client-id", clientID, "--profile", profile, "--redirect-scheme", redirectScheme]
            + (stateLog.map { ["--state-log", $0] } ?? []) + ["--redirect"]
    }

    /// The key sits in the desktop keyring (Secret Service) when the session bus offers one
    /// (a locked keyring counts: the window then shows `locked`), else in a user-only key file.
    /// Asks the keyring once, before the window opens.
    func keySource(environment: [String: String] = ProcessInfo.processInfo.environment) async -> KeySourceKind {
        guard !(environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").isEmpty,
            let keyring = try? SecretServiceKeySource(profile: profile, environment: environment)
        else { return .keyFile }
        do {
            _ = try await keyring.dataKey()
            return .secretService
        } catch .recoverable(.unlockRequired) {
            return .secretService
        } catch {
            return .keyFile
        }
    }

    /// A session on the profile, signing in through the private-use scheme.
    func session(keySource: KeySourceKind) throws(VersolaError) -> Session {
        var client = ClientConfiguration(issuer: issuer, clientID: clientID)
        client.privateUseRedirect = try PrivateUseRedirect(redirectScheme)
        let storage = try SessionStorage.standard(profile: profile, keySource: keySource)
        return try Session(configuration: SessionConfiguration(client: client), store: storage.store)
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("versola-desktop-example: \(message)\n".utf8))
    exit(2)
}
