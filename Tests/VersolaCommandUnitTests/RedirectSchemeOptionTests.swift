import Testing
import Versola
import VersolaHTTP
import VersolaJOSE

@testable import VersolaCommand

/// `versola login --redirect-scheme` (L7): parsed, kept in the profile, validated, and the
/// handler's entry and refusals as `handle-redirect` words them.
@Suite("Redirect scheme option")
struct RedirectSchemeOptionTests {
    static let uri = "com.example.versola:/callback"

    @Test("L7: --redirect-scheme is parsed, kept in the profile and read back; an empty value goes back to loopback")
    func keptInTheProfile() throws {
        let invocation = try CommandParser.parse(["login", "--redirect-scheme", Self.uri])
        var parsed = LoginOptions()
        parsed.redirectScheme = Self.uri
        #expect(invocation.command == .login(parsed))
        var options = LoginOptions(issuer: "https://id.example", clientID: "cli")
        options.redirectScheme = Self.uri
        let settings = try ProfileSettings.merging(options, over: nil, profile: "p")
        #expect(settings.redirectScheme?.uri == Self.uri)
        #expect(settings.clientConfiguration.privateUseRedirect?.uri == Self.uri)
        #expect(settings.json["redirectScheme"] == .string(Self.uri))
        #expect(try ProfileSettings(json: settings.json).redirectScheme?.uri == Self.uri)
        let kept = try ProfileSettings.merging(LoginOptions(), over: settings, profile: "p")
        #expect(kept.redirectScheme?.uri == Self.uri)
        options.redirectScheme = ""
        let back = try ProfileSettings.merging(options, over: settings, profile: "p")
        #expect(back.redirectScheme == nil && back.clientConfiguration.privateUseRedirect == nil)
    }

    @Test("L7: a scheme that is not reverse-domain, or is http, is refused before anything is saved")
    func refused() throws {
        for bad in ["myapp:/callback", "https://example.com/callback", "http:/callback"] {
            var options = LoginOptions(issuer: "https://id.example", clientID: "cli")
            options.redirectScheme = bad
            #expect(throws: VersolaError.self) { try ProfileSettings.merging(options, over: nil, profile: "p") }
        }
        let stored: JSONValue = ["issuer": "https://id.example", "clientID": "cli", "redirectScheme": "myapp:/x"]
        #expect(throws: VersolaError.self) { try ProfileSettings(json: stored) }
    }

    @Test("L7: the handler entry runs versola --profile P handle-redirect with the URL")
    func handlerEntry() throws {
        let entry = try SchemeHandlerSetup.entry(
            for: try PrivateUseRedirect(Self.uri), profile: "work", executable: "/usr/local/bin/versola")
        #expect(entry.name == "versola-com.example.versola")
        #expect(entry.contents.contains("\nExec=/usr/local/bin/versola --profile work handle-redirect %u\n"))
        #expect(entry.contents.contains("\nMimeType=x-scheme-handler/com.example.versola;\n"))
    }

    @Test("L7 L2 L6: handle-redirect says plainly why it cannot use a redirect, and names no internal case")
    func refusals() throws {
        let pending = PendingAuthorization(
            state: "the-state", nonce: "n", codeVerifier: String(repeating: "v", count: 43), redirectURI: Self.uri,
            issuer: "https://id.example", clientID: "cli", scope: "openid", createdAt: .now)
        let genuine = Self.uri + "?code=c&state=the-state"
        #expect(SchemeHandlerSetup.refusal(genuine, pending: pending, profile: "work") == nil)
        let none = ErrorReport.sentence(for: .recoverable(.pendingRequestExpired), profile: "work")
        #expect(none.contains("no sign-in is waiting") && none.contains("versola login --profile work"))
        let other = try #require(SchemeHandlerSetup.refusal(Self.uri + "?code=c&state=x", pending: pending, profile: "work"))
        #expect(other.contains("another sign-in") && other.contains("goes on waiting"))
        let garbage = try #require(SchemeHandlerSetup.refusal("garbage", pending: pending, profile: "work"))
        #expect(garbage.contains("not a sign-in response"))
        #expect(SchemeHandlerSetup.refusal("garbage", pending: nil, profile: "work")?.contains("not a sign-in response") == true)
        #expect(SchemeHandlerSetup.refusal(genuine, pending: nil, profile: "work") == nil)
        let live = try #require(SchemeHandlerSetup.refusal(genuine, pending: pending, profile: "work", overLiveSession: true))
        #expect(live.contains("versola logout --profile work"))
    }
}
