#!/usr/bin/env python3
"""A host for the OpenID Foundation's RP test provider (PyPI `oidctest`), on loopback.

usage: oidctest_op.py --port PORT --tests TSV --dir DIR

Every test id of the table (oidctest-expectations.tsv, column `op`) is served as its own
issuer, http://127.0.0.1:PORT/versola/<test id>, by oidctest's own provider classes
(`oidctest.rp.provider.Provider` behind `oidctest.cp.op.Provider`), each set up with the
behaviour the test's definition names: which claim of the ID token or UserInfo answer is
spoiled (`behavior=`), which claim type UserInfo answers with (`claims=`), and what the
provider advertises (`alg=` for id_token_signing_alg_values_supported). Clients register
at <issuer>/registration first (the provider keeps no static client); its only user signs
in without a form. DIR is the working directory: key files, the published key sets under
static/, oidctest's per-test event logs under log/, and this host's own log (op.log).

Prints "oidctest on http://127.0.0.1:PORT" once it answers.
"""
import argparse
import collections
import collections.abc
import logging
import os
import sys
import types

# oic 1.2 and otest still import these from collections (moved in Python 3.10).
for _name in ("Mapping", "MutableMapping", "Sequence", "MutableSequence", "Set", "MutableSet",
              "Iterable", "Callable", "Hashable"):
    setattr(collections, _name, getattr(collections.abc, _name))

import oic.oic.provider  # noqa: E402

# oidctest 0.8.2 imports this as a function; oic 1.2 made it a static method.
oic.oic.provider.do_front_channel_logout_iframe = oic.oic.provider.Provider.do_front_channel_logout_iframe

import cherrypy  # noqa: E402
from oidctest.cp import dump_log  # noqa: E402
from oidctest.cp.op import Provider as ProviderRoot  # noqa: E402
from oidctest.cp.op_handler import OPHandler  # noqa: E402
from oidctest.cp.setup import cb_setup  # noqa: E402
from oidctest.rp import provider  # noqa: E402
from oic.utils.session_backend import DictSessionBackend  # noqa: E402

RP_ID = "versola"

# The provider's settings (the module cb_setup reads): signing and encryption keys, the
# alternative key set of rp-id_token-kid-absent-multiple-jwks, and one user who signs in
# without a form.
CONFIG = {
    "baseurl": "http://127.0.0.1",
    "keys": [
        {"type": "RSA", "key": "keys/rsa_enc", "use": ["enc"]},
        {"type": "RSA", "key": "keys/rsa_sig", "use": ["sig"]},
        {"type": "EC", "crv": "P-256", "use": ["sig"]},
        {"type": "EC", "crv": "P-256", "use": ["enc"]},
    ],
    "multi_keys": [
        {"type": "RSA", "use": ["enc"], "name": "rsa_enc_1", "key": "keys/rsa_enc"},
        {"type": "RSA", "use": ["sig"], "name": "rsa_sig_1", "key": "keys/rsa_sig"},
        {"type": "RSA", "use": ["enc"], "name": "rsa_enc_2", "key": "keys/rsa_enc_2"},
        {"type": "RSA", "use": ["sig"], "name": "rsa_sig_2", "key": "keys/rsa_sig_2"},
        {"type": "EC", "crv": "P-256", "use": ["sig"]},
        {"type": "EC", "crv": "P-256", "use": ["enc"]},
    ],
    "AUTHENTICATION": {"NoAuthn": {"ACR": "PASSWORD", "WEIGHT": 1, "user": "diana"}},
    "COOKIE": {"name": "oidctest", "ttl": 4 * 60},
    "SSO_TTL": 2 * 60,
    "SYM_KEY": "NotASecretAtAll!",
    "USERINFO": "SIMPLE",
    "LOGOUT_PATH": "logout",
    "USERDB": {
        "diana": {
            "sub": "dikr0001", "name": "Diana Krall", "given_name": "Diana",
            "family_name": "Krall", "nickname": "Dina", "email": "diana@example.org",
            "email_verified": False, "phone_number": "+46 90 7865000",
            "address": {"street_address": "Umeå Universitet", "locality": "Umeå",
                        "postal_code": "SE-90187", "country": "Sweden"},
        },
    },
}


class TestProvider(provider.Provider):
    """oidctest's provider with the two things oic 1.2 changed under it: `create_providerinfo`
    lost its `pcr_class` parameter, so the "isso" behaviour (a wrong issuer in the metadata)
    is applied here; and the session store must be a `SessionBackend` (oidctest hands a
    plain dict, on which the end-session endpoint fails looking a user up by `sub`)."""

    def __init__(self, *args, sdb=None, **kwargs):
        if sdb is not None and isinstance(sdb._db, dict) and not sdb._db:
            sdb._db = DictSessionBackend()
        super().__init__(*args, sdb=sdb, **kwargs)

    def create_providerinfo(self, setup=None):
        metadata = oic.oic.provider.Provider.create_providerinfo(self, setup)
        if "isso" in self.behavior_type:
            metadata["issuer"] = "https://example.com"
        return metadata


def read_tests(path):
    """The `op` column of the expectations table, as oidctest's flow entries."""
    flows = {}
    with open(path, encoding="utf-8") as table:
        header = None
        for line in table:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            row = dict(zip(header, fields))
            flow = {"claims": "normal", "capabilities": {"response_types_supported": ["code"]}}
            for setting in row["op"].split():
                if setting == "-":
                    continue
                name, _, value = setting.partition("=")
                if name == "behavior":
                    flow["behavior"] = value.split(",")
                elif name == "claims":
                    flow["claims"] = value
                elif name == "alg":
                    flow["capabilities"]["id_token_signing_alg_values_supported"] = [value]
                else:
                    raise SystemExit(f"oidctest_op: unknown setting {setting!r} for {row['test']}")
            flows[row["test"]] = flow
    return flows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tests", required=True)
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    flows = read_tests(os.path.abspath(args.tests))
    os.chdir(args.dir)
    os.makedirs("static", exist_ok=True)
    os.makedirs("keys", exist_ok=True)

    logging.basicConfig(filename="op.log", level=logging.DEBUG,
                        format="%(asctime)s %(name)s:%(levelname)s %(message)s")
    config = types.ModuleType("versola_oidctest_config")
    config.__dict__.update(CONFIG)
    sys.modules[config.__name__] = config
    setup_args = argparse.Namespace(config=config.__name__, path=None, port=args.port,
                                    insecure=True, debug=False)
    com_args, op_args, _ = cb_setup(setup_args)
    handler = OPHandler(TestProvider, op_args, com_args, flows, os.getcwd())

    cherrypy.tools.dumplog = cherrypy.Tool("before_finalize", dump_log)
    cherrypy.config.update({
        "environment": "production",
        "log.screen": False,
        "log.error_file": "site.log",
        "tools.trailing_slash.on": False,
        "server.socket_host": "127.0.0.1",
        "server.socket_port": args.port,
        "server.thread_pool": 4,
        "tools.sessions.on": True,
        "tools.encode.on": True,
        "tools.encode.encoding": "utf-8",
        "tools.dumplog.on": True,
    })
    static = {"tools.staticdir.on": True, "tools.staticdir.dir": os.path.join(os.getcwd(), "static")}
    cherrypy.tree.mount(ProviderRoot(handler, flows, version="versola-interop"), "/", {"/static": static})
    cherrypy.engine.start()
    print(f"oidctest on http://127.0.0.1:{args.port}", flush=True)
    cherrypy.engine.block()


if __name__ == "__main__":
    main()
