import Versola
import VersolaHTTP

/// A program that sends the access token as a plain Bearer credential, without DPoP proofs:
/// a server refuses a DPoP-bound token presented that way (RFC 9449 §7.1), so a DPoP-bound
/// profile cannot serve it. The one place that says so.
enum BearerOnlyTool: String, Sendable {
    /// git, through `versola git-credential`.
    case git
    /// kubectl, through `versola token --format k8s`.
    case kubectl
    /// docker, skopeo and other registry clients, through `docker-credential-versola`.
    case docker
    /// pip, uv and twine, through the keyring backend and `versola credential`.
    case python = "pip"
    /// cargo, through `versola cargo-credential`.
    case cargo

    /// The error for a DPoP-bound profile asked for a token this tool would send as Bearer:
    /// what is wrong, and the login that makes the profile a Bearer one.
    func dpopRefused(profile: String) -> VersolaError {
        let flag = profile == "default" ? "" : " --profile \(ShellWord.quoted(profile))"
        var text =
            "the profile's tokens are DPoP-bound and \(rawValue) sends no DPoP proofs, so the server would refuse them; "
            + "sign in with Bearer tokens for \(rawValue): versola login\(flag) --no-dpop"
        if self == .kubectl { text += " (or, for a cluster that validates ID tokens, hand it the ID token: --token id)" }
        return .configuration(.invalidConfiguration(text))
    }
}
