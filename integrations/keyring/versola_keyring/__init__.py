"""A keyring backend that answers with access tokens from versola sessions.

The backend lives in :mod:`versola_keyring.backend`; keyring finds it through the
``keyring.backends`` entry point this package declares.
"""

__version__ = "0.1.0"
