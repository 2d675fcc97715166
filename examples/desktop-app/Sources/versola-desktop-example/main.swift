import CGtk
import Foundation
import Versola

// A GTK 4 window that embeds Versola's Session, signing in through a private-use URI scheme
// (RFC 8252 §7.1). Started by the desktop with `--redirect URL`, it hands the redirect to the
// waiting sign-in (L2, L7) and exits; the window sees the new session through the profile.

let options = ExampleOptions.parse(Array(CommandLine.arguments.dropFirst()))

/// Runs `work` to its end from this synchronous entry point (no GTK loop is running yet).
func wait(_ work: @escaping @Sendable () async -> Int32) -> Int32 {
    let done = DispatchSemaphore(value: 0)
    let status = LockedStatus()
    Task.detached {
        status.set(await work())
        done.signal()
    }
    done.wait()
    return status.value
}

final class LockedStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Int32 = 0
    var value: Int32 { lock.withLock { stored } }
    func set(_ value: Int32) { lock.withLock { stored = value } }
}

if let redirect = options.redirect {
    exit(
        wait {
            do {
                let session = try options.session(keySource: await options.keySource())
                await session.start()
                try await session.deliverRedirect(redirect)
                return 0
            } catch {
                FileHandle.standardError.write(Data("versola-desktop-example: the redirect was not taken: \(error)\n".utf8))
                return 1
            }
        })
}

// Register this program as the handler of the scheme, so the browser's redirect comes back here.
let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
let keySource = wait { await options.keySource() == .secretService ? 1 : 0 } == 1 ? KeySourceKind.secretService : .keyFile
FileHandle.standardError.write(Data("versola-desktop-example: the session's key is in the \(keySource.rawValue) key source\n".utf8))
let session: Session
do {
    let redirect = try PrivateUseRedirect(options.redirectScheme)
    try SchemeHandlerEntry(
        redirect: redirect, name: redirect.scheme, displayName: "Versola desktop example",
        command: [executable] + options.handlerArguments
    ).install()
    session = try options.session(keySource: keySource)
} catch {
    fail("\(error)")
}

let controller = DesktopController(session: session, options: options)
guard let application = cgtk_application_new("com.example.VersolaDesktop") else { fail("GTK did not start") }
cgtk_on_activate(application, { application, context in
    Unmanaged<DesktopController>.fromOpaque(context!).takeUnretainedValue().activate(application!)
}, Unmanaged.passUnretained(controller).toOpaque())
exit(cgtk_run(application, CommandLine.arguments[0]))
