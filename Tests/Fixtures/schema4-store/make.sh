#!/bin/bash
# Makes Tests/Fixtures/schema4-store with the schema-4 build (main at 6e7f44b): schema3-store's
# script (the same edits, syncs and erase as schema2-store's), run with that build and this directory.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T=${T:-/work/tabkeep-6e7f44b} OUT=${OUT:-$HERE} exec bash "$HERE/../schema3-store/make.sh"
