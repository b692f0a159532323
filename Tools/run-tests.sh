#!/usr/bin/env bash
# The README's second command: installs what is missing, builds, and runs the whole test suite
# (every test target) in both locking modes, builds the Apple manifest branch against LMDB's
# sources and runs LMDBKit's and TabKeep's tests on it, checks the documentation with DocC, runs
# the four libFuzzer targets for a bounded count, then a smoke run of the benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
source Tools/setup.sh
ensure_seaweedfs  # TabKeepS3Tests run SeaweedFS on loopback
swift build --build-tests
# The whole suite in each locking mode: lmdb (Linux's default), then per-transaction (Apple's).
echo "tests: locking mode lmdb"
TABKEEP_LOCKING=lmdb swift test --skip-build
echo "tests: locking mode per-transaction"
TABKEEP_LOCKING=per-transaction swift test --skip-build

# The Apple branch of the manifest (LMDB compiled from its C sources, as on iOS), built here
# against the local copy of the source package, with LMDBKit's and TabKeep's tests run on that
# LMDB in the Apple default mode. CI must have the copy; elsewhere it is skipped when absent.
lmdb_source=${TABKEEP_LMDB_SOURCE:-../shared/vendor/CLMDB}
if [ -f "$lmdb_source/Package.swift" ]; then
    echo "tests: Apple manifest branch, LMDB from source at $lmdb_source"
    TABKEEP_LMDB_SOURCE="$lmdb_source" swift build --build-path .build-apple --build-tests
    TABKEEP_LMDB_SOURCE="$lmdb_source" TABKEEP_LOCKING=per-transaction \
        swift test --build-path .build-apple --skip-build --filter '^(LMDBKitTests|TabKeepTests|TabKeepDumpTests)\.'
elif [ "${CI:-}" = true ]; then
    echo "tests: error: no LMDB source package at $lmdb_source for the Apple manifest branch" >&2
    exit 1
else
    echo "tests: Apple manifest branch skipped: no LMDB source package at $lmdb_source (set TABKEEP_LMDB_SOURCE)" >&2
fi

# The documentation of every public target converts with DocC without a warning.
bash Tools/check-docs.sh

# The house style's formatting (the committed .swift-format), warnings fail the run.
echo "format: swift format lint --strict -r Sources Tests Tools"
swift format lint --strict -r Sources Tests Tools

# The decoders under libFuzzer, each for a bounded number of runs from the committed corpus.
# New inputs go to a scratch directory, never into the corpus. Long runs: see Docs/Guarantees.md, "Fuzzing".
if [ "$(uname -s)" = Linux ]; then
    swift build --product tabkeep-fuzz --build-path .build-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    for target in document:200000 message:100000 dump:300 list:100000; do
        name=${target%%:*}
        mkdir -p "$scratch/$name"
        echo "libFuzzer: $name, ${target##*:} runs"
        if ! TABKEEP_FUZZ_TARGET=$name .build-fuzz/debug/tabkeep-fuzz -runs="${target##*:}" -max_len=65536 \
            -print_final_stats=1 "$scratch/$name" "Tests/Fuzz/Corpus/$name" >"$scratch/$name.log" 2>&1; then
            tail -40 "$scratch/$name.log"
            echo "libFuzzer: $name failed" >&2
            exit 1
        fi
        grep -E '^(Done|stat::number_of_executed_units)' "$scratch/$name.log"
        # Only accepted inputs reach the round-trip checks: a run that accepts none tested little.
        accepted=$(grep -E '^tabkeep-fuzz: accepted [0-9]+ of [0-9]+ inputs' "$scratch/$name.log" | tail -1)
        echo "libFuzzer: $name ${accepted#tabkeep-fuzz: }"
        case "$accepted" in
        "" | "tabkeep-fuzz: accepted 0 "*)
            echo "libFuzzer: $name accepted no input; run Tools/make-fuzz-corpus.sh" >&2
            exit 1
            ;;
        esac
    done
else
    # Apple's toolchains ship no libFuzzer runtime; the test suite's own FuzzTests still ran above.
    echo "libFuzzer runs skipped: the Swift toolchain on $(uname -s) has no libFuzzer runtime" >&2
fi

# The benchmark must keep compiling and running: tiny sizes, a few seconds, no time asserted.
swift run tabkeep-bench --smoke
