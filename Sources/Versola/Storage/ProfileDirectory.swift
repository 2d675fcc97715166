import VersolaHTTP
import Foundation

/// One profile's directory, `<state home>/versola/<profile>`, and the files in it.
///
/// Profile names are checked here: 1 to 64 characters from `[A-Za-z0-9._-]`, not `.` nor
/// containing `..`, so a name can never reach outside its directory, and not `key`, the name of
/// the key file beside the profile directories (``KeyFileKeySource``).
package struct ProfileDirectory: Sendable, Hashable {
    /// The longest profile name accepted.
    static let maximumNameLength = 64

    let profile: String
    /// `<state home>/versola`.
    let applicationPath: String
    /// `<state home>/versola/<profile>`.
    let path: String

    init(profile: String, stateHome: URL) throws(VersolaError) {
        try Self.validate(profile)
        self.profile = profile
        var base = stateHome.path
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        applicationPath = (base == "/" ? "" : base) + "/versola"
        path = applicationPath + "/" + profile
    }

    /// The sealed record.
    var recordPath: String { path + "/session" }
    /// The change counter, advanced after every write of the record (S11).
    var generationPath: String { path + "/generation" }
    /// The lock file held during exclusive access.
    var lockPath: String { path + "/lock" }
    /// The lock a process holds while it runs a sign-in for the profile (S15, ``SignInLock``).
    var signInLockPath: String { path + "/signin.lock" }
    /// The passphrase key source's salt and key check.
    var passphrasePath: String { path + "/passphrase" }

    /// Creates the directories with mode 0700 (L3) and sets that mode on `versola` and the
    /// profile directory if they already existed with another.
    func ensure() throws(FileSystemFailure) {
        try PrivateFiles.ensureDirectory(path, privateDirectories: [applicationPath, path])
    }

    /// The one name a profile cannot have: the key file's, `<state home>/versola/key`.
    package static let reservedName = "key"

    /// Checks a profile name (see the type's documentation).
    /// - Throws: `.configuration(.invalidConfiguration)` saying which names are allowed.
    package static func validate(_ profile: String) throws(VersolaError) {
        let allowed = profile.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        guard !profile.isEmpty, profile.utf8.count <= maximumNameLength, allowed, profile != ".", !profile.contains("..")
        else {
            throw .configuration(
                .invalidConfiguration(
                    "profile names are 1 to \(maximumNameLength) characters of A-Z a-z 0-9 . _ - (not . nor containing ..)"))
        }
        guard profile != reservedName else {
            throw .configuration(
                .invalidConfiguration("'\(reservedName)' cannot be a profile name: the key file has it; choose another name"))
        }
    }
}
