/// The tools whose credential protocols versola answers from a target table entry
/// (``CredentialTarget``): each names its targets its own way and expects its own user name.
public enum TargetTool: String, Sendable, Hashable, CaseIterable {
    /// Docker registries (`docker-credential-versola`): a registry host, `host[:port]`.
    case docker
    /// Python package indexes (pip, uv and twine through the keyring backend, `versola
    /// credential --url`): an index URL prefix.
    case python
    /// Cargo registries (`versola cargo-credential`): a sparse index URL.
    case cargo

    /// The tool as a Bearer-only program (``BearerOnlyTool``), for the DPoP refusal.
    var bearerTool: BearerOnlyTool {
        switch self {
        case .docker: .docker
        case .python: .python
        case .cargo: .cargo
        }
    }

    /// The user name a target of this tool gets when `--username` is not given: `oauth2`, the
    /// convention of registries that take any user with an OAuth token (GitLab), except Google
    /// Artifact Registry and Container Registry, which expect `oauth2accesstoken`. Cargo sends
    /// no user name.
    func defaultUsername(for key: TargetKey) -> String? {
        switch self {
        case .cargo: return nil
        case .python: return "oauth2"
        case .docker:
            let host = key.host
            let google = host == "gcr.io" || host.hasSuffix(".gcr.io") || host.hasSuffix("-docker.pkg.dev")
            return google ? "oauth2accesstoken" : "oauth2"
        }
    }
}
