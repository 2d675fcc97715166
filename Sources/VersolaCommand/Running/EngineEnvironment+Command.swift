import Versola

extension EngineEnvironment {
    /// The engine environment of the command's sessions: the system's, with the provider cache
    /// of the user `environment` names (`$XDG_CACHE_HOME/versola/providers`, A16), so that a new
    /// process does not ask for the provider's metadata and keys again.
    static func command(_ environment: [String: String]) -> EngineEnvironment {
        .system(providerCache: ProviderCache.standard(environment: environment))
    }
}
