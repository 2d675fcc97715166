import Foundation
import Synchronization
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola login` and `versola handle-redirect`: the interactive sign-in runs in the
/// command's own process (the browser and the terminal are here); the running agent, if any,
/// is then told to read the new session from the store.
///
/// The flow: the browser with a loopback redirect; with `--no-browser` the same, the URL
/// printed and a pasted redirect accepted; with `--device`, or when no browser can be started
/// and the provider offers it, a code to enter on another device (A14).
struct LoginCommand {
    let context: CommandContext
    let options: LoginOptions
    /// Whether the caller holds the profile's sign-in lock already (S15, ``SignInGate``); a
    /// login run by hand takes it itself, waiting for a sign-in another process runs.
    var holdsSignInLock = false

    func run() async throws(CommandFailure) {
        let lock = holdsSignInLock ? nil : try await SignInGate.hold(context)
        defer { lock?.release() }
        let prepared: Prepared
        do throws(VersolaError) {
            prepared = try await prepare()
        } catch {
            throw .versola(error)
        }
        try await signIn(prepared)
        let session = prepared.session, context = context, json = context.invocation.global.json
        let note = await Self.handOver(session, context: context, passphrase: prepared.keys.passphrase)
        let status = SessionHost.status(of: session, settings: prepared.settings, profile: context.profile)
        context.console.out(json ? status.json.serialized() + "\n" : Self.signedInText(status, color: CommandRunner.useColor(context)))
        if let note, !json { context.console.err(note) }
    }

    /// What a login has once its settings are resolved and its session has started.
    private struct Prepared {
        let settings: ProfileSettings
        let session: Session
        let pendingProfile: PendingProfile
        let browserAvailable: Bool
        let keys: LoginKeys
    }

    /// Resolves the settings (a resource's registration included), unlocks the keys, keeps the
    /// settings pending beside the saved profile and starts the session.
    private func prepare() async throws(VersolaError) -> Prepared {
        let console = context.console
        let profile = context.profile
        let settings: ProfileSettings
        let session: Session
        let pendingProfile: PendingProfile
        let browserAvailable: Bool
        let keys: LoginKeys
        do {
            let files = try context.profileFiles()
            let saved = try files.load(profile)
            try ResourceLogin.refuseReplacing(saved, options: options, context: context)
            let resolved = try await ResourceLogin.resolve(options, saved: saved, context: context)
            var merged = try ProfileSettings.merging(resolved.options, over: saved, profile: profile)
            resolved.apply(to: &merged, saved: saved)
            settings = merged
            if let note = resolved.note, !context.invocation.global.json { console.err(TerminalText.visible(note) + ".\n") }
            try settings.clientConfiguration.validate()
            let ignored = DeviceLoginText.ignoredFlags(options)
            if options.device, !ignored.isEmpty {
                throw .configuration(
                    .invalidConfiguration(
                        "a sign-in on another device (--device) sends no \(ignored.joined(separator: ", ")); "
                            + "leave them out, or sign in through the browser without --device"))
            }
            browserAvailable = Self.browserAvailable(settings: settings, context: context)
            let storage = try ProfileStorage(
                profile: profile, settings: settings, directories: try context.directories(), environment: context.environment)
            try LoginKeys.refuseChange(from: saved, to: settings, storage: storage, profile: profile)
            try SchemeHandlerSetup.installIfUsed(settings, context: context)
            keys = try await LoginKeys.unlock(storage, profile: profile, descriptor: passphraseDescriptor)
            // P11: the saved profile changes only when the login succeeds; until then the new
            // settings wait beside it, where `handle-redirect` finds them (L2).
            pendingProfile = PendingProfile(files: files, profile: profile)
            do throws(VersolaError) {
                try pendingProfile.save(settings)
                // S14: a pending request an interrupted login left is the engine's to supersede
                // (a device login resumes a device request instead, P2).
                session = try Session(
                    configuration: SessionConfiguration(client: settings.clientConfiguration), store: storage.store,
                    environment: .command(context.environment), browser: browser(for: settings))
                await session.start()
            } catch {
                pendingProfile.discard()
                keys.settle()
                throw error
            }
        }
        return Prepared(
            settings: settings, session: session, pendingProfile: pendingProfile, browserAvailable: browserAvailable,
            keys: keys)
    }

    /// The sign-in itself, through the browser or another device; the pending settings become
    /// the profile when it succeeds.
    private func signIn(_ prepared: Prepared) async throws(CommandFailure) {
        let console = context.console
        let (session, settings, pendingProfile, keys) = (prepared.session, prepared.settings, prepared.pendingProfile, prepared.keys)
        var parameters = AuthorizationParameters()
        parameters.acrValues = options.acrValues
        parameters.maxAge = options.maxAge
        parameters.loginHint = options.loginHint
        parameters.prompt = options.prompt

        let interactive = console.outputIsTerminal && console.errorIsTerminal && !context.invocation.global.json
        let indicator = WaitingIndicator(console: console, color: context.invocation.global.color && interactive)
        let json = context.invocation.global.json
        // E7: Ctrl-C cancels the login; the session then returns to where it was.
        let interruption = LoginInterruption.watch { await session.cancelLogin() }
        do throws(VersolaError) {
            let dpop = try await session.bindsTokensToDPoP()
            if !json { console.err(LoginNotes.dpopLine(mode: settings.dpop, usesDPoP: dpop)) }
            if try await usesDeviceFlow(session, browserAvailable: prepared.browserAvailable) {
                if !options.device && !json { console.err(DeviceLoginText.chosenWithoutBrowser) }
                try await session.loginWithDevice(parameters) { prompt in
                    // One write: the code and its QR code reach the terminal together.
                    let drawn = interactive && !options.noQR ? DeviceLoginText.qrCode(prompt, environment: context.environment) : nil
                    console.err(DeviceLoginText.prompt(prompt) + (drawn ?? ""))
                    if interactive { indicator.start(message: "Waiting for the approval on the other device…") }
                }
            } else {
                try await session.login(parameters) { prompt in
                    if prompt.browserOpened {
                        console.err(
                            "Opened the browser to sign in. If it did not appear, open:\n  \(TerminalText.visible(prompt.url))\n")
                    } else {
                        console.err(
                            "Open this URL in a browser to sign in:\n  \(TerminalText.visible(prompt.url))\n"
                                + "Then wait here, or paste the address the browser ends on (starting \(prompt.redirectURI)):\n")
                        PastedRedirectReader.start(
                            console: console, session: session, json: json, redirectURI: prompt.redirectURI)
                    }
                    // A line redrawn in place would wipe what the person types or pastes at the
                    // terminal, so there is none while a pasted address is read from it.
                    let readsTyping = !prompt.browserOpened && console.inputIsTerminal
                    if interactive && !readsTyping {
                        indicator.start(redirectURI: prompt.redirectURI, fixedPort: settings.port != 0)
                    }
                }
            }
            try pendingProfile.promote()
        } catch {
            interruption.stop()
            indicator.stop()
            pendingProfile.settle(after: error)
            keys.settle()
            throw .versola(error)
        }
        interruption.stop()
        indicator.stop()
    }

    /// Tells a running agent about the new session and hands it the login's access token, so
    /// `versola token` serves it at once (and at all, for a provider without refresh tokens);
    /// a passphrase profile's passphrase goes first, so the agent can open the session.
    /// Returns a note for a session that will need a new login when its access token expires.
    static func handOver(_ session: Session, context: CommandContext, passphrase: Passphrase? = nil) async -> String? {
        if let passphrase { CommandRunner.handPassphrase(passphrase, context) }
        CommandRunner.reloadAgent(context)
        guard let token = await session.heldAccessToken() else { return nil }
        // A grant without an ID token (no openid, A16) is handed over too, matched by its absence.
        CommandRunner.handAccessToken(token, idToken: await session.idToken(), context)
        guard !token.renewable else { return nil }
        guard let end = token.expiresAt else {
            return "The provider gave no refresh token and no expiry: this session lasts until a resource refuses its token; "
                + "then run versola login again.\n"
        }
        return "The provider gave no refresh token: this session ends at \(ISO8601DateFormatter().string(from: end)); "
            + "then run versola login again.\n"
    }

    /// `--passphrase-fd`, else `VERSOLA_PASSPHRASE_FD`.
    private var passphraseDescriptor: Int32? {
        PassphraseInput.descriptor(flag: options.passphraseDescriptor, environment: context.environment)
    }

    private func browser(for settings: ProfileSettings) -> any BrowserLauncher {
        options.noBrowser ? NoBrowser() : SystemBrowser(command: settings.browserCommand, environment: context.environment)
    }

    /// Whether a browser could be started for the login (L1): a browser command, `$BROWSER`,
    /// or a display for `xdg-open`. Over SSH or on a console there is none.
    static func browserAvailable(settings: ProfileSettings, context: CommandContext) -> Bool {
        !SystemBrowser(command: settings.browserCommand, environment: context.environment)
            .candidates(for: "https://versola.invalid/").isEmpty
    }

    /// A14: `--device`, or no browser to start (and no `--no-browser`) at a provider that offers
    /// the device flow. Flags only the browser flow sends keep the browser flow when not asked
    /// for `--device`.
    private func usesDeviceFlow(_ session: Session, browserAvailable: Bool) async throws(VersolaError) -> Bool {
        if options.device { return true }
        guard !options.noBrowser, !browserAvailable, DeviceLoginText.ignoredFlags(options).isEmpty else { return false }
        return try await session.providerMetadata().deviceAuthorizationEndpoint != nil
    }

    /// `versola handle-redirect URL`: completes the profile's pending login (L2).
    static func handleRedirect(_ url: String, context: CommandContext) async throws(CommandFailure) {
        do throws(VersolaError) {
            let pendingProfile = PendingProfile(files: try context.profileFiles(), profile: context.profile)
            let (settings, fromPending) = try pendingProfile.settingsForRedirect()
            let storage = try ProfileStorage(
                profile: context.profile, settings: settings, directories: try context.directories(),
                environment: context.environment, passphrase: context.passphraseSupplier())
            let waiting = try await RedirectHandOver.toWaitingLogin(
                url, store: storage.store, redirect: settings.clientConfiguration.redirect)
            if waiting == .handed {
                context.console.out(RedirectHandOver.handedText(json: context.invocation.global.json))
                return
            }
            let record = try await storage.store.load()
            if let refusal = SchemeHandlerSetup.refusal(
                url, pending: record?.pendingAuthorization, profile: context.profile,
                overLiveSession: record?.refreshToken != nil || record?.idToken != nil)
            {
                throw .configuration(.invalidConfiguration(refusal))
            }
            guard record?.pendingAuthorization != nil else { throw .recoverable(.pendingRequestExpired) }
            let session = try Session(
                configuration: SessionConfiguration(client: settings.clientConfiguration),
                store: storage.store, environment: .command(context.environment), browser: NoBrowser())
            await session.start()
            try await session.deliverRedirect(url)
            if fromPending { try pendingProfile.promote() }
            _ = await handOver(session, context: context, passphrase: storage.givenPassphrase())
            let status = SessionHost.status(of: session, settings: settings, profile: context.profile)
            context.console.out(
                context.invocation.global.json
                    ? status.json.serialized() + "\n" : signedInText(status, color: CommandRunner.useColor(context)))
        } catch {
            throw .versola(error)
        }
    }

    static func signedInText(_ status: AgentStatus, color: Bool) -> String {
        let who = status.user.map { $0.name ?? $0.subject } ?? "?"
        let place = "(profile \(status.profile), \(status.state.rawValue))"
        return "Signed in as " + StatusOutput.paint(TerminalText.visible(who), code: "1", color: color)
            + " \(TerminalText.visible(place)).\n"
    }
}

/// Reads pasted redirect URLs from standard input on a thread of its own and hands each to
/// the session (L2); a line that is not the redirect is reported and the wait goes on.
enum PastedRedirectReader {
    static func start(console: any Console, session: Session, json: Bool, redirectURI: String) {
        let thread = Thread {
            var lines = 0
            while let line = console.readLine() {
                lines += 1
                let pasted = line.trimmingBlanks
                if pasted.isEmpty { continue }
                let outcome = SyncBridge.wait { await PastedRedirect.deliver(pasted, to: session, json: json) }
                guard let message = outcome else { return }
                console.err(message)
            }
            // Standard input ended (it is /dev/null, a closed pipe, or Ctrl-D): say so, since
            // the URL's text above invites a paste that can no longer be read.
            if lines == 0 { console.err(closedInputNotice(redirectURI: redirectURI, json: json)) }
        }
        thread.start()
    }

    /// What a login says when nothing can be pasted: it waits for the browser alone.
    static func closedInputNotice(redirectURI: String, json: Bool) -> String {
        let message = "standard input is closed, so no address can be pasted; waiting for a browser to reach "
            + "\(TerminalText.visible(redirectURI)) (Ctrl-C to cancel)"
        if json {
            let notice: JSONValue = ["notice": ["cause": "inputClosed", "message": .string(message)]]
            return notice.serialized() + "\n"
        }
        return "versola: \(message).\n"
    }
}

/// The live "waiting for the browser" line on a terminal: a spinner and the seconds waited,
/// redrawn in place on standard error; erased when the login ends.
final class WaitingIndicator: Sendable {
    private let console: any Console
    private let color: Bool
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(console: any Console, color: Bool) {
        self.console = console
        self.color = color
    }

    func start(
        message: String = "Waiting for the sign-in in the browser…", redirectURI: String? = nil, fixedPort: Bool = false
    ) {
        let console = self.console
        let color = self.color
        let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        let started = ContinuousClock.now
        // The first frame is drawn at once, so that even a fast sign-in shows it.
        console.err("\r\(StatusOutput.paint(frames[0], code: "36", color: color)) \(message)\u{1B}[K")
        let spinner = Task {
            var frame = 1
            var hinted = false
            while !Task.isCancelled {
                let waited = (ContinuousClock.now - started).components.seconds
                let mark = StatusOutput.paint(frames[frame % frames.count], code: "36", color: color)
                if !hinted, let hint = LoginNotes.dueHint(waited: waited, redirectURI: redirectURI, fixedPort: fixedPort) {
                    console.err("\r\u{1B}[K" + hint)
                    hinted = true
                }
                console.err("\r\(mark) \(message) \(waited)s (Ctrl-C to cancel)\u{1B}[K")
                frame += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        task.withLock { $0 = spinner }
    }

    func stop() {
        let running = task.withLock { current -> Task<Void, Never>? in
            defer { current = nil }
            return current
        }
        guard let running else { return }
        running.cancel()
        console.err("\r\u{1B}[K")
    }
}
