import Foundation
import Versola
import VersolaHTTP
import VersolaJOSE

/// `versola request URL`: sends the request with the profile's token (through the agent, or a
/// session of this process) and prints the answer as curl would. For a URL nobody signed in
/// for (A19), the request goes without a token: an API that answers it is printed as it is,
/// and a 401 naming its authorization server gets the one line that signs in for it.
struct RequestCommand {
    let context: CommandContext
    let options: RequestOptions

    /// The whole command.
    func run() async throws(CommandFailure) -> ExitStatus {
        let body = try requestBody()
        if !context.invocation.global.resourceProfiles.isEmpty, (try? context.profileFiles().load(context.profile)) == nil,
            let answer = await ResourceSignInHint.probe(options, body: body)
        {
            // A19: a line to sign in only for a 401 that names the API's authorization server;
            // any other answer (an MCP server's `initialize` served without a token, a 404) is
            // the answer, as curl would print it.
            if let line = answer.line {
                throw .versola(
                    .configuration(
                        .invalidConfiguration(
                            "nobody signed in for \(options.url); its metadata names the authorization server, so one line signs in: \(line)")))
            }
            if answer.response.status != 401 { return show(AgentHTTPResponse(answer.response)) }
        }
        let arguments = AgentHTTPRequest(
            method: options.effectiveMethod, url: options.url,
            headers: options.headers.map { AgentHTTPRequest.Header($0.name, $0.value) }, body: body)
        let request = AgentRequest(.request(arguments), profile: context.profile)
        let count = StepUpCount(context, method: options.effectiveMethod)
        // Read before the request: a sign-in another caller ends after its answer shows as a change.
        let mark = SignInGate.mark(context)
        do {
            // On a terminal a refusal is counted by the sign-in it leads to, not here: callers
            // that wait for another's sign-in (S15) have no step-up of their own to count.
            return show(try await answerFollowingSignIns(request, counting: count, since: mark))
        } catch .versola(.stepUp(let challenge)) where interactive && !challenge.scopes.isEmpty {
            // A20 on a terminal: the browser sign-in for the scopes together (its messages on
            // standard error; standard output is the API's), then the request once more. A
            // second refusal is not followed again: its line is printed instead.
            return show(try await steppedUp(request, challenge: challenge, counting: count, since: mark))
        }
    }

    /// The API's answer; when the session is gone because another process signs in for the
    /// profile (or just did, since `mark`), the answer once that sign-in is over (S15).
    private func answerFollowingSignIns(_ request: AgentRequest, counting count: StepUpCount?, since mark: SignInGate.Mark)
        async throws(CommandFailure) -> AgentHTTPResponse
    {
        do {
            return try await answer(request, counting: count, takingStepUp: !interactive)
        } catch .versola(.reauthenticate(let cause)) {
            guard try await SignInGate.anotherSignInEnded(context, since: mark) else { throw .versola(.reauthenticate(cause)) }
            return try await answer(request, counting: count, takingStepUp: !interactive)
        }
    }

    /// The API's answer, or the step-up it asks for (a 403 `insufficient_scope`, or a 401
    /// naming more scope, A20), counted across invocations: past ``StepUpCount/limit`` in a
    /// row, the error that says so instead.
    private func answer(_ request: AgentRequest, counting count: StepUpCount?, takingStepUp: Bool = true)
        async throws(CommandFailure) -> AgentHTTPResponse
    {
        do {
            let result = try await CommandRunner.call(request, context, as: AgentHTTPResponse.self)
            try stepUpWhenAsked(result)
            count?.settle(status: result.status)
            return result
        } catch .versola(.stepUp(let challenge)) where !challenge.scopes.isEmpty {
            if takingStepUp { try count?.take(challenge) }
            throw .versola(.stepUp(challenge))
        }
    }

    /// S15: the answer after the profile's one sign-in for the challenge's scopes: the one
    /// another caller ran (this one waited for it, or the profile changed after `mark`, read
    /// before the refused request; it sends the request once more to see), else its own, which
    /// alone counts as a step-up.
    private func steppedUp(
        _ request: AgentRequest, challenge: StepUpChallenge, counting count: StepUpCount?, since mark: SignInGate.Mark
    )
        async throws(CommandFailure)
        -> AgentHTTPResponse
    {
        var login = context
        login.console = StandardErrorOnly(context.console)
        var loginOptions = LoginOptions()
        loginOptions.scopes = challenge.scopes
        let context = context
        let waited = try await SignInGate.signInOnce(context, recheck: .afterWaitingOrChangedSince(mark)) {
            () async throws(CommandFailure) -> AgentHTTPResponse? in
            do throws(CommandFailure) {
                let again = try await CommandRunner.call(request, context, as: AgentHTTPResponse.self)
                try stepUpWhenAsked(again)
                return again
            } catch .versola(.stepUp) {
                return nil
            }
        } signIn: { () async throws(CommandFailure) in
            try count?.take(challenge)
            try await LoginCommand(context: login, options: loginOptions, holdsSignInLock: true).run()
        }
        if let waited {
            count?.settle(status: waited.status)
            return waited
        }
        return try await answer(request, counting: count)
    }

    /// Whether a person is at a terminal to sign in (standard input and standard error).
    private var interactive: Bool {
        context.console.errorIsTerminal && isatty(STDIN_FILENO) == 1 && !context.invocation.global.json
    }

    /// A20: a 403 `insufficient_scope` naming scopes is the step-up category, whose message is
    /// the exact line that signs in for the held scopes and the named ones together (a login
    /// of the resource's profile with `--scope` registers again where the kept registration
    /// does not cover them).
    private func stepUpWhenAsked(_ result: AgentHTTPResponse) throws(CommandFailure) {
        guard result.status == 403 else { return }
        let challenge = WWWAuthenticate(headers: result.httpHeaders)
        guard let bearer = challenge.challenge(scheme: "Bearer") ?? challenge.challenge(scheme: "DPoP"),
            bearer["error"] == "insufficient_scope", let named = bearer["scope"]
        else { return }
        var scopes = (try? context.profileFiles().load(context.profile))?.scopes ?? []
        for scope in named.split(separator: " ").map(String.init) where !scopes.contains(scope) { scopes.append(scope) }
        throw .versola(.stepUp(StepUpChallenge(scopes: scopes)))
    }

    private func requestBody() throws(CommandFailure) -> [UInt8] {
        guard let data = options.data else { return [] }
        if data == "@-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard data.hasPrefix("@") else { return Array(data.utf8) }
        guard let contents = FileManager.default.contents(atPath: String(data.dropFirst())) else {
            throw .usage(UsageError("cannot read \(data.dropFirst())", command: .request))
        }
        return Array(contents)
    }

    /// Prints an answer and returns the exit status curl would (`--fail`: 22 for a status of
    /// 400 or more).
    private func show(_ result: AgentHTTPResponse) -> ExitStatus {
        let status = result.status
        let responseBody = result.body
        if context.invocation.global.json {
            var members: [(String, JSONValue)] = [("status", .integer(Int64(status)))]
            members.append(("headers", AgentHTTPRequest.Header.json(result.headers)))
            members.append(("body", .string(String(decoding: responseBody, as: UTF8.self))))
            context.console.out(JSONValue.object(JSONObject(members)).serialized() + "\n")
        } else {
            if context.console.outputIsTerminal {
                // On a terminal the resource's answer is text to read: escapes shown, not obeyed (L5).
                let text = TerminalText.visible(String(decoding: responseBody, as: UTF8.self), keepingLines: true)
                // The shell prompt starts on a line of its own.
                context.console.out(text.isEmpty || text.hasSuffix("\n") ? text : text + "\n")
            } else {
                // Into a pipe or file it is written unaltered (`versola request URL > answer.json`).
                context.console.out(String(decoding: responseBody, as: UTF8.self))
            }
            if !(200...299).contains(status) { context.console.err("versola: HTTP \(status)\n") }
        }
        return options.fail && status >= 400 ? .httpFailure : .success
    }
}
