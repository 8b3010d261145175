#!/bin/sh
# Regenerates the configuration reference in docs/operations.md from the
# daemon's table of settings: the lines between the BEGIN and END markers
# become `qdcached --print-config-reference`. A test (tests/deploy) fails
# when they differ.
#
# usage: docs/update-config-reference.sh [QDCACHED]   (default: build/daemon/qdcached)
set -eu
cd "$(dirname "$0")/.."
qdcached=${1:-build/daemon/qdcached}
table=$(mktemp)
trap 'rm -f "$table" docs/operations.md.new' EXIT
"$qdcached" --print-config-reference > "$table"
awk -v table="$table" '
  /^<!-- BEGIN CONFIG REFERENCE/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- END CONFIG REFERENCE/ { skip = 0 }
  !skip { print }
' docs/operations.md > docs/operations.md.new
mv docs/operations.md.new docs/operations.md
