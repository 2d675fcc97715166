import Foundation
import Versola
import VersolaJOSE

/// The result of `status`, `unlock` and each line of `watch`: the profile's state and who is
/// signed in (`{"profile":"default","state":"authenticated","signedIn":true,"user":{…},…}`).
public struct AgentStatus: AgentResultBody, Hashable {
    /// The signed-in user, as the ID token names them.
    public struct User: Sendable, Hashable {
        public var subject: String
        public var name: String?
        public var email: String?

        /// Creates a user.
        public init(subject: String, name: String? = nil, email: String? = nil) {
            self.subject = subject
            self.name = name
            self.email = email
        }
    }

    /// How long the grant lasts (P13): `renewable`, and for a grant without a refresh token
    /// `endsAt` (an ISO 8601 time, or null for a token that states no expiry).
    public enum Lifetime: Sendable, Hashable {
        case renewable
        case endsAt(String)
        case unbounded
    }

    public var profile: String
    public var state: SessionState
    public var signedIn: Bool
    public var user: User?
    /// The profile's issuer and client, nil only when the profile could not be read.
    public var issuer: String?
    public var clientID: String?
    /// Whether tokens are DPoP-bound, and the profile's DPoP mode (nil as `issuer`).
    public var dpop: Bool?
    public var dpopMode: DPoPMode?
    /// Nil when signed out.
    public var lifetime: Lifetime?
    /// Why the stored session could not be read.
    public var problem: String?
    /// Records moved aside because they no longer decrypted (P12).
    public var setAside: [String] = []

    /// A status of `profile` in `state` with nothing else known.
    public init(profile: String, state: SessionState) {
        self.profile = profile
        self.state = state
        self.signedIn = state.holdsGrant
    }

    public var json: JSONValue {
        let user: JSONValue =
            self.user.map { user in
                [
                    "subject": .string(user.subject), "name": user.name.map { .string($0) } ?? .null,
                    "email": user.email.map { .string($0) } ?? .null,
                ]
            } ?? .null
        var members: [(String, JSONValue)] = [
            ("profile", .string(profile)), ("state", .string(state.rawValue)), ("signedIn", .bool(signedIn)), ("user", user),
        ]
        if let issuer { members.append(("issuer", .string(issuer))) }
        if let clientID { members.append(("clientID", .string(clientID))) }
        if let dpop { members.append(("dpop", .bool(dpop))) }
        if let dpopMode { members.append(("dpopMode", .string(dpopMode.rawValue))) }
        switch lifetime {
        case .endsAt(let end)?: members.append(("endsAt", .string(end)))
        case .unbounded?: members.append(("endsAt", .null))
        case .renewable?, nil: break
        }
        if let lifetime { members.append(("renewable", .bool(lifetime == .renewable))) }
        if let problem { members.append(("problem", .string(problem))) }
        if !setAside.isEmpty { members.append(("setAside", .array(setAside.map { .string($0) }))) }
        return .object(JSONObject(members))
    }

    public init?(json: JSONValue) {
        guard let profile = json["profile"]?.string, let state = json["state"]?.string.flatMap(SessionState.init(rawValue:))
        else { return nil }
        self.init(profile: profile, state: state)
        signedIn = json["signedIn"]?.bool ?? state.holdsGrant
        if let user = json["user"], let subject = user["subject"]?.string {
            self.user = User(subject: subject, name: user["name"]?.string, email: user["email"]?.string)
        }
        issuer = json["issuer"]?.string
        clientID = json["clientID"]?.string
        dpop = json["dpop"]?.bool
        dpopMode = json["dpopMode"]?.string.flatMap(DPoPMode.init(rawValue:))
        switch json["renewable"]?.bool {
        case true?: lifetime = .renewable
        case false?: lifetime = json["endsAt"]?.string.map { .endsAt($0) } ?? .unbounded
        case nil: lifetime = nil
        }
        problem = json["problem"]?.string
        setAside = json["setAside"]?.array?.compactMap(\.string) ?? []
    }
}
