import CVersolaSystem

/// The one Swift owner of a `curl_slist` of request header lines, freed in `deinit`.
/// It must outlive the transfer that uses it (libcurl does not copy the list).
final class CurlHeaderList: @unchecked Sendable {
    /// The list head, nil when empty.
    private(set) var head: UnsafeMutablePointer<curl_slist>?

    /// Creates an empty list.
    init() {}

    /// Creates a list of `lines`, or nil when libcurl could not allocate.
    convenience init?(_ lines: [String]) {
        self.init()
        for line in lines where !append(line) { return nil }
    }

    /// Appends one raw line (`Name: value`). Returns false when libcurl could not allocate.
    @discardableResult
    func append(_ line: String) -> Bool {
        guard let newHead = versola_curl_slist_append(head, line) else { return false }
        head = newHead
        return true
    }

    deinit {
        if let head { versola_curl_slist_free_all(head) }
    }
}
