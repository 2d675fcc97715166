import Foundation
import VersolaJOSE

extension ProviderCache {
    /// The metadata kept for `issuer`, checked again as a fetched document is (A1), or nil.
    func metadata(issuer: String, now: Date, log: any VersolaLogSink) -> ProviderMetadata? {
        guard let (document, entry) = load(.metadata, issuer: issuer, now: now, log: log), let object = document.object
        else { return nil }
        let source = entry["source"]?.string.flatMap(ProviderMetadata.Source.init(rawValue:)) ?? .openIDConnect
        do throws(VersolaError) {
            return try ProviderMetadata(document: object, configuredIssuer: issuer, source: source)
        } catch {
            log.record(VersolaLogEvent(.warning, "provider cache for \(issuer) ignored: \(error)"))
            return nil
        }
    }

    /// Keeps fetched metadata for as long as the answer's `Cache-Control` allows.
    func keep(_ metadata: ProviderMetadata, cacheControl: String?, now: Date, log: any VersolaLogSink) {
        store(
            .metadata, issuer: metadata.issuer, document: .object(metadata.document),
            members: [("source", .string(metadata.source.rawValue))], lifetime: Self.lifetime(cacheControl: cacheControl),
            now: now, log: log)
    }

    /// The key set kept for `issuer`, when it was fetched from `uri`, or nil.
    func keySet(issuer: String, uri: URL, now: Date, log: any VersolaLogSink) -> JWKSet? {
        guard let (document, entry) = load(.keySet, issuer: issuer, now: now, log: log),
            entry["uri"]?.string == uri.absoluteString
        else { return nil }
        return try? JWKSet(parsing: document.serializedBytes())
    }

    /// Keeps a fetched key set (the answer's body) for as long as its `Cache-Control` allows.
    func keep(
        keySet body: [UInt8], issuer: String, uri: URL, cacheControl: String?, now: Date, log: any VersolaLogSink
    ) {
        guard let document = try? JSONValue(parsing: body) else { return }
        store(
            .keySet, issuer: issuer, document: document, members: [("uri", .string(uri.absoluteString))],
            lifetime: Self.lifetime(cacheControl: cacheControl), now: now, log: log)
    }
}
