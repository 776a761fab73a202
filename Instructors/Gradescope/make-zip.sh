#!/usr/bin/env bash
# Concurrency Kata autograder for Gradescope: makes the zip you upload.
#
# What it is for: Gradescope takes an autograder as a zip with setup.sh and run_autograder at
# its root ("Autograder Specifications"). This puts those two files and a clean copy of the
# course (the commit you have checked out, by `git archive`: uncommitted changes are not in it)
# into one zip.
#
# How to use it, from anywhere inside your clone of the course:
#   bash Instructors/Gradescope/make-zip.sh [ZIP]      (default: ./concurrency-kata-gradescope.zip)
# then on Gradescope: a Programming Assignment → Configure Autograder → upload the zip.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel)"
out="$(realpath -m "${1:-concurrency-kata-gradescope.zip}")"
if [ -n "$(git -C "$root" status --porcelain -- . ':!Exercises')" ]; then
    echo "Note: your clone has uncommitted changes; the zip holds the last commit ($(git -C "$root" rev-parse --short HEAD)) only." >&2
fi
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/course"
git -C "$root" archive HEAD | tar -x -C "$stage/course"
cp "$here/setup.sh" "$here/run_autograder" "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
rm -f "$out"
# The files at the root of the zip, not a folder holding them.
(cd "$stage" && zip -qr "$out" setup.sh run_autograder course)
echo "Wrote $out: upload it on Gradescope (Configure Autograder)."
