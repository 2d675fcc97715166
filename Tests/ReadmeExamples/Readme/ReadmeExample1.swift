// README block 1, compiled with exactly the imports it shows.
// ReadmeExampleTests keeps the two equal.

import Versola

func readmeExample1() async throws {
    var configuration = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-cli")
    configuration.redirect.port = 8765      // only for providers that match the port exactly
    configuration.dpop = .auto              // the default: DPoP when the provider advertises ES256 (.require, .off)
    let client = try OpenIDClient(configuration: configuration)   // validated before any request
    let grant = try await client.login(present: { prompt in
        if !prompt.browserOpened { print("Open this URL to sign in:\n\(prompt.url)") }
    })
    print("signed in as", grant.claims?.subject ?? "(no ID token)")
    let info = try await client.userInfo(grant)
    print("email:", info.email ?? "none")
    let renewed = try await client.refresh(grant)
    await client.revoke(renewed)
}
