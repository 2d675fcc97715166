import CGtk
import Versola

/// The window: the session's state, who is signed in, and Sign in / Sign out. Used on the
/// GTK main loop only (hence `@unchecked Sendable`: it is handed there, never touched elsewhere).
final class SignInWindow: @unchecked Sendable {
    let window: UnsafeMutablePointer<GtkWidget>
    let stateLabel: UnsafeMutablePointer<GtkWidget>
    let userLabel: UnsafeMutablePointer<GtkWidget>
    let noteLabel: UnsafeMutablePointer<GtkWidget>
    let signIn: UnsafeMutablePointer<GtkWidget>
    let signOut: UnsafeMutablePointer<GtkWidget>

    init(application: UnsafeMutablePointer<GtkApplication>) {
        window = cgtk_window_new(application, "Versola example: starting", 420, 220)
        let column = cgtk_vbox_new(12)!
        cgtk_set_margins(column, 24)
        stateLabel = gtk_label_new("")
        userLabel = gtk_label_new("")
        noteLabel = gtk_label_new("")
        let row = cgtk_hbox_new(12)!
        signIn = gtk_button_new_with_label("Sign in")
        signOut = gtk_button_new_with_label("Sign out")
        cgtk_set_size(signIn, 150, 40)
        cgtk_set_size(signOut, 150, 40)
        cgtk_box_append(row, signIn)
        cgtk_box_append(row, signOut)
        for widget in [stateLabel, userLabel, noteLabel, row] { cgtk_box_append(column, widget) }
        cgtk_window_set_child(window, column)
    }

    func present() { cgtk_window_present(window) }

    /// Shows `state` and `user`; the title says the same, for people and for xdotool.
    func show(_ state: SessionState, user: SessionUser?) {
        let signedIn = user != nil && state != .unauthenticated && state != .authorizing
        let who = user.map { $0.name ?? $0.subject } ?? ""
        cgtk_label_set_markup(stateLabel, "<big>State: <b>\(Self.escaped("\(state)"))</b></big>")
        cgtk_label_set_text(userLabel, signedIn ? "Signed in as \(who)" : "Nobody is signed in")
        cgtk_window_set_title(window, signedIn ? "Versola example: signed in as \(who)" : "Versola example: \(state)")
        cgtk_set_sensitive(signIn, state == .unauthenticated ? 1 : 0)
        cgtk_set_sensitive(signOut, signedIn ? 1 : 0)
    }

    /// A line under the buttons: what the browser is doing, or why the last action failed.
    func note(_ text: String) { cgtk_label_set_text(noteLabel, text) }

    private static func escaped(_ text: String) -> String {
        guard let escaped = cgtk_markup_escape(text) else { return "" }
        defer { cgtk_free(escaped) }
        return String(cString: escaped)
    }
}
