"""The versola keyring backend.

For an index URL that a ``versola setup-pip`` target covers, the password is a live access
token of the target's profile, got by running ``versola credential --url URL``, which never
prompts: it answers from the session (the agent first) and refreshes when needed. For any
other service the backend answers nothing, so keyring's chainer goes on to the next backend.

The token is never logged, printed or kept: it goes from versola's standard output to the
caller and nowhere else.
"""

import json
import logging
import os
import shutil
import subprocess
import sys
from typing import NamedTuple, Optional
from urllib.parse import urlsplit, urlunsplit

from keyring import backend, credentials, errors
from keyring.compat import properties

log = logging.getLogger(__name__)

#: The environment variable naming the versola command; without it, ``versola`` on PATH.
COMMAND_VARIABLE = "VERSOLA_KEYRING_COMMAND"
#: How long one ``versola credential`` may take (a refresh stays well inside it).
TIMEOUT_SECONDS = 60
#: Below keyring's chainer (10), which then asks this backend first, and above the
#: platform keyrings (about 5), so that a served URL is answered here and every other
#: one falls through to them.
PRIORITY = 9

# `versola credential` exit statuses (docs: integrations/keyring/README.md).
_SERVED, _NOT_SERVED, _NO_SESSION = 0, 1, 4


class Answer(NamedTuple):
    """What versola said about one URL: ``kind`` is token, not-served, no-session or failed."""

    kind: str
    username: Optional[str] = None
    password: Optional[str] = None


def versola_command() -> Optional[str]:
    """The versola command to run, or None when there is none."""
    configured = os.environ.get(COMMAND_VARIABLE)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("versola")


def is_web_address(service: str) -> bool:
    """Whether keyring's service name is an http(s) URL (pip, uv and twine ask with one)."""
    try:
        parts = urlsplit(service)
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        return False


def without_credentials(url: str) -> str:
    """The URL without a user or password before its host: versola matches scheme, host, port
    and path, and a password must reach neither its command line nor a log."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def _credential_from(stdout: bytes) -> Answer:
    try:
        document = json.loads(stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        document = None
    if not isinstance(document, dict):
        document = {}
    username, password = document.get("username"), document.get("password")
    if isinstance(username, str) and isinstance(password, str) and password:
        return Answer("token", username, password)
    # Nothing of what was printed is repeated: it may hold a token.
    log.warning("versola credential printed something that is not a credential; ignored")
    return Answer("failed")


def ask_versola(url: str) -> Answer:
    """Runs ``versola credential --url URL`` with no input and reads its answer."""
    url = without_credentials(url)
    command = versola_command()
    if command is None:
        log.debug("no versola command; nothing to answer for %s", url)
        return Answer("failed")
    try:
        done = subprocess.run(
            [command, "credential", "--url", url],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        log.warning("versola credential gave no answer for %s within %d s", url, TIMEOUT_SECONDS)
        return Answer("failed")
    except OSError as error:
        log.warning("could not run %s: %s", command, error.strerror or error)
        return Answer("failed")
    reason = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode == _SERVED:
        return _credential_from(done.stdout)
    if done.returncode == _NOT_SERVED:
        log.debug("versola serves no target for %s", url)
        return Answer("not-served")
    if done.returncode == _NO_SESSION:
        # The reason is versola's own plain words (which profile, which sign-in line).
        print(reason or f"versola has no session to answer {url} with", file=sys.stderr)
        return Answer("no-session")
    log.warning("versola credential failed for %s (exit %d): %s", url, done.returncode, reason[:500])
    return Answer("failed")


class VersolaKeyring(backend.KeyringBackend):
    """Access tokens for the URLs ``versola setup-pip`` recorded; nothing for any other."""

    @properties.classproperty
    def priority(cls) -> float:
        if versola_command() is None:
            raise RuntimeError(f"no versola command on PATH or in ${COMMAND_VARIABLE}")
        return PRIORITY

    def get_credential(self, service: str, username: Optional[str]) -> Optional[credentials.Credential]:
        """The target's username and a live access token, or None for a URL versola does not serve.

        The username asked for is not matched: callers must use the one returned, which is
        the one recorded with ``versola setup-pip --username``.
        """
        if not is_web_address(service):
            return None
        answer = ask_versola(service)
        if answer.kind != "token":
            return None
        return credentials.SimpleCredential(answer.username, answer.password)

    def get_password(self, service: str, username: Optional[str]) -> Optional[str]:
        """A live access token for a served URL, whatever the username; None otherwise."""
        credential = self.get_credential(service, username)
        return credential.password if credential is not None else None

    def _refuse_for_served(self, service: str, error_type: type) -> None:
        if is_web_address(service) and ask_versola(service).kind in ("token", "no-session"):
            raise error_type(
                f"versola signs in for {service} and keeps no password for it; "
                "use versola login for its profile"
            )
        # Not ours: keyring's chainer offers it to the next backend.
        raise NotImplementedError(service)

    def set_password(self, service: str, username: str, password: str) -> None:
        """Never stores: refused for a served URL, left to other backends otherwise."""
        self._refuse_for_served(service, errors.PasswordSetError)

    def delete_password(self, service: str, username: str) -> None:
        """Nothing to delete: refused for a served URL, left to other backends otherwise."""
        self._refuse_for_served(service, errors.PasswordDeleteError)
