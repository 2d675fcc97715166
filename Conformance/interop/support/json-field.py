"""Prints the value at a path of keys in a JSON text (nothing when absent or not JSON), for
run-provider.sh.  Usage: json-field.py JSON KEY..."""
import json, sys
try:
    value = json.loads(sys.argv[1])
except ValueError:
    sys.exit(0)
for key in sys.argv[2:]:
    if isinstance(value, dict) and key in value:
        value = value[key]
    else:
        sys.exit(0)
print(value if isinstance(value, str) else json.dumps(value))
