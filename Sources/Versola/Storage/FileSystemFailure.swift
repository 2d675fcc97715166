import VersolaHTTP
import Foundation

/// A failed file-system call: the operation, the path and `errno`. Paths are not secret.
///
/// It becomes `.configuration(.invalidConfiguration("cannot <operation> <path>: <strerror>"))`
/// for callers: a directory the user cannot write, a full disk or a read-only file system is
/// something the person or an administrator must fix, and trying the same call again does not.
package struct FileSystemFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was attempted, as a verb: `read`, `write`, `create`, `rename`, `lock`, ….
    package var operation: String
    /// The file or directory.
    package var path: String
    /// The `errno` value.
    package var code: Int32

    package init(_ operation: String, _ path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    package var description: String { "cannot \(operation) \(path): \(String(cString: strerror(code)))" }

    /// The public error for a key source's or a profile's home (see the type's documentation).
    package var versolaError: VersolaError { .configuration(.invalidConfiguration(description)) }

    /// The public error for reading or writing the session record: the disk may be full or
    /// briefly unavailable, so it is `recoverable` and the session is kept (P10).
    package var storageError: VersolaError { .recoverable(.storageUnavailable(description)) }
}
