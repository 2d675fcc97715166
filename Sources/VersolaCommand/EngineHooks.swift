// The command is an app like any other: it uses `Versola`'s public API (and the public lower
// libraries VersolaHTTP, VersolaJOSE, VersolaCrypto), except for these `package` hooks, each
// listed here with why it is not public. A new use of a `package` member of Versola belongs on
// this list. (To find them all: build VersolaCommand with Versola's `package` turned `internal`.)
//
// - `Session.heldAccessToken()` and `Session.adoptAccessToken(_:expiresAt:idToken:)`
//   (LoginCommand, SessionHost): the login process hands the access token it just received to
//   the agent, a separate process that read the same record. An app holds its tokens in its
//   own process, so it never needs to move one between processes; public, they would invite
//   passing access tokens around (P4).
// - `OwnedPath`, `PrivateFiles`, `ProfileDirectory`, `FileSystemFailure` (ProfileFiles): the
//   profile files under `$XDG_CONFIG_HOME/versola/profiles` are the command's, but must be kept
//   to the store's rules (user-only, not a symbolic link, owned by the user, written
//   atomically). These are the store's file-system primitives, not a session API.
// - `ChildProcess` (SetupGitCommand): runs `git config` the way the engine runs `secret-tool`
//   (no shell, bounded output, no inherited descriptors); a process helper, not OIDC.
// - `DiscoveryClient`, `EndpointSender`, `JWKSCache.init(jwksURI:sender:)`,
//   `JWKSCache.keySet(budget:)`, `JWKSCache.refetch(unlessSatisfied:budget:)`,
//   `ClientConfiguration.newBudget(clock:)` (TokenVerifier): `versola verify` checks a token
//   against the provider's keys outside any session, with the engine's own discovery, retries
//   and key cache. An app verifies ID tokens through a `Session` or `OpenIDClient`, which do
//   this inside; exposing the parts would export the retry internals.
// - `SignInLock` (SignInGate): S15 across the command's processes. Only the command runs a
//   sign-in in one process on behalf of callers in others (kubectl, scripts); an app's sessions
//   live in its own process, and the lock's file is the store's, under its rules.
