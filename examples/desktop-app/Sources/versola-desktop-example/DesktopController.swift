import CGtk
import Foundation
import Versola

/// Joins the session to the window: follows the session's state stream (a login or logout by
/// the `versola` command on the same profile shows up too), and runs Sign in / Sign out off
/// the main loop, hopping back to it with the result.
final class DesktopController: @unchecked Sendable {
    let session: Session
    let options: ExampleOptions
    /// Set on the main loop at activation; read there only.
    private var window: SignInWindow?

    init(session: Session, options: ExampleOptions) {
        self.session = session
        self.options = options
    }

    /// GTK's `activate`: builds the window, then starts the session off the main loop.
    func activate(_ application: UnsafeMutablePointer<GtkApplication>) {
        let window = SignInWindow(application: application)
        self.window = window
        let context = Unmanaged.passUnretained(self).toOpaque()
        cgtk_on_clicked(window.signIn, { _, context in
            Unmanaged<DesktopController>.fromOpaque(context!).takeUnretainedValue().signIn()
        }, context)
        cgtk_on_clicked(window.signOut, { _, context in
            Unmanaged<DesktopController>.fromOpaque(context!).takeUnretainedValue().signOut()
        }, context)
        window.show(.unauthenticated, user: nil)
        window.present()
        let session = session
        Task.detached { [self] in
            await session.start()
            for await state in session.states() {
                let user = session.user
                self.record(state, user: user)
                MainLoop.run { window.show(state, user: user) }
            }
        }
    }

    private func signIn() {
        window?.note("Opening the browser…")
        let session = session
        Task.detached { [self] in
            do {
                try await session.login { prompt in
                    let text = prompt.browserOpened ? "Finish signing in in the browser." : "Open \(prompt.url) to sign in."
                    MainLoop.run { self.window?.note(text) }
                }
                MainLoop.run { self.window?.note("") }
            } catch {
                MainLoop.run { self.window?.note("Not signed in: \(error)") }
            }
        }
    }

    private func signOut() {
        let session = session
        Task.detached { [self] in
            _ = await session.logout()
            MainLoop.run { self.window?.note("Signed out.") }
        }
    }

    /// One line per state shown, for the desktop test (and anyone curious).
    private func record(_ state: SessionState, user: SessionUser?) {
        guard let path = options.stateLog else { return }
        let line = "state=\(state) user=\(user.map { $0.name ?? $0.subject } ?? "-") at=\(Date().timeIntervalSince1970)\n"
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data(line.utf8))
        try? handle.close()
    }
}
