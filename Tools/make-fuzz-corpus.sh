#!/usr/bin/env bash
# Regenerates the fuzz seed corpus (Tests/Fuzz/Corpus/<target>/seed-N) in the current document,
# dump and sync message formats, from a scratch store, with `tabkeep-fuzz make-corpus`. Run it
# after any format change and commit the result: FuzzTests fails while a seed is refused.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product tabkeep-fuzz
"$(swift build --show-bin-path)/tabkeep-fuzz" make-corpus Tests/Fuzz/Corpus
