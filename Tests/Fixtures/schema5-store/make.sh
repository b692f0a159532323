#!/bin/bash
# Makes Tests/Fixtures/schema5-store with the schema-5 build (main at 76c0dc6): schema3-store's
# script (the same edits, syncs and erase as schema2-store's), run with that build and this directory.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T=${T:-/work/tabkeep-76c0dc6} OUT=${OUT:-$HERE} exec bash "$HERE/../schema3-store/make.sh"
