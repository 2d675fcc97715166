import Testing
import Versola
import VersolaHTTP

@testable import VersolaCommand

@Suite("git hosts and credential messages")
struct GitHostTests {
    @Test func hostsAreHTTPSOrLoopback() throws {
        let plain = try GitHost.parse("Git.Example.com")
        #expect(plain.url == "https://git.example.com")
        #expect(plain.stored == "git.example.com")
        #expect(try GitHost.parse("https://git.example.com:8443/team/repo.git").authority == "git.example.com:8443")
        let loopback = try GitHost.parse("http://127.0.0.1:8080")
        #expect(loopback.stored == "http://127.0.0.1:8080")
        #expect(loopback.matches(protocol: "http", host: "127.0.0.1:8080"))
        #expect(!loopback.matches(protocol: "http", host: "127.0.0.1:8081"))
        #expect(!plain.matches(protocol: "http", host: "git.example.com"))
        #expect(plain.matches(protocol: "https", host: "GIT.example.com"))
        // A token must not cross the network in clear.
        for clear in ["http://git.example.com", "ssh://git.example.com"] {
            #expect("\(clear)") {
                try GitHost.parse(clear)
            } throws: {
                VersolaError.isInvalidConfiguration($0, saying: "--host must be https")
            }
        }
        #expect { try GitHost.parse("") } throws: { VersolaError.isInvalidConfiguration($0, saying: "needs a host name") }
    }

    @Test func messagesReadToTheBlankLineAndAnswerByCapability() {
        var lines = ["protocol=https", "host=git.example.com", "capability[]=authtype", "capability[]=state", "", "x=y"][...]
        let request = GitCredentialMessage.read { lines.popFirst() }
        #expect(request["host"] == "git.example.com")
        #expect(request.values("capability[]") == ["authtype", "state"])
        #expect(request["x"] == nil)
        let modern = GitCredentialCommand.answer(to: request, token: "t0k", expiresAt: 1_800_000_000)
        #expect(modern.text == "capability[]=authtype\nauthtype=Bearer\ncredential=t0k\npassword_expiry_utc=1800000000\n")
        var old = ["protocol=https", "host=git.example.com"][...]
        let classic = GitCredentialCommand.answer(to: GitCredentialMessage.read { old.popFirst() }, token: "t0k", expiresAt: nil)
        #expect(classic.text == "username=oauth2\npassword=t0k\n")
        // A value git would misread is never written.
        #expect(GitCredentialMessage([.init("password", "a\nhost=evil")]).text.isEmpty)
    }

    @Test func theDPoPRefusalNamesTheFlag() {
        let error = BearerOnlyTool.git.dpopRefused(profile: "work")
        let text = ErrorReport.render(.versola(error), json: false, profile: "work")
        #expect(text.contains("versola login --profile work --no-dpop"))
        #expect(ExitStatus(error) == .configuration)
    }
}
