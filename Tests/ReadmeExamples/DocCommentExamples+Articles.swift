// The Swift examples of Versola.docc's articles, compiled as written: the second half of
// DocCommentExamples.swift, whose header says how DocCommentExampleTests checks them.

import Foundation
import Versola

// MARK: Sources/Versola/Versola.docc/GettingStarted.md

func docExampleGettingStartedCreate() async throws {
    let client = ClientConfiguration(issuer: "https://login.example.com", clientID: "my-app")
    let storage = try SessionStorage.standard(profile: "work")
    let session = try Session(configuration: SessionConfiguration(client: client),
                              store: storage.store)
    await session.start()
}

func docExampleGettingStartedLogin(session: Session) async throws {
    Task {
        for await state in session.states() { print("session is", state) }
    }
    if session.state == .unauthenticated {
        try await session.login(present: { prompt in
            if !prompt.browserOpened { print("Open this address to sign in:\n\(prompt.url)") }
        })
    }
    print("signed in as", session.user?.subject ?? "nobody")
}

func docExampleGettingStartedCancel(session: Session) async {
    let signIn = Task { try await session.login() }      // the Sign in button
    await session.cancelLogin()                          // the Cancel button
    if case .failure(let error as VersolaError) = await signIn.result { print("sign-in ended:", error) }
}

func docExampleGettingStartedDevice(session: Session) async throws {
    try await session.loginWithDevice { prompt in
        print("Open \(prompt.verificationURIComplete ?? prompt.verificationURI) and enter \(prompt.userCode)")
    }
}

func docExampleGettingStartedSend(session: Session, apiURL: URL) async throws {
    do {
        let response = try await session.send(HTTPRequest(url: apiURL))
        print(response.status)
    } catch .recoverable(let cause) {
        print("try again later:", cause)            // nothing was lost
    } catch .reauthenticate(let reason) {
        print("sign in again:", reason)             // the grant is gone; never signed in again by itself
    } catch .stepUp(let challenge) {
        try await session.stepUp(challenge)         // the resource wants a stronger sign-in
    } catch .configuration(let detail) {
        print("fix the setup:", detail)
    }
}

func docExampleGettingStartedLogout(session: Session) async {
    await session.logout()
}

// MARK: The error hierarchy and the HTTP layer

func docExampleVersolaError(session: Session) async throws {
    do {
        let token = try await session.accessToken()
        print(token)                           // the type and expiry, never the token itself
    } catch .recoverable(let cause) {
        print("try again later:", cause)       // the session is intact
    } catch .reauthenticate {
        print("the grant is gone: offer a new login")
    } catch .stepUp(let challenge) {
        try await session.stepUp(challenge)
    } catch .configuration(let detail) {
        print("a developer or administrator must fix:", detail)
    }
}


func docExampleIDTokenRejection(error: VersolaError) {
    if case .configuration(.idTokenRejected(let rejection)) = error, rejection.kind == .expired {
        print("check this computer's clock:", rejection.detail)
    }
}

func docExampleClientSecret() {
    var configuration = ClientConfiguration(issuer: "https://accounts.google.com", clientID: "123.apps.googleusercontent.com")
    configuration.clientSecret = ClientSecret("GOCSPX-example")
}

func docExampleEndpointOverrides() {
    var configuration = ClientConfiguration(issuer: "https://github.com", clientID: "Iv1.example")
    configuration.endpoints[.authorization] = URL(string: "https://github.com/login/oauth/authorize")
    configuration.endpoints[.token] = URL(string: "https://github.com/login/oauth/access_token")
    configuration.scopes = ["repo"]
}

func docExampleVersolaVersion() {
    print("versola", VersolaVersion.current)
}

func docExampleFileClientRegistrations() throws {
    let registrations = FileClientRegistrations(directory: "/home/me/.local/state/versola/registrations")
    let known = try registrations.registration(for: "https://auth.example.com")
    print(known?.clientID ?? "not registered yet")
}

func docExampleProtectedResourceMetadata(response: HTTPResponse) throws {
    let metadata = try ProtectedResourceMetadata(parsing: response.body, resource: "https://api.example.com/mcp")
    print(metadata.authorizationServers)
}

func docExampleResourceURL() {
    if let resource = ResourceURL("https://api.example.com/mcp"), let asked = ResourceURL("https://API.example.com:443/mcp/tools") {
        print(resource.covers(asked))  // true; `…/mcp2` or another port would be false
    }
}

func docExampleRegisteredClient() throws {
    let registrations = FileClientRegistrations(directory: "/home/me/.local/state/versola/registrations")
    if let known = try registrations.registration(for: "https://auth.example.com") {
        print("registered as", known.clientID, "on port", known.redirectPort)
    }
}

func docExampleResourceAuthorization() async throws {
    var start = ResourceAuthorization(resource: "https://api.example.com/mcp")
    start.registrations = FileClientRegistrations(directory: "/home/me/.local/state/versola/registrations")
    let prepared = try await start.prepare()
    let storage = try SessionStorage.standard(profile: "api")
    let session = try Session(configuration: SessionConfiguration(client: prepared.configuration), store: storage.store)
    await session.start()
}
