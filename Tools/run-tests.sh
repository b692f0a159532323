#!/usr/bin/env bash
# The README's second command: installs what is missing, builds, and runs the whole test suite
# (every test target).
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/setup.sh
swift build --build-tests
swift test --skip-build
