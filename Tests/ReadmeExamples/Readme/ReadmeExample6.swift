// README block 6, compiled with exactly the imports it shows (it continues the block before, so those of that block).
// ReadmeExampleTests keeps the two equal.

import Versola

func readmeExample6(session: Session) async throws {
    let login = Task { try await session.login() }          // the Sign in button
    // … the person presses Cancel:
    await session.cancelLogin()
    if case .failure(let error as VersolaError) = await login.result, error == .recoverable(.userCancelled) {
        print("cancelled; nothing changed")
    }
}
