// README block 5, compiled with exactly the imports it shows.
// ReadmeExampleTests keeps the two equal.

import Versola

func readmeExample5() async throws {
    struct ToolkitBrowser: BrowserLauncher {
        func open(_ url: String) async -> Bool {
            print("opening", url)                   // hand the URL to your toolkit here
            return false                            // false: login's present shows the address
        }
    }
    let configuration = SessionConfiguration(client: ClientConfiguration(issuer: "https://login.example.com", clientID: "my-app"))
    let store = try SessionStorage.standard(profile: "work").store
    let viaCommand = try Session(configuration: configuration, store: store, browser: SystemBrowser(command: "firefox --new-window %s"))
    let viaToolkit = try Session(configuration: configuration, store: store, browser: ToolkitBrowser())
    print(viaCommand.state, viaToolkit.state)
}
