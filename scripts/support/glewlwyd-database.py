"""Creates glewlwyd's sqlite database from its packaged (gzipped) schema, for scripts/interop.sh.
Usage: glewlwyd-database.py SCHEMA.sql.gz DATABASE"""
import gzip, sqlite3, sys
with gzip.open(sys.argv[1], "rt") as schema:
    sqlite3.connect(sys.argv[2]).executescript(schema.read())
