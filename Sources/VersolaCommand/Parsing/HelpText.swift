/// The text `--help` prints, per command.
public enum HelpText {
    /// The help of `command`, or the overview when `nil`.
    public static func text(for command: CommandName?) -> String {
        guard let command else { return overview }
        switch command {
        case .login: return login
        case .token: return token
        case .status: return status
        case .userInfo: return userInfo
        case .logout: return logout
        case .request: return request
        case .handleRedirect: return handleRedirect
        case .verify: return verify
        case .agent: return agent
        }
    }

    /// The one-line usage of `command`, shown after a usage error.
    public static func usageLine(for command: CommandName?) -> String {
        let text = self.text(for: command)
        return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? text
    }

    static let overview = """
        usage: versola <command> [options]   (versola <command> --help for its options)

        Sign in to an OpenID Connect provider from a terminal and hand tokens to other tools.

        commands:
          login            sign in through the browser and save the profile
          token            print a valid access token (raw, json, or a kubectl ExecCredential)
          status           show the session state and who is signed in (--watch follows it)
          userinfo         print the provider's UserInfo claims
          logout           sign out: revoke the refresh token and wipe everything local
          request          send an HTTP request with the access token (DPoP-bound when enabled)
          handle-redirect  hand a redirect URL to the pending login (pasted, or from a URL handler)
          verify           verify a JWT as a backend would (discovery, JWKS, claims)
          agent            the per-user session agent (started on demand; internal)

        options accepted everywhere:
          --profile NAME   the profile to use (default: default)
          --json           results and errors as JSON
          --no-agent       run in this process, without the session agent (also VERSOLA_NO_AGENT=1)
          --help           this help, or a command's

        exit status: 0 success, 2 usage, 3 try again later, 4 sign in again, 5 step-up needed,
        6 configuration. NO_COLOR disables colour.
        """

    static let login = """
        usage: versola login [--issuer URL] [--client-id ID] [--scope S]... [--profile NAME]
                             [--dpop auto|require|off] [--browser-command CMD] [--no-browser] [--port N]
                             [--redirect-path PATH] [--ca-file PATH] [--acr-values V] [--max-age N]
                             [--login-hint HINT] [--prompt P] [--json]

        Signs in through the browser with a loopback redirect and saves issuer, client id and
        options in the profile, so later commands need only --profile.

          --issuer URL            the provider's issuer (https, or http on loopback)
          --client-id ID          the public client's id
          --scope S               scope to request (repeatable; openid is always added)
          --dpop MODE             DPoP-bound tokens: auto (default: when the provider advertises
                                  ES256), require (refuse providers without it), off
                                  (--dpop alone is require, --no-dpop is off)
          --browser-command CMD   the browser command; %s is the URL (default: $BROWSER, xdg-open)
          --no-browser            only print the URL; paste the final redirect URL on stdin
          --port N                a fixed loopback port for providers that match it exactly
          --redirect-path PATH    the redirect path (default /callback)
          --ca-file PATH          trust this CA bundle for the provider (default: the system's,
                                  or SSL_CERT_FILE / SSL_CERT_DIR when set)
          --acr-values V          requested authentication context classes (space-separated)
          --max-age N             maximum authentication age in seconds
        """

    static let token = """
        usage: versola token [--profile NAME] [--force-refresh] [--format raw|json|k8s]

        Prints a valid access token, refreshing it when less than 2 minutes are left.

          --force-refresh   refresh even when the cached token is still good
          --format raw      the token alone (default)
          --format json     {"accessToken":…,"tokenType":…,"expiresAt":…}
          --format k8s      a client.authentication.k8s.io/v1 ExecCredential for kubectl
        """

    static let status = """
        usage: versola status [--profile NAME] [--json] [--watch]

        Shows the session state and who is signed in; works offline.

          --watch   keep printing each state change until interrupted
        """

    static let userInfo = """
        usage: versola userinfo [--profile NAME] [--json]

        Prints the provider's UserInfo claims for the signed-in user.
        """

    static let logout = """
        usage: versola logout [--profile NAME] [--end-session]

        Revokes the refresh token and wipes the profile's session and DPoP key. Never fails.

          --end-session   also open the provider's end-session page in the browser
        """

    static let request = """
        usage: versola request [--profile NAME] [-X METHOD] [-H 'Name: value']... [-d DATA] URL

        Sends a request with the access token (and a DPoP proof when the session is DPoP-bound)
        and prints the response body. A 401 gets one refresh and one replay.

          -X METHOD        the method (default GET, or POST with -d)
          -H 'Name: value' a request header (repeatable)
          -d DATA          the request body; @FILE reads a file, @- standard input
          --json           print status, headers and body as JSON
        """

    static let handleRedirect = """
        usage: versola handle-redirect [--profile NAME] URL

        Delivers the final redirect URL of a login (pasted from the browser, or handed over by a
        URL handler) to the pending login of the profile. It is validated against the stored request.
        A re-login still waiting in versola login is handed the redirect and finishes there.
        """

    static let verify = """
        usage: versola verify [--issuer URL] [--audience AUD] [--type at+jwt] [--ca-file PATH] TOKEN

        Verifies a JWT as a backend would: discovery of the issuer, its JWKS, the key by kid,
        the algorithm pinned to the key, and iss, exp, nbf and iat with a 60 s tolerance.
        TOKEN - reads the token from standard input. Without --issuer the profile's issuer is used.
        Without --audience a token minted for any client of the issuer passes (a warning says so);
        --type at+jwt also requires the typ of an RFC 9068 access token.
        """

    static let agent = """
        usage: versola agent [--idle-timeout SECONDS] [--stop]

        Runs the per-user session agent that keeps access tokens in memory across commands.
        Commands start it on demand; it exits after --idle-timeout seconds without a request
        (default 600). --stop asks a running agent to exit.
        """
}
