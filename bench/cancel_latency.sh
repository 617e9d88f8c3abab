#!/usr/bin/env bash
# How fast `gatescope trace` honours Ctrl-C (SIGINT) and SIGTERM on a long input, per
# architecture: the time from the signal to the process's exit, its exit status, and whether
# anything was left at --out or beside it (issue 29: within a second at any N). The signal comes
# DELAY seconds after the start, when the forward is inside a layer's attention.
# Usage: bench/cancel_latency.sh [BUILD] [TOKENS] [DELAY...]
#   BUILD: a build folder with app/gatescope (default build/default); TOKENS: default 131072;
#   DELAY: seconds after start (default 4 12). ARCHS="gsa wall" limits the models
#   (resources/models/*). Prints one line per run, then the worst latency.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
tokens=${2:-131072}
shift $(($# > 2 ? 2 : $#))
delays=("$@")
((${#delays[@]})) || delays=(4 12)
cli=$build/app/gatescope
[[ -x $cli ]] || { echo "no $cli: build first"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
text=$work/long.txt
while (($(stat -c %s "$text" 2>/dev/null || echo 0) < tokens)); do
    cat resources/samples/forgetting.txt >>"$text"
done
truncate -s "$tokens" "$text"
worst=0 failures=0
read -ra archs <<<"${ARCHS:-$(cd resources/models && echo *)}"
for arch in "${archs[@]}"; do
    model=resources/models/$arch
    for signal in INT TERM; do
        for delay in "${delays[@]}"; do
            out=$work/$arch.h5
            "$cli" trace --model "$model" --input "$text" --out "$out" >"$work/log" 2>&1 &
            pid=$!
            sleep "$delay"
            if ! kill -0 "$pid" 2>/dev/null; then
                wait "$pid"
                echo "$arch SIG$signal at ${delay}s: finished before the signal (rc $?)"
                continue
            fi
            start=$(date +%s.%N)
            kill -s "$signal" "$pid"
            wait "$pid"
            rc=$?
            latency=$(echo "$(date +%s.%N) - $start" | bc)
            left=$(find "$work" -maxdepth 1 -name "$arch*" | wc -l)
            verdict=ok
            [[ $rc -eq 0 || $left -ne 0 ]] && { verdict=FAIL; ((failures++)); }
            (($(echo "$latency > 1" | bc))) && { verdict=SLOW; ((failures++)); }
            (($(echo "$latency > $worst" | bc))) && worst=$latency
            printf '%-12s SIG%-4s at %3ss: exit %3d after %.3f s, %d files left  %s\n' \
                "$arch" "$signal" "$delay" "$rc" "$latency" "$left" "$verdict"
        done
    done
done
printf 'worst latency %.3f s over %s tokens; %d runs slow or failed\n' "$worst" "$tokens" "$failures"
((failures == 0))
