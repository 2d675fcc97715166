import Versola
import VersolaTestIdP

/// Hands the authorization URL to the headless user agent instead of a person, for the
/// benchmarks' logins against the local test provider.
struct BenchBrowser: BrowserLauncher {
    func open(_ url: String) async -> Bool {
        Task { _ = try? await HeadlessUserAgent().complete(authorizationURL: url) }
        return true
    }
}
