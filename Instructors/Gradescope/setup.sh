#!/usr/bin/env bash
# Concurrency Kata autograder for Gradescope: the setup.sh of the zip.
#
# What it is for: Gradescope runs it once, as root, when it builds the autograder's Docker image
# (Ubuntu; 22.04 is Gradescope's default base image). It installs the Swift toolchain the course
# needs (SWIFT_VERSION below, the README's "Swift 6.2 or later") with swiftly, following
# swift.org's Linux instructions (swift.org/install/linux, swiftly's "Install swiftly
# automatically"), then builds the course once so that each submission rebuilds only its own
# exercises.
#
# How to use it: do not run it yourself; make-zip.sh puts it at the root of the zip you upload
# ("Configure Autograder" on Gradescope, base image Ubuntu 22.04 or later). Give the assignment an
# autograder timeout of at least 20 minutes (see Instructors/README.md).
#
# UNTESTED on Gradescope: the machine it was written on has no network access to swift.org. The
# steps are swift.org's documented ones; the rest (run_autograder --prepare) was run here.
set -euo pipefail

SWIFT_VERSION="${SWIFT_VERSION:-6.3}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

export DEBIAN_FRONTEND=noninteractive
apt-get update
# curl, certificates and gpg for swiftly's downloads and their signatures; python3 runs
# run_autograder.
apt-get install -y --no-install-recommends ca-certificates curl gnupg2 python3 tar gzip

# swiftly into /opt/swiftly, its links (swift, swiftc…) into /usr/local/bin, on every PATH.
export SWIFTLY_HOME_DIR=/opt/swiftly
export SWIFTLY_BIN_DIR=/usr/local/bin
mkdir -p "$SWIFTLY_HOME_DIR"
cd "$(mktemp -d)"
curl -fsSLO "https://download.swift.org/swiftly/linux/swiftly-$(uname -m).tar.gz"
tar -zxf "swiftly-$(uname -m).tar.gz"
./swiftly init --assume-yes --skip-install --quiet-shell-followup --no-modify-profile
. "$SWIFTLY_HOME_DIR/env.sh"
hash -r
# The toolchain, made the default; its system packages (libcurl, libxml2, …) come as a script.
swiftly install "$SWIFT_VERSION" --use --assume-yes --post-install-file=post-install.sh
if [ -f post-install.sh ]; then
    bash post-install.sh
fi
swift --version

# The clean copy of the course that submissions are graded in, built once.
python3 "$HERE/run_autograder" --prepare
