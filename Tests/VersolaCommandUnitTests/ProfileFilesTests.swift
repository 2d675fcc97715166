import Foundation
import Testing
import Versola
import VersolaHTTP
import VersolaJOSE
import VersolaTesting

@testable import VersolaCommand

@Suite("Profile files")
struct ProfileFilesTests {
    // L3: files 0600 under directories 0700; a saved profile reads back whole.
    @Test func savesPrivatelyAndReadsBack() throws {
        let home = try TemporaryDirectory()
        let files = ProfileFiles(configHome: home.path + "/config")
        #expect(try files.load("work") == nil)
        var settings = ProfileSettings(issuer: "https://id.example", clientID: "cli")
        settings.scopes = ["openid", "email"]
        settings.dpop = .off
        settings.browserCommand = "curl %s"
        settings.port = 8765
        settings.caFile = "/etc/ca.pem"
        try files.save(settings, as: "work")
        #expect(try files.load("work") == settings)
        #expect(try mode(of: home.path + "/config/versola/profiles/work.json") == 0o600)
        #expect(try mode(of: home.path + "/config/versola/profiles") == 0o700)
        #expect(try mode(of: home.path + "/config/versola") == 0o700)
        #expect(try files.require("work") == settings)
        #expect { try files.require("other") } throws: { VersolaError.isInvalidConfiguration($0, saying: "no profile 'other'") }
    }

    @Test func refusesBadNames() {
        let files = ProfileFiles(configHome: "/nonexistent")
        for name in ["", ".", "../x", "a/b", String(repeating: "a", count: 65), "a..b"] {
            #expect("\(name)") {
                try files.path(of: name)
            } throws: {
                VersolaError.isInvalidConfiguration($0, saying: "profile names are 1 to")
            }
        }
        #expect(throws: Never.self) { try files.path(of: "ok-1.2_x") }
    }

    @Test func optionsOverrideSavedSettings() throws {
        var saved = ProfileSettings(issuer: "https://id.example", clientID: "cli")
        saved.browserCommand = "b"
        let merged = try ProfileSettings.merging(
            LoginOptions(scopes: ["x"], dpop: .off, port: 9), over: saved, profile: "p")
        #expect(merged.issuer == "https://id.example")
        #expect(merged.scopes == ["x"])
        #expect(!merged.usesDPoP)
        #expect(merged.port == 9)
        #expect(merged.browserCommand == "b")
        let configuration = merged.clientConfiguration
        #expect(configuration.redirect.port == 9)
        #expect(!configuration.usesDPoP)
        // A different provider starts from the defaults again.
        let fresh = try ProfileSettings.merging(LoginOptions(issuer: "https://other"), over: saved, profile: "p")
        #expect(fresh.browserCommand == nil)
        #expect {
            try ProfileSettings.merging(LoginOptions(), over: nil, profile: "p")
        } throws: {
            VersolaError.isInvalidConfiguration($0, saying: "--issuer and --client-id are missing")
        }
    }

    // A11: the mode is saved by name; profiles saved before the modes existed still load
    // (`false` was --no-dpop; `true`, the old default, reads as the new default auto).
    @Test func dpopModeIsSavedAndOldProfilesLoad() throws {
        var settings = ProfileSettings(issuer: "https://id.example", clientID: "cli")
        #expect(settings.dpop == .auto)
        settings.dpop = .require
        #expect(settings.json["dpop"] == "require")
        #expect(try ProfileSettings(json: settings.json).dpop == .require)
        let old: (Bool) -> JSONValue = { ["issuer": "https://id.example", "clientID": "cli", "dpop": .bool($0)] }
        #expect(try ProfileSettings(json: old(false)).dpop == .off)
        #expect(try ProfileSettings(json: old(true)).dpop == .auto)
        #expect(try ProfileSettings(json: ["issuer": "https://id.example", "clientID": "cli"]).dpop == .auto)
        #expect(ProfileSettings(issuer: "https://id.example", clientID: "cli").clientConfiguration.dpop == .auto)
    }

    // The key source is saved by name and used by every later command; one this version does
    // not know is refused rather than guessed (a guess would open the session with the wrong key).
    @Test func keySourceIsSavedAndSurvivesAProviderChange() throws {
        var settings = ProfileSettings(issuer: "https://id.example", clientID: "cli")
        #expect(settings.keySource == .keyFile)
        #expect(settings.json["keySource"] == "file")
        settings.keySource = .secretService
        #expect(try ProfileSettings(json: settings.json).keySource == .secretService)
        #expect(try ProfileSettings(json: ["issuer": "https://id.example", "clientID": "cli"]).keySource == .keyFile)
        #expect {
            try ProfileSettings(json: ["issuer": "https://id.example", "clientID": "cli", "keySource": "tpm"])
        } throws: {
            VersolaError.isInvalidConfiguration($0, saying: "key source 'tpm'")
        }
        let merged = try ProfileSettings.merging(LoginOptions(keySource: .passphrase), over: settings, profile: "p")
        #expect(merged.keySource == .passphrase)
        // Another provider resets the login options, not where this machine keeps the key.
        let moved = try ProfileSettings.merging(LoginOptions(issuer: "https://other"), over: settings, profile: "p")
        #expect(moved.keySource == .secretService)
    }

    @Test func theKeyFileNameIsNoProfileName() {
        #expect {
            try ProfileFiles(configHome: "/nonexistent").path(of: "key")
        } throws: {
            VersolaError.isInvalidConfiguration($0, saying: "'key' cannot be a profile name")
        }
        #expect(throws: Never.self) { try ProfileFiles(configHome: "/nonexistent").path(of: "keys") }
    }

    private func mode(of path: String) throws -> mode_t {
        var info = stat()
        try #require(lstat(path, &info) == 0)
        return info.st_mode & 0o777
    }
}
