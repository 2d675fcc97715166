import Foundation
import VersolaJOSE

extension ProviderCache {
    /// The largest file read: a provider's document or key set is far smaller.
    static let fileLimit = 1 << 20

    /// The document kept for `issuer`, with the members stored beside it, while it is fresh.
    /// A file that is missing, stale, foreign, open to others or corrupt gives nil; the last
    /// three are logged (L8).
    func load(_ kind: Kind, issuer: String, now: Date, log: any VersolaLogSink) -> (document: JSONValue, entry: JSONObject)? {
        let path = path(kind, issuer: issuer)
        do {
            guard try OwnedPath.checkIfPresent(directory.path, what: "cache directory", access: .notWritableByOthers) != nil,
                try OwnedPath.checkIfPresent(path, what: "cache file", access: .notWritableByOthers) != nil
            else { return nil }
        } catch {
            log.record(VersolaLogEvent(.warning, "provider cache ignored: \(error)"))
            return nil
        }
        guard case .contents(let bytes)? = try? PrivateFiles.read(path, limit: Self.fileLimit),
            let entry = (try? JSONValue(parsing: bytes))?.object, entry["issuer"]?.string == issuer,
            let fetched = entry["fetched"]?.int64, let expires = entry["expires"]?.int64, let document = entry["document"]
        else {
            log.record(VersolaLogEvent(.warning, "provider cache file \(path) is unreadable or corrupt; ignored"))
            return nil
        }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        // A file from the future (a clock set back) is as stale as an old one.
        guard fetched <= seconds + 60, seconds < expires else { return nil }
        return (document, entry)
    }

    /// Keeps `document` for `issuer` for `lifetime` from `now`, with `members` beside it;
    /// nothing is kept for a zero lifetime. A failure is logged, never thrown: the cache only
    /// saves requests.
    func store(
        _ kind: Kind, issuer: String, document: JSONValue, members: [(String, JSONValue)] = [], lifetime: Duration,
        now: Date, log: any VersolaLogSink
    ) {
        guard lifetime > .zero else { return }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        var entry = JSONObject([
            ("issuer", .string(issuer)), ("fetched", .integer(seconds)),
            ("expires", .integer(seconds + lifetime.components.seconds)),
        ])
        for (name, value) in members { entry[name] = value }
        entry["document"] = document
        let parent = directory.deletingLastPathComponent().path
        do {
            // L4: a directory another user owns or may write is refused before it is made private.
            for path in [parent, directory.path] {
                try OwnedPath.checkIfPresent(path, what: "cache directory", access: .notWritableByOthers)
            }
            try PrivateFiles.ensureDirectory(directory.path, privateDirectories: [parent, directory.path])
            try PrivateFiles.writeAtomically(JSONValue.object(entry).serializedBytes(), to: path(kind, issuer: issuer), in: directory.path)
        } catch {
            log.record(VersolaLogEvent(.warning, "provider cache not written: \(error)"))
        }
    }

    /// Forgets what is kept of `kind` for `issuer` (a stale copy); a missing file is fine.
    func remove(_ kind: Kind, issuer: String) {
        try? PrivateFiles.remove(path(kind, issuer: issuer))
    }
}
