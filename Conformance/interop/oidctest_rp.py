#!/usr/bin/env python3
"""Runs `versola` through the OpenID Foundation's RP tests and prints the expectations table.

usage: oidctest_rp.py --versola PATH --base URL --tests TSV --port N --work DIR
                      [--op-log DIR] [--markdown FILE]

For each row of the table (oidctest-expectations.tsv) whose `drive` is not `-`: registers
a client at the test's issuer (URL/versola/<test id>; client_secret_basic unless the drive
says otherwise; the secret goes to a user-only file, never to argv or output), then runs
the drive with fresh XDG directories and no agent, and names the outcome:

  pass                      every command exited 0 and the drive's check held
  refuse:<category>.<cause> a command failed with that error (E13 JSON on stderr)
  unresolved / ended        the observations of the claim-sources and end-session drives

A pass where the test planted something is checked for it: the ID token header carries
the `alg=` of the `op` column (and no kid for nokid1jwks), and a rotation test shows a key
rotation at the provider before each ID token.

A row matches when the outcome equals its `expect`; rows with drive `-` are not run
(`not-run`). A mandatory row (profile C or CNF) may not be "not supported". Prints the
table (test id, profile, expected with rule, got, result) and exits 1 when a row differs.
"""
import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

BROWSER = "curl -sL -o /dev/null %s"
LOGIN_TIMEOUT = 60
FULL_SCOPES = ["openid", "profile", "email", "address", "phone"]


def read_table(path):
    rows, header = [], None
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if header is None:
            header = fields
        else:
            rows.append(dict(zip(header, fields)))
    return rows


class Run:
    """One test id: its issuer, a registered client and throwaway XDG directories."""

    def __init__(self, args, test, home):
        self.args, self.test, self.home = args, test, home
        self.issuer = f"{args.base}/versola/{test}"
        self.redirect = f"http://127.0.0.1:{args.port}/callback"
        self.env = dict(os.environ, VERSOLA_NO_AGENT="1", NO_COLOR="1")
        for name in ("CONFIG", "STATE", "CACHE", "RUNTIME"):
            directory = home / name.lower()
            directory.mkdir(mode=0o700)
            key = "XDG_RUNTIME_DIR" if name == "RUNTIME" else f"XDG_{name}_HOME"
            self.env[key] = str(directory)
        self.client_id = None
        self.secret_file = home / "client-secret"
        self.log = []
        self.reason = ""
        self.events = Path(args.op_log or ".") / "versola" / f"{test}.txt"

    def provider_events(self):
        """The provider's own event log for this test id (it holds tokens: never printed)."""
        return self.events.read_text(errors="replace") if self.events.exists() else ""

    def register(self, method, post_logout=False):
        metadata = {
            "redirect_uris": [self.redirect], "contacts": ["versola@example.org"],
            "application_type": "native", "response_types": ["code"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": method,
        }
        if post_logout:
            metadata["post_logout_redirect_uris"] = [f"http://127.0.0.1:{self.args.port}/signed-out"]
        body = json.dumps(metadata).encode()
        request = urllib.request.Request(f"{self.issuer}/registration", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=20) as answer:
            registration = json.load(answer)
        self.client_id = registration["client_id"]
        descriptor = os.open(self.secret_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as secret:
            secret.write(registration["client_secret"])

    def versola(self, *arguments):
        """Runs one command; returns (exit status, stdout). Failures are kept in self.log."""
        command = [self.args.versola, "--json", *arguments]
        try:
            done = subprocess.run(command, env=self.env, capture_output=True, text=True,
                                  timeout=LOGIN_TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            self.log.append(f"versola {arguments[0]}: no answer in {LOGIN_TIMEOUT} s")
            return None, ""
        if done.returncode != 0:
            self.log.append(f"versola {arguments[0]} exited {done.returncode}: {done.stderr.strip()[-600:]}")
        self.last_stderr = done.stderr
        return done.returncode, done.stdout

    def refusal(self):
        """The E13 error the last command printed, as refuse:<category>.<cause>."""
        for line in reversed(self.last_stderr.splitlines()):
            try:
                error = json.loads(line)["error"]
            except (ValueError, KeyError, TypeError):
                continue
            self.reason = str(error.get("reason") or error.get("providerDescription") or "")
            return f"refuse:{error.get('category')}.{error.get('cause')}"
        return "error: no JSON error on stderr"

    def login(self, scopes=("openid",), extra=()):
        arguments = ["login", "--issuer", self.issuer, "--client-id", self.client_id,
                     "--client-secret-file", str(self.secret_file), "--port", str(self.args.port),
                     "--browser-command", BROWSER, *extra]
        for scope in scopes:
            arguments += ["--scope", scope]
        status, _ = self.versola(*arguments)
        return None if status == 0 else self.refusal()

    def json_of(self, *arguments):
        status, out = self.versola(*arguments)
        if status != 0:
            return self.refusal(), None
        try:
            return None, json.loads(out)
        except ValueError:
            self.log.append(f"versola {arguments[0]} printed no JSON")
            return "error: no JSON answer", None


def claims_parameter(member):
    return ["--auth-param", "claims=" + json.dumps({member: {"name": {"essential": True}}})]


def planted_in_id_token(run, op):
    """After a sign-in that passed: whether the ID token carried what the test planted (its
    `alg=`, no `kid` for nokid1jwks), read from its header; None when it did. The token is
    read into memory only, never printed."""
    settings = dict(setting.partition("=")[::2] for setting in op.split() if "=" in setting)
    algorithm = settings.get("alg")
    without_kid = "nokid1jwks" in settings.get("behavior", "").split(",")
    if not algorithm and not without_kid:
        return None
    status, token = run.versola("token", "--token", "id", "--format", "raw")
    if status != 0:
        return run.refusal()
    encoded = token.strip().split(".")[0]
    header = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    if algorithm and header.get("alg") != algorithm:
        return f"the ID token is signed {header.get('alg')}, not {algorithm}"
    if without_kid and "kid" in header:
        return "the ID token's header names a kid"
    return None


def drive(run, name, op):
    """Runs the named drive; returns its outcome."""
    if name == "login-unregistered":
        status, _ = run.versola("login", "--issuer", run.issuer, "--port", str(run.args.port),
                                "--browser-command", BROWSER)
        return "pass" if status == 0 else run.refusal()
    run.register("client_secret_post" if name == "login-secret-post" else "client_secret_basic",
                 post_logout=name == "end-session")
    if name in ("login", "login-secret-post"):
        return run.login() or planted_in_id_token(run, op) or "pass"
    if name == "login-twice":
        first = run.login()
        if first:
            return first
        run.versola("logout")
        second = run.login()
        if second:
            return second
        # The planted fault: each ID token signed by a key rotated in just before.
        rotations = run.provider_events().count("rotated signing keys")
        return "pass" if rotations >= 2 else f"only {rotations} key rotations at the provider"
    if name in ("userinfo", "scope-claims", "claims-userinfo", "claim-sources"):
        scopes = FULL_SCOPES if name == "scope-claims" else ["openid"]
        extra = claims_parameter("userinfo") if name == "claims-userinfo" else []
        refused = run.login(scopes, extra)
        if refused:
            return refused
        refused, info = run.json_of("userinfo")
        if refused:
            return refused
        wanted = {"scope-claims": ["name", "email", "address", "phone_number"],
                  "claims-userinfo": ["name"]}.get(name, [])
        missing = [claim for claim in wanted if claim not in info]
        if missing:
            return "missing: " + " ".join(missing)
        if name == "claim-sources":
            return "unresolved" if "_claim_sources" in info else "resolved"
        return "pass"
    if name == "claims-id_token":
        refused = run.login(["openid"], claims_parameter("id_token"))
        if refused:
            return refused
        refused, status = run.json_of("status")
        if refused:
            return refused
        return "pass" if (status.get("user") or {}).get("name") else "missing: name"
    if name == "end-session":
        return end_session(run)
    raise SystemExit(f"oidctest_rp: unknown drive {name!r}")


def end_session(run):
    """Signs in, then `logout --end-session`: ended when the provider's event log for the test
    shows the end-session request and then its verified logout (the SSO session removed)."""
    refused = run.login()
    if refused:
        return refused
    seen = len(run.provider_events())
    status, _ = run.versola("logout", "--end-session")
    if status != 0:
        return run.refusal()
    # The browser command (curl) follows the provider's redirects; its last page is logged
    # by the provider before curl returns, so the log is complete once logout has exited.
    logged = run.provider_events()[seen:]
    if '"name": "EndSessionRequest"' not in logged:
        return "no end-session request"
    if '"name": "Logout"' not in logged.split('"name": "EndSessionRequest"', 1)[1]:
        return "end-session request not completed"
    return "ended"


def with_reason(got, expect, reason):
    """A refusal expected as refuse:<category>.<cause>~<words> must also name those words in
    its reason (the error's `reason` or the provider's description): the refusal is for the
    fault the test planted, not for another one in the same category."""
    outcome, _, words = expect.partition("~")
    if not words or got != outcome:
        return got
    if words.lower() in reason.lower():
        return expect
    return f"{got} (reason: {reason[:100]})"


def result_of(row, got):
    note = row["note"]
    if got != row["expect"]:
        return "FAIL"
    if row["profile"] != "optional" and note.startswith("not supported"):
        return "FAIL (mandatory, not supported)"
    if note.startswith("not supported"):
        return "not supported (listed)"
    if note.startswith("deliberate"):
        return f"refused on purpose ({row['rule']})"
    return "pass"


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--versola", "--base", "--tests", "--work"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--op-log")
    parser.add_argument("--markdown")
    args = parser.parse_args()

    lines, failures = [], []
    for row in read_table(args.tests):
        if row["drive"] == "-":
            got, log = "not-run", []
        else:
            home = Path(tempfile.mkdtemp(prefix=row["test"] + ".", dir=args.work))
            run = Run(args, row["test"], home)
            try:
                got = with_reason(drive(run, row["drive"], row["op"]), row["expect"], run.reason)
            except (OSError, ValueError, KeyError) as error:
                got = f"error: {type(error).__name__}: {error}"
            log = run.log
        result = result_of(row, got)
        expected = row["expect"] + (f" ({row['rule']})" if row["expect"] != "not-run" else "")
        lines.append([row["test"], row["profile"], expected, got, result])
        if result.startswith("FAIL"):
            failures.append((row, got, log))

    header = ["test id", "profile", "expected (rule)", "got", "result"]
    table = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    table += ["| " + " | ".join(line) + " |" for line in lines]
    print("== oidctest RP tests (Basic and Config RP profiles, response type code)")
    print("\n".join(table))
    print()
    for title, rows in (("mandatory (C, CNF)", [line for line in lines if line[1] != "optional"]),
                        ("optional", [line for line in lines if line[1] == "optional"])):
        counts = {}
        for line in rows:
            key = line[4].split(" (")[0]
            counts[key] = counts.get(key, 0) + 1
        summary = ", ".join(f"{value} {key}" for key, value in sorted(counts.items()))
        print(f"oidctest: {len(rows)} {title} test ids: {summary}")
    for row, got, log in failures:
        print(f"  {row['test']}: expected {row['expect']}, got {got}: {row['note']}")
        for entry in log:
            print(f"    {entry}")
    if args.markdown:
        notes = [f"- {row['test']}: {row['note']}" for row in read_table(args.tests)]
        Path(args.markdown).write_text("\n".join(["# oidctest RP tests", ""] + table + [""] + notes) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
