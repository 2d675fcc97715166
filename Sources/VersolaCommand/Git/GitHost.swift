import Foundation
import Versola
import VersolaHTTP

/// A git server `versola git-credential` answers for: a scheme and `host[:port]`, as git
/// names them in a credential request (`protocol=https`, `host=git.example.com:8443`).
///
/// ```swift
/// try GitHost.parse("git.example.com").url          // https://git.example.com
/// try GitHost.parse("http://127.0.0.1:8080").url    // http://127.0.0.1:8080
/// ```
public struct GitHost: Sendable, Hashable, CustomStringConvertible {
    /// `https`, or `http` for a loopback host.
    public var scheme: String
    /// The host name with its port when one was given, in lower case.
    public var authority: String

    /// What `--host` accepts: a host name (`https` is implied) or an `https://` URL, or an
    /// `http://` URL of a loopback host; a path is ignored. The one rule for where a token may
    /// be sent, shared by the other tools' targets (``TargetKey``).
    /// - Parameters:
    ///   - flag: the flag that gave `text`, for the message.
    ///   - example: a host name of the kind the flag takes, for the message.
    /// - Throws: `.configuration(.invalidConfiguration)` naming what is wrong.
    public static func parse(_ text: String, flag: String = "--host", example: String = "git.example.com")
        throws(VersolaError) -> GitHost
    {
        let written = text.contains("://") ? text : "https://" + text
        guard let url = URL(string: written), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else {
            throw .configuration(.invalidConfiguration("\(flag) needs a host name such as \(example)"))
        }
        guard scheme == "https" || (scheme == "http" && Origin(scheme: scheme, host: host)?.isLoopback == true) else {
            throw .configuration(
                .invalidConfiguration("\(flag) must be https (plain http only on loopback): a token must not travel in clear"))
        }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return GitHost(scheme: scheme, authority: (shownHost + (url.port.map { ":\($0)" } ?? "")).lowercased())
    }

    /// Whether git's request for `protocol` and `host` is for this server.
    public func matches(protocol requested: String?, host requestedHost: String?) -> Bool {
        requested?.lowercased() == scheme && requestedHost?.lowercased() == authority
    }

    /// `scheme://authority`, the key of git's `credential.<url>.helper`.
    public var url: String { scheme + "://" + authority }

    /// The form stored in the profile: the host alone for https, else the URL.
    public var stored: String { scheme == "https" ? authority : url }

    public var description: String { url }
}
