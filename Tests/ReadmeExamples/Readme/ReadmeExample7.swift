// README block 7, compiled with exactly the imports it shows (it continues the block before, so those of that block).
// ReadmeExampleTests keeps the two equal.

import Versola

func readmeExample7(session: Session) async throws {
    try await session.loginWithDevice { prompt in
        print("Open \(prompt.verificationURIComplete ?? prompt.verificationURI) and enter \(prompt.userCode)")
    }
}
