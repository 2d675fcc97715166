import CGtk

/// Hops work onto the GTK main loop: widgets are touched there only, and nothing that waits
/// (the network, the keyring, the browser) ever runs there.
enum MainLoop {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` once on the GTK main loop, soon (`g_idle_add`).
    static func run(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        cgtk_on_main_loop({ context in
            guard let context else { return 0 }
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return 0  // G_SOURCE_REMOVE: once
        }, context)
    }
}
