#!/usr/bin/env bash
# Converts the documentation of every public target with DocC (shipped with the toolchain) and
# fails on any warning: broken or ambiguous links, missing symbols. Run by Tools/run-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v docc >/dev/null 2>&1; then
    echo "docs: skipped, this toolchain has no docc" >&2
    exit 0
fi
swift package dump-symbol-graph --minimum-access-level public >/dev/null
graphs=$(find .build -maxdepth 3 -type d -name symbolgraph | head -1)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
for target in LMDBKit TabKeep TabKeepSync TabKeepS3 TabKeepDump TabKeepUIKit; do
    [ -d "Sources/$target" ] || continue
    mkdir -p "$scratch/$target/graphs"
    cp "$graphs/$target".symbols.json "$graphs/$target"@*.symbols.json "$scratch/$target/graphs/" 2>/dev/null || true
    catalog=()
    [ -d "Sources/$target/Documentation.docc" ] && catalog=("Sources/$target/Documentation.docc")
    docc convert "${catalog[@]}" --additional-symbol-graph-dir "$scratch/$target/graphs" --analyze \
        --output-path "$scratch/$target/out" --fallback-display-name "$target" \
        --fallback-bundle-identifier "org.tabkeep.$target" >"$scratch/$target.log" 2>&1 || true
    warnings=$(grep -cE '^(warning|error):' "$scratch/$target.log" || true)
    echo "docs: $target, $warnings warnings"
    if [ "$warnings" != 0 ]; then
        grep -E -A3 '^(warning|error):' "$scratch/$target.log" >&2
        failed=1
    fi
done
exit $failed
