"""Exits 0 when this Python has idpyoidc VERSION installed, for idpyoidc.sh.
Usage: has-idpyoidc.py VERSION"""
import sys
from importlib.metadata import version
sys.exit(0 if version("idpyoidc") == sys.argv[1] else 1)
