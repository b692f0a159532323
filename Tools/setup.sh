#!/usr/bin/env bash
# Shared set-up for the README's two commands: makes sure liblmdb (headers, library, pkg-config
# file) and lmdb-utils are installed, installing them when this machine lets us.
# Sourced by Tools/run-demo.sh and Tools/run-tests.sh; safe to run on its own.
set -euo pipefail

say() { printf 'tabkeep setup: %s\n' "$*" >&2; }

have_lmdb() {
    pkg-config --exists lmdb 2>/dev/null && command -v mdb_stat >/dev/null 2>&1 && command -v mdb_dump >/dev/null 2>&1
}

install_lmdb() {
    local packages="liblmdb-dev lmdb-utils pkg-config libsqlite3-dev"
    case "$(uname -s)" in
    Linux)
        if ! command -v apt-get >/dev/null 2>&1; then
            say "error: liblmdb is missing and this is not a Debian-like system; install LMDB's headers, library and tools (mdb_stat, mdb_dump), then run again"
            return 1
        fi
        local sudo=""
        if [ "$(id -u)" -ne 0 ]; then
            if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
                sudo="sudo -n"
            else
                say "error: liblmdb is missing; run: sudo apt-get install -y $packages"
                return 1
            fi
        fi
        say "installing $packages with apt-get"
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages >&2
        ;;
    Darwin)
        if command -v brew >/dev/null 2>&1; then
            say "installing lmdb with Homebrew"
            brew install lmdb >&2
        else
            say "error: liblmdb is missing; install Homebrew (https://brew.sh), then run: brew install lmdb"
            return 1
        fi
        ;;
    *)
        say "error: liblmdb is missing; install LMDB for $(uname -s), then run again"
        return 1
        ;;
    esac
}

if ! command -v swift >/dev/null 2>&1; then
    say "error: the Swift toolchain (6.0 or later) is not on PATH; install it from https://swift.org/install"
    exit 1
fi
if ! have_lmdb; then
    install_lmdb || exit 1
    have_lmdb || { say "error: liblmdb still missing after the install"; exit 1; }
fi
