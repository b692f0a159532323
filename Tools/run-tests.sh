#!/usr/bin/env bash
# The README's second command: installs what is missing, builds, and runs the whole test suite
# (every test target), then a smoke run of the benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/setup.sh
swift build --build-tests
swift test --skip-build
# The benchmark must keep compiling and running: tiny sizes, a few seconds, no time asserted.
swift run tabkeep-bench --smoke
