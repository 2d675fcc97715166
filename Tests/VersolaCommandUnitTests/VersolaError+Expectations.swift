import Versola

extension VersolaError {
    /// Whether `error` is a configuration error with the cause `invalidConfiguration` whose
    /// reason contains `fragment` (any reason when it is empty), for
    /// `#expect { try … } throws: { VersolaError.isInvalidConfiguration($0, saying: "…") }`.
    static func isInvalidConfiguration(_ error: any Error, saying fragment: String = "") -> Bool {
        guard case .configuration(.invalidConfiguration(let reason, _)) = error as? VersolaError else { return false }
        return fragment.isEmpty || reason.contains(fragment)
    }
}
