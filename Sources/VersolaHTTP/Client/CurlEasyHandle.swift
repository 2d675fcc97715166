import CVersolaSystem

/// The one Swift owner of a libcurl easy handle (`CURL *`), cleaned up in `deinit`.
///
/// An easy handle keeps its own connection cache, so a handle taken again from the
/// ``CurlHandlePool`` can reuse a kept-alive connection. It is used by one thread at a time:
/// the pool hands it to exactly one transfer.
final class CurlEasyHandle: @unchecked Sendable {
    /// The raw handle; valid for the owner's lifetime.
    let raw: UnsafeMutableRawPointer

    /// Creates a handle, or nil when libcurl cannot allocate one. libcurl must be loaded
    /// (``CurlLibrary/load()``).
    init?() {
        guard let raw = versola_curl_easy_init() else { return nil }
        self.raw = raw
    }

    /// Clears every option set by a transfer while keeping live connections, the DNS cache and
    /// TLS session IDs (libcurl's `curl_easy_reset` contract).
    func resetOptions() {
        versola_curl_easy_reset(raw)
    }

    deinit {
        versola_curl_easy_cleanup(raw)
    }
}
