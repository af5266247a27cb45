#!/usr/bin/env bash
# tests/apps/stress through lowlat, validation below: 8 threads presenting to 4 swapchains on 2
# devices, swapchains recreated at random, each device destroyed and recreated while the other's
# threads present, for SECONDS. Beyond run_validated's clean exit and silent validation (and, under
# tests/run --sanitize, silent TSan or ASan/LSan): both devices presented, swapchains and devices were
# recreated, and lowlat counted every present the app made.
#
#   stress.sh APP [SECONDS]
. "$(dirname "$0")/lib.sh"

app=$1
seconds=${2:-10}

run_validated stress "$app" "$seconds"
out=$e2e_tmp/stress.out

summary=$(grep '^stress: [0-9]* threads' "$out" | tail -n 1)
re='^stress: 8 threads, [0-9]+ s: device0 ([0-9]+) frames, device1 ([0-9]+) frames, ([0-9]+) swapchain recreates, ([0-9]+) device recreates$'
[[ $summary =~ $re ]] || fail "no summary line from the app"
frames=$((BASH_REMATCH[1] + BASH_REMATCH[2]))
[ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[2]}" -gt 0 ] || fail "a device presented nothing: $summary"
[ "${BASH_REMATCH[3]}" -ge 1 ] || fail "no swapchain was recreated: $summary"
[ "${BASH_REMATCH[4]}" -ge 1 ] || fail "no device was recreated: $summary"

presents=$(summary_presents "$out" | awk '{ n += $1 } END { print n + 0 }')
[ "$presents" = "$frames" ] || fail "lowlat counted $presents presents, the app made $frames"
echo "$summary; lowlat counted all $presents presents"
