#!/usr/bin/env bash
# tests/apps/robust through lowlat without validation (alloc makes thousands of instances, memory
# 100,000 presents: validation would multiply their time for nothing it checks here).
#
#   robust.sh alloc APP            allocation failures: robust fails, one per run, each of lowlat's
#                                  allocations through the app's allocators and every other one (a
#                                  sample of them under tests/run --sanitize). Each failure must reach
#                                  the app as OUT_OF_HOST_MEMORY (or, for lowlat's swapchain record,
#                                  leave the swapchain working), and lowlat must free all it
#                                  allocated, through the allocator it came from.
#   robust.sh memory APP PRESENTS  lowlat's memory over a long run: lowlat holds as many blocks of
#                                  the app's allocators, and of malloc, after PRESENTS presents as
#                                  after the warm-up; the process's heap and RSS grew by less than
#                                  a leak of a block every few presents would make them (robust.c,
#                                  run_memory, says why each bound); and lowlat counted every present.
# Under tests/run --sanitize=address LeakSanitizer checks the whole process at exit as well.
. "$(dirname "$0")/../e2e/lib.sh"

mode=$1 app=$2
out=$e2e_tmp/robust.out
# Every allocation of a run fails once in the plain build (some 6,000 runs, ~20 s on lavapipe); the
# sanitizer builds, several times slower, fail lowlat's and a sample of the rest.
# (tests/run exports LOWLAT_VARIANT: address or thread for the sanitizer builds.)
case "${LOWLAT_VARIANT:-}" in address | thread) sanitized=1 ;; *) sanitized= ;; esac
if [ "$mode" = alloc ] && [ -z "$sanitized" ]; then
	export ROBUST_ALLOC_EVERY=1
fi
# Mesa's device_select layer (an implicit layer below lowlat) crashes in vkEnumeratePhysicalDevices
# when certain allocations fail: a strcmp on what it did not get, seen with Mesa 22.3 on Debian 12
# and Mesa 26.2's i386 build (gdb: libVkLayer_MESA_device_select.so under vkEnumeratePhysicalDevices).
# The allocation test takes it out of the chain with Mesa's own switch; the other modes keep it.
if [ "$mode" = alloc ]; then
	export NODEVICE_SELECT=1
fi
rc=0
ENABLE_LOWLAT_LAYER=1 LOWLAT_VERBOSE=1 client timeout "${E2E_CLIENT_TIMEOUT:-240}" "$app" "$mode" "${@:3}" \
	>"$out" 2>&1 || rc=$?
grep -v '^robust: alloc [0-9]*: .* leaked a block' "$out" | tail -n 15 >&2
grep -A 40 -E '^(==[0-9]+==ERROR: |WARNING: ThreadSanitizer|.*runtime error: )' "$out" | head -n 80 >&2 || true
[ "$rc" != 124 ] || fail "robust $mode hung"
[ "$rc" = 0 ] || fail "robust $mode exited with status $rc"

case $mode in
alloc)
	summary=$(grep '^robust: alloc: ' "$out") || fail "no summary line from robust alloc"
	re='([0-9]+) of them lowlat.s \(instance ([0-9]+), device ([0-9]+)'
	[[ $summary =~ $re ]] || fail "unexpected summary: $summary"
	# lowlat keeps one record per instance and per device, through their allocators.
	[ "${BASH_REMATCH[2]}" -ge 1 ] && [ "${BASH_REMATCH[3]}" -ge 1 ] ||
		fail "lowlat allocated no instance or no device record through the app's allocator: $summary"
	;;
memory)
	summary=$(grep '^robust: memory: ' "$out") || fail "no summary lines from robust memory"
	presents=$(summary_presents "$out" | awk '{ n += $1 } END { print n + 0 }')
	[ "$presents" -ge "$3" ] || fail "lowlat counted $presents presents, the app made more than $3"
	;;
*) fail "unknown mode $mode" ;;
esac
echo "$summary"
