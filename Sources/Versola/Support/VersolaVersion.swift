/// The version of Versola: the engine and the `versola` command are released together.
///
/// ```swift
/// print("versola", VersolaVersion.current)
/// ```
public enum VersolaVersion {
    /// The version `versola --version` prints.
    public static let current = "0.1.0"

    /// The `User-Agent` every engine request carries unless the application set its own
    /// (A16: some APIs refuse requests without one).
    public static let userAgent = "versola/\(current)"
}
