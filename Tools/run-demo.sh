#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs `tabkeep demo` on a store
# in the default location (override with TABKEEP_DEMO_STORE=DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/setup.sh
swift build --product tabkeep >&2
bin="$(swift build --show-bin-path)/tabkeep"
store="${TABKEEP_DEMO_STORE:-${XDG_DATA_HOME:-$HOME/.local/share}/tabkeep/demo}"
if "$bin" help demo >/dev/null 2>&1; then
    exec "$bin" demo --store "$store"
else
    exec "$bin" --version
fi
