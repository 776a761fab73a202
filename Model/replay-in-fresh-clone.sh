#!/usr/bin/env bash
# Proves that a schedule is a function of the code and its number alone: clones this repository
# (its committed HEAD) into a temporary folder, builds kata-model there from nothing, and checks
# that each wrong implementation's first failing schedule has the number and decision code pinned
# in Model/KataModelTests/ExerciseModelTests.swift (PinnedScheduleTests), printed on the machine
# that wrote them. Run it on another machine to check that one too.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/clone"
cd "$work/clone"
KATA_MODEL=1 swift build --scratch-path .build-model --product kata-model >/dev/null
failed=0
while IFS='|' read -r exercise implementation check number code; do
    output=$(KATA_MODEL=1 .build-model/debug/kata-model check "$exercise" "$implementation" || true)
    block=$(printf '%s\n' "$output" | awk -v title="✗ $exercise $implementation, $check:" '$0 == title {on=1; next} on && /^replay:/ {exit} on')
    if printf '%s\n' "$block" | grep -qF "(schedule $number," && printf '%s\n' "$block" | grep -qF "code:$code"; then
        echo "same: $exercise $implementation \"$check\": schedule $number, code:$code"
    else
        echo "DIFFERENT: $exercise $implementation \"$check\": expected schedule $number, code:$code; got:"
        printf '%s\n' "$block" | sed -n 1,4p
        failed=1
    fi
done <<'PINS'
ThreadSafeDictionary|SubtleRace|insert once|1|0*4.1*5.
BoundedBuffer|SubtleRace|hand-off through one slot|3|1*4.220111
Deadlocks|OppositeOrder|opposite transfers|3|112200
GatesAndOnce|CheckThenAct|two openers|2|0333010*12.1*4.
CancellableWork|SubtleRace|burst from two threads|0|12112221001101
Deadlocks|TotalInTurn|total beside a transfer|1|0*6.1*5.
GatesAndOnce|Reflexes|a failed initializer, two readers|2|011100
ThrottledDownloader|LateAnswerSignals|a timeout against a late answer|1|0*24.11001*15.0*4.
ThrottledDownloader|CancelOneByOne|cancelAll against an answer|1|0*28.1*10.23*4.21*4.
PINS
exit $failed
