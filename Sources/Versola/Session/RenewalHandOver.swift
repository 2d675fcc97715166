import VersolaHTTP

/// Where a session stood before another process renewed its grant for it (the agent's refresh
/// process): a record that process hands back (P10) replaces, on disk, only this grant.
package struct RenewalHandOver: Sendable {
    /// The refresh token on disk that the renewed record replaces. Secret.
    let replacing: String?
}
