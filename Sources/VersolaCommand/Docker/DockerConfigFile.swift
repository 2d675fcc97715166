import Foundation
import Versola
import VersolaJOSE

/// Docker's client configuration: `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`.
/// Only `credHelpers` is touched; every other member stays as it was.
struct DockerConfigFile {
    /// The file.
    let path: String

    /// The file docker reads in `environment`.
    init(environment: [String: String]) {
        let directory = environment["DOCKER_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.docker"
        path = directory + "/config.json"
    }

    /// Sets `credHelpers[host]` to `versola` and writes the file (atomically, user-only);
    /// returns its path.
    /// - Throws: a file that is not a JSON object, or one that cannot be written.
    func addHelper(for host: String) throws(VersolaError) -> String {
        var config = JSONObject()
        if let data = FileManager.default.contents(atPath: path), !data.isEmpty {
            guard let object = (try? JSONValue(parsing: Array(data)))?.object else {
                throw .configuration(.invalidConfiguration("\(path) is not a JSON object; fix it or move it aside, then run again"))
            }
            config = object
        }
        var helpers = config["credHelpers"]?.object ?? JSONObject()
        guard helpers[host]?.string != "versola" else { return path }
        helpers[host] = "versola"
        config["credHelpers"] = .object(helpers)
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = path + ".tmp-\(getpid())"
        let bytes = Data((JSONValue.object(config).serialized() + "\n").utf8)
        guard FileManager.default.createFile(atPath: temporary, contents: bytes, attributes: [.posixPermissions: 0o600]),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            throw .configuration(.invalidConfiguration("cannot write \(path)"))
        }
        return path
    }
}
