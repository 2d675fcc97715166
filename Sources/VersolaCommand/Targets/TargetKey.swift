import Versola
import VersolaHTTP

/// What a target answers for: a registry host (docker names registries by `host[:port]`), or a
/// URL prefix (a Python index, a cargo sparse index), which covers the URLs below it on the
/// same origin (``ResourceURL/covers(_:)``, the rule A19 uses for resources).
///
/// ```swift
/// let index = try TargetKey.url("http://127.0.0.1:8080/simple/", flag: "--url")
/// index.covers(TargetKey.asked("http://127.0.0.1:8080/simple/pkg/", tool: .python)!)  // true
/// ```
public enum TargetKey: Sendable, Hashable, CustomStringConvertible {
    /// A registry host; the scheme is not part of the match (docker hands over `host[:port]`).
    case host(GitHost)
    /// A URL prefix: the same origin and a whole-segment path prefix.
    case url(ResourceURL)

    /// A registry host as `--host` takes it (``GitHost/parse(_:flag:example:)``: https, or http on loopback).
    public static func host(_ text: String, flag: String = "--host") throws(VersolaError) -> TargetKey {
        .host(try GitHost.parse(text, flag: flag, example: "registry.example.com"))
    }

    /// A URL prefix as `--url` or `--index` takes it: absolute, https or loopback http, with a
    /// leading `sparse+` (cargo's mark of a sparse index) set aside.
    public static func url(_ text: String, flag: String) throws(VersolaError) -> TargetKey {
        let plain = text.hasPrefix("sparse+") ? String(text.dropFirst("sparse+".count)) : text
        guard plain.contains("://"), let url = ResourceURL(plain) else {
            throw .configuration(.invalidConfiguration("\(flag) needs an absolute URL such as https://packages.example.com/simple/"))
        }
        // The scheme rule of every target (a token never travels in clear), said for this flag.
        _ = try GitHost.parse(url.origin.description, flag: flag, example: "packages.example.com")
        return .url(url)
    }

    /// A key of `tool`'s kind: a registry host for docker, a URL prefix for the others.
    public static func parse(_ text: String, for tool: TargetTool, flag: String) throws(VersolaError) -> TargetKey {
        switch tool {
        case .docker: try host(text, flag: flag)
        case .python, .cargo: try url(text, flag: flag)
        }
    }

    /// The key a tool asks about (docker's server address, a URL), or nil when it names nothing
    /// a target could serve.
    public static func asked(_ text: String, tool: TargetTool) -> TargetKey? {
        try? parse(text.trimmingBlanks, for: tool, flag: "--url")
    }

    /// The form kept in the table: `host[:port]` (or `http://host:port` on loopback), or the
    /// normalized URL.
    public var description: String {
        switch self {
        case .host(let host): host.stored
        case .url(let url): url.description
        }
    }

    /// The host name, lowercased, without port.
    var host: String {
        switch self {
        case .host(let host): String(host.authority.split(separator: ":").first ?? "")
        case .url(let url): url.origin.host
        }
    }

    /// Whether this key serves `asked`; ``specificity`` ranks keys that both do.
    public func covers(_ asked: TargetKey) -> Bool {
        switch (self, asked) {
        case (.host(let own), .host(let other)): own.authority == other.authority
        case (.url(let own), .url(let other)): own.covers(other)
        default: false
        }
    }

    /// How much of a URL the key names (its path segments): the longest prefix wins.
    var specificity: Int {
        switch self {
        case .host: 0
        case .url(let url): url.segments.count
        }
    }
}
