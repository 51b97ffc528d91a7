#!/bin/bash
# bench/fetch-duckdb.sh — put DuckDB's C library at bench/duckdb/libduckdb.so for bench/run.sh, from
# the npm package @duckdb/node-bindings-linux-x64 (npm pack: no node_modules, no install scripts).
#
#   bench/fetch-duckdb.sh [VERSION]      (default: the latest)
#
# The package's .tgz stays in bench/duckdb/ too: carry bench/duckdb (or only the .tgz, 24 MB) to a
# host without package access; bench/run.sh extracts libduckdb.so from the .tgz when it is missing.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEST="$HERE/duckdb"
PKG="@duckdb/node-bindings-linux-x64"
[ "$(uname -m)" = x86_64 ] || { echo "fetch-duckdb.sh: only linux x86_64 is packaged as $PKG" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "fetch-duckdb.sh: npm not found (apt-get install npm)" >&2; exit 1; }
mkdir -p "$DEST"
spec="$PKG${1:+@$1}"
echo "==> npm view $spec version: $(npm view "$spec" version 2>/dev/null | tail -n 1)" >&2
tgz="$(cd "$DEST" && npm pack --silent "$spec" | tail -n 1)"
tar -xzf "$DEST/$tgz" -C "$DEST" --strip-components=1 package/libduckdb.so package/LICENSE
echo "==> $DEST/libduckdb.so (from $tgz)" >&2
