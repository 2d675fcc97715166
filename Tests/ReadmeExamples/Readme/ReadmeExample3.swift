// README block 3, compiled with exactly the imports it shows.
// ReadmeExampleTests keeps the two equal.

import Foundation
import Versola

func readmeExample3() async throws {
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
