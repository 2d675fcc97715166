import Foundation
import Versola
import VersolaJOSE

/// A20 across invocations: how many step-ups for more scope in a row `versola request` has
/// asked for, per profile (one resource) and method, kept in the profile's state
/// (`$XDG_STATE_HOME/versola/step-ups/PROFILE.json`, user-only). A third refusal in a row is
/// not answered with another sign-in: the API keeps asking for scope that signing in again
/// does not give. An answer in 2xx for that method starts the count again.
struct StepUpCount {
    /// Step-ups in a row that are followed (on a terminal) or printed as a line.
    static let limit = 2
    let directory: String
    let path: String
    let profile: String
    let method: String

    /// The count of `context`'s profile for `method`; nil when the state directory is unknown.
    init?(_ context: CommandContext, method: String) {
        guard let state = try? context.directories().stateHome.path else { return nil }
        directory = state + "/versola/step-ups"
        path = directory + "/" + context.profile + ".json"
        profile = context.profile
        self.method = method
    }

    /// Counts one more step-up for `challenge`, or throws what stops the loop: the limit was
    /// reached without an answer in between.
    func take(_ challenge: StepUpChallenge) throws(CommandFailure) {
        var counts = read()
        let taken = counts[method] ?? 0
        guard taken < Self.limit else {
            throw .versola(
                .configuration(
                    .invalidConfiguration(
                        "the API refused \(method) again after \(taken) step-ups in a row for more scope "
                            + "(\(challenge.scopes.joined(separator: " "))), so versola does not sign in for it once more: "
                            + "it may not grant those scopes to this client. A \(method) it answers starts the count again")))
        }
        counts[method] = taken + 1
        write(counts)
    }

    /// An answer in 2xx ends the run of step-ups for the method.
    func settle(status: Int) {
        guard (200...299).contains(status) else { return }
        var counts = read()
        guard counts.removeValue(forKey: method) != nil else { return }
        write(counts)
    }

    private func read() -> [String: Int] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return [:] }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
            let data = try? handle.read(upToCount: 4096), let object = (try? JSONValue(parsing: Array(data)))?.object
        else { return [:] }
        var counts: [String: Int] = [:]
        for member in object {
            if let count = member.value.int64 { counts[member.name] = Int(clamping: count) }
        }
        return counts
    }

    /// Best effort: a count that cannot be kept only lets one more step-up through.
    private func write(_ counts: [String: Int]) {
        guard (try? PrivateFiles.ensureDirectory(directory, privateDirectories: [directory])) != nil else { return }
        let object = JSONObject(counts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.integer(Int64($0.value))) })
        let bytes = Array((JSONValue.object(object).serialized() + "\n").utf8)
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        fchmod(descriptor, 0o600)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        if written != bytes.count || rename(temporary, path) != 0 { unlink(temporary) }
    }
}
