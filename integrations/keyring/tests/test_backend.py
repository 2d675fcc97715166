"""Unit tests of the versola keyring backend against a stand-in `versola` command.

The stand-in answers `credential --url URL` from a table the test writes (exit status,
standard output, standard error per URL) and records each call, so a test can check both
what the backend returned and what it ran. The real command is used by the real-client
stage (Conformance/interop/tools.sh).
"""

import io
import json
import logging
import os
import stat
import sys
import tempfile
import textwrap
import unittest
from contextlib import redirect_stderr
from pathlib import Path

from unittest import mock

from keyring import backend as keyring_backend
from keyring import errors
from keyring.backends import chainer
from keyring.compat import properties

from versola_keyring import backend

INDEX = "http://127.0.0.1:8080/simple/"
TOKEN = "stand-in-token-7f3a9c"  # what the stand-in prints; must never reach a log

STAND_IN = textwrap.dedent(
    """\
    #!PYTHON
    import json, os, sys
    table = json.load(open(os.environ["STAND_IN_TABLE"]))
    with open(os.environ["STAND_IN_CALLS"], "a") as calls:
        calls.write(json.dumps({"argv": sys.argv[1:], "stdin": sys.stdin.read()}) + "\\n")
    url = sys.argv[3] if sys.argv[1:3] == ["credential", "--url"] else ""
    answer = table.get(url, {"exit": 1})
    sys.stdout.write(answer.get("stdout", ""))
    sys.stderr.write(answer.get("stderr", ""))
    sys.exit(answer["exit"])
    """
).replace("PYTHON", sys.executable)


class StandInTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp())
        self.addCleanup(self._remove_directory)
        command = self.directory / "versola"
        command.write_text(STAND_IN)
        command.chmod(stat.S_IRWXU)
        self.table, self.calls = self.directory / "table.json", self.directory / "calls"
        self.answer({})
        saved = {name: os.environ.get(name) for name in ("STAND_IN_TABLE", "STAND_IN_CALLS", "PATH", backend.COMMAND_VARIABLE)}
        self.addCleanup(self._restore, saved)
        os.environ["STAND_IN_TABLE"], os.environ["STAND_IN_CALLS"] = str(self.table), str(self.calls)
        os.environ["PATH"] = f"{self.directory}{os.pathsep}{os.environ.get('PATH', '')}"
        os.environ.pop(backend.COMMAND_VARIABLE, None)
        self.keyring = backend.VersolaKeyring()
        self.log = io.StringIO()
        handler = logging.StreamHandler(self.log)
        backend.log.addHandler(handler)
        backend.log.setLevel(logging.DEBUG)
        self.addCleanup(backend.log.removeHandler, handler)

    def _remove_directory(self):
        for path in self.directory.iterdir():
            path.unlink()
        self.directory.rmdir()

    @staticmethod
    def _restore(saved):
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def answer(self, table):
        self.table.write_text(json.dumps(table))

    def serve(self, url=INDEX, username="oauth2"):
        stdout = json.dumps({"username": username, "password": TOKEN, "expires_at": 1900000000})
        self.answer({url: {"exit": 0, "stdout": stdout}})

    def recorded_calls(self):
        if not self.calls.exists():
            return []
        return [json.loads(line) for line in self.calls.read_text().splitlines()]

    def assert_no_token_in(self, text, where):
        self.assertFalse(TOKEN in text, f"the token appeared in {where}")


class ServedURLTests(StandInTestCase):
    def test_credential_for_a_served_url_is_the_targets_username_and_token(self):
        self.serve()
        credential = self.keyring.get_credential(INDEX, None)
        self.assertIsNotNone(credential)
        self.assertEqual(credential.username, "oauth2")
        self.assertTrue(credential.password == TOKEN, "the password is not the token versola printed")
        self.assertEqual(self.recorded_calls(), [{"argv": ["credential", "--url", INDEX], "stdin": ""}])
        self.assert_no_token_in(self.log.getvalue(), "the log")

    def test_the_username_returned_is_the_recorded_one_whatever_was_asked(self):
        self.serve(username="oauth2accesstoken")
        self.assertEqual(self.keyring.get_credential(INDEX, "__token__").username, "oauth2accesstoken")

    def test_password_for_a_served_url_is_the_token_for_any_username(self):
        self.serve()
        for username in ("oauth2", "someone", None):
            self.assertTrue(self.keyring.get_password(INDEX, username) == TOKEN, f"no token for {username}")

    def test_a_user_and_password_in_the_url_reach_neither_versola_nor_the_log(self):
        self.serve()
        asked = "http://alice:typed-secret@127.0.0.1:8080/simple/"
        self.assertTrue(self.keyring.get_password(asked, "alice") == TOKEN)
        self.assertEqual(self.recorded_calls()[0]["argv"], ["credential", "--url", INDEX])
        self.answer({INDEX: {"exit": 2, "stderr": "something failed"}})
        self.keyring.get_password(asked, "alice")
        self.assertNotIn("typed-secret", self.log.getvalue())

    def test_each_request_asks_versola_again(self):
        # versola decides freshness (its agent answers warm requests); the backend keeps nothing.
        self.serve()
        self.keyring.get_password(INDEX, None)
        self.keyring.get_password(INDEX, None)
        self.assertEqual(len(self.recorded_calls()), 2)

    def test_the_command_named_in_the_environment_wins_over_path(self):
        self.serve()
        other = self.directory / "elsewhere"
        other.write_text(STAND_IN)
        other.chmod(stat.S_IRWXU)
        os.environ[backend.COMMAND_VARIABLE] = str(other)
        os.environ["PATH"] = "/nonexistent"
        self.assertTrue(self.keyring.get_password(INDEX, None) == TOKEN)


class FallThroughTests(StandInTestCase):
    def test_a_url_versola_does_not_serve_answers_nothing(self):
        self.answer({INDEX: {"exit": 1}})
        self.assertIsNone(self.keyring.get_credential(INDEX, None))
        self.assertIsNone(self.keyring.get_password(INDEX, "oauth2"))
        self.assertEqual(len(self.recorded_calls()), 2)

    def test_a_service_that_is_no_url_is_not_asked_about(self):
        self.assertIsNone(self.keyring.get_password("system-mail", "alice"))
        self.assertIsNone(self.keyring.get_credential("ftp://127.0.0.1/", None))
        self.assertEqual(self.recorded_calls(), [])

    def test_no_session_says_why_on_stderr_and_answers_nothing(self):
        message = "profile pypi has no session: run versola login --profile pypi"
        self.answer({INDEX: {"exit": 4, "stderr": message + "\n"}})
        stderr = io.StringIO()
        with redirect_stderr(stderr):
            self.assertIsNone(self.keyring.get_credential(INDEX, None))
        self.assertIn(message, stderr.getvalue())

    def test_output_that_is_no_credential_is_ignored_without_repeating_it(self):
        self.answer({INDEX: {"exit": 0, "stdout": f"not json {TOKEN}"}})
        self.assertIsNone(self.keyring.get_credential(INDEX, None))
        self.assertIn("not a credential", self.log.getvalue())
        self.assert_no_token_in(self.log.getvalue(), "the log")

    def test_a_credential_without_a_password_is_ignored(self):
        self.answer({INDEX: {"exit": 0, "stdout": json.dumps({"username": "oauth2", "password": ""})}})
        self.assertIsNone(self.keyring.get_credential(INDEX, None))

    def test_another_failure_is_logged_with_its_status_and_answers_nothing(self):
        self.answer({INDEX: {"exit": 2, "stderr": "unknown flag --url"}})
        self.assertIsNone(self.keyring.get_credential(INDEX, None))
        self.assertIn("exit 2", self.log.getvalue())


class StoringTests(StandInTestCase):
    def test_storing_for_a_served_url_is_refused_in_plain_words(self):
        self.serve()
        with self.assertRaises(errors.PasswordSetError) as raised:
            self.keyring.set_password(INDEX, "oauth2", "typed-secret")
        self.assertIn("keeps no password", str(raised.exception))
        self.assertNotIn("typed-secret", str(raised.exception))
        with self.assertRaises(errors.PasswordDeleteError):
            self.keyring.delete_password(INDEX, "oauth2")

    def test_storing_for_any_other_service_is_left_to_the_next_backend(self):
        with self.assertRaises(NotImplementedError):
            self.keyring.set_password(INDEX, "oauth2", "typed-secret")
        with self.assertRaises(NotImplementedError):
            self.keyring.delete_password("system-mail", "alice")


class MemoryKeyring(keyring_backend.KeyringBackend):
    """A platform keyring stand-in for the chainer test (viable only when switched on)."""

    enabled = False
    stored = {}

    @properties.classproperty
    def priority(cls):
        if not cls.enabled:
            raise RuntimeError("only for the chainer test")
        return 5

    def get_password(self, service, username):
        return self.stored.get((service, username))

    def set_password(self, service, username, password):
        self.stored[(service, username)] = password


class PriorityTests(StandInTestCase):
    def test_viable_with_a_priority_below_the_chainer_and_above_platform_keyrings(self):
        self.assertTrue(backend.VersolaKeyring.viable)
        self.assertGreater(backend.VersolaKeyring.priority, 5)
        self.assertLess(backend.VersolaKeyring.priority, 10)

    def test_not_viable_without_a_versola_command(self):
        os.environ["PATH"] = "/nonexistent"
        self.assertFalse(backend.VersolaKeyring.viable)
        os.environ[backend.COMMAND_VARIABLE] = str(self.directory / "missing")
        self.assertFalse(backend.VersolaKeyring.viable)

    def test_the_chainer_asks_versola_first_and_falls_through_for_other_urls(self):
        MemoryKeyring.enabled = True
        self.addCleanup(setattr, MemoryKeyring, "enabled", False)
        other = "https://pypi.example.test/simple/"
        MemoryKeyring.stored = {(other, "alice"): "alices-password"}
        self.serve()
        rings = [self.keyring, MemoryKeyring()]
        ordered = sorted(rings, key=keyring_backend.by_priority, reverse=True)
        self.assertIs(ordered[0], self.keyring)
        with mock.patch.object(chainer.ChainerBackend, "backends", ordered):
            chain = chainer.ChainerBackend()
            self.assertTrue(chain.get_password(INDEX, "oauth2") == TOKEN)
            self.assertEqual(chain.get_password(other, "alice"), "alices-password")
            chain.set_password(other, "bob", "bobs-password")
        self.assertEqual(MemoryKeyring.stored[(other, "bob")], "bobs-password")


if __name__ == "__main__":
    unittest.main()
