// The Swift examples of README.md, each compiled here as written (inside a function, without
// its import lines). ReadmeExampleTests checks that README.md shows exactly these blocks, so
// the README cannot drift from the API: change both together.

import Foundation
import Versola
import VersolaCrypto

// README block 1
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

// README block 2
func readmeExample2() async throws {
    let client = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-app")
    let storage = try SessionStorage.standard(profile: "work")            // key file under ~/.local/state/versola
    let session = try Session(configuration: SessionConfiguration(client: client),
                              store: storage.store)
    await session.start()                                   // disk only: works offline
    Task { for await state in session.states() { print("session is", state) } }
    if session.state == .unauthenticated { try await session.login() }

    do {
        let response = try await session.send(HTTPRequest(url: URL(string: "https://api.example.com/me")!))
        print(response.status)
    } catch .stepUp(let challenge) {
        try await session.stepUp(challenge)                 // acr_values / max_age from the resource
    } catch .reauthenticate {
        try await session.login()                           // the grant is gone; never done automatically
    } catch .recoverable(let cause) {
        print("try again later:", cause)                    // nothing was lost
    } catch .configuration(let detail) {
        print("fix the setup:", detail)
    }
    await session.logout()                                  // revokes, wipes locally even offline
}

// README block 3
func readmeExample3() async throws {
    let key = SymmetricKey.generate()
    let sealed = try AESGCM.seal(Array("refresh-token".utf8), key: key, authenticating: Array("profile".utf8))
    let opened = try AESGCM.open(sealed, key: key, authenticating: Array("profile".utf8))
    assert(opened == Array("refresh-token".utf8))

    let dpopKey = try P256PrivateKey()
    let signature = try dpopKey.signES256(Array("header.payload".utf8))   // 64 bytes, r || s
    let valid = dpopKey.verificationKey.verify(signature: signature, message: Array("header.payload".utf8), algorithm: .es256)
    print("signature verifies:", valid)
}

// README block 4
func readmeExample4(session: Session) async throws {  // continues the Session example
    try await session.loginWithDevice { prompt in
        print("Open \(prompt.verificationURIComplete ?? prompt.verificationURI) and enter \(prompt.userCode)")
    }
}
