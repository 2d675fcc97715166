"""Prints the action and the hidden token of idpyoidc's sign-in form in PAGE (exit 1 when
there is none), for idpyoidc-login.sh.  Usage: sign-in-form.py PAGE"""
import html, re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
action = re.search(r'<form[^>]*action="([^"]+)"', text)
token = re.search(r'name="token" value="([^"]+)"', text)
if not action or not token:
    sys.exit(1)
print(html.unescape(action.group(1)), html.unescape(token.group(1)))
