import Foundation
import Testing
import VersolaTesting

@testable import Versola
import VersolaHTTP

/// Registration files get the owner and mode checks of session records (L4, L8): one another
/// local user planted, or that others may write, is never used.
@Suite(.serialized) struct FileClientRegistrationsTests {
    static let issuer = "https://auth.example.com"
    static let client = RegisteredClient(
        issuer: issuer, clientID: "registered-1", redirectURI: "http://127.0.0.1/callback", refreshGranted: true)

    static func registrationFile(_ registrations: FileClientRegistrations) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: registrations.directory)
        return registrations.directory + "/" + (names.first ?? "")
    }

    @Test("L8 L4: a registration file others may write is ignored, with a message that names it")
    func groupWritableFileIsIgnored() throws {
        let home = try TemporaryDirectory()
        let registrations = FileClientRegistrations(directory: home.file("registrations"))
        try registrations.save(Self.client)
        #expect(try registrations.registration(for: Self.issuer)?.clientID == "registered-1")
        #expect(registrations.problem(for: Self.issuer) == nil)
        let file = try Self.registrationFile(registrations)
        chmod(file, 0o660)
        #expect(try registrations.registration(for: Self.issuer) == nil)
        let problem = try #require(registrations.problem(for: Self.issuer))
        #expect(problem.contains(file) && problem.contains("chmod 600"), "\(problem)")
        // Saving anew replaces it with the user's own, private file.
        try registrations.save(Self.client)
        #expect(try registrations.registration(for: Self.issuer)?.clientID == "registered-1")
    }

    @Test(
        "L8 L4: a registration file or directory another user owns is never read, and the directory is never written into",
        .enabled(if: getuid() == 0, "giving a file to another user needs root"))
    func foreignOwnerIsRefused() throws {
        let home = try TemporaryDirectory()
        let registrations = FileClientRegistrations(directory: home.file("registrations"))
        try registrations.save(Self.client)
        let file = try Self.registrationFile(registrations)
        #expect(chown(file, 65_534, 65_534) == 0)
        #expect(try registrations.registration(for: Self.issuer) == nil)
        #expect(registrations.problem(for: Self.issuer)?.contains("belongs to another user") == true)
        #expect(chown(file, getuid(), getgid()) == 0)
        #expect(chown(registrations.directory, 65_534, 65_534) == 0)
        #expect(try registrations.registration(for: Self.issuer) == nil)
        #expect(throws: VersolaError.self) { try registrations.save(Self.client) }
        #expect(chown(registrations.directory, getuid(), getgid()) == 0)
    }
}
