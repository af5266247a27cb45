#!/usr/bin/env bash
# The control socket in a real client: while vkcube runs through lowlat, `lowlat ctl` (argv[1])
# finds it by its game key, gets its status and changes a setting; when vkcube exits the socket is
# gone.
. "$(dirname "$0")/lib.sh"

cli=$1
export XDG_RUNTIME_DIR=$e2e_tmp/run
mkdir -m 0700 "$XDG_RUNTIME_DIR"

ENABLE_LOWLAT_LAYER=1 client timeout 60 "${vkcube[@]}" --c "${E2E_CONTROL_FRAMES:-3000}" >"$e2e_tmp/vkcube.out" 2>&1 &
client=$!
sock=
for _ in $(seq 200); do
	sock=$(ls "$XDG_RUNTIME_DIR"/lowlat/vkcube-*.sock 2>/dev/null || true)
	[ -n "$sock" ] && break
	sleep 0.05
done
[ -n "$sock" ] || fail "no control socket appeared: $(grep lowlat: "$e2e_tmp/vkcube.out")"
# $client is timeout's pid; the socket names vkcube's.
pid=${sock##*-}
pid=${pid%.sock}
# Its command line (/proc's comm is qemu's where qemu-user runs a 32-bit vkcube).
tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'vkcube ' || fail "socket $sock does not name vkcube's pid"

status=$(client "$cli" ctl vkcube status) || fail "lowlat ctl vkcube status failed: $status"
case $status in
"ok game \"vkcube\"; fps 0, method late,"*) ;;
*) fail "unexpected status reply: $status" ;;
esac
reply=$(client "$cli" ctl "$pid" fps 30) || fail "lowlat ctl $pid fps 30 failed: $reply"
[ "$reply" = "ok fps 30" ] || fail "unexpected reply: $reply"
reply=$(client "$cli" ctl vkcube status)
case $reply in *"fps 30,"*) ;; *) fail "fps 30 did not stick: $reply" ;; esac
rc=0
reply=$(client "$cli" ctl vkcube fps fast) || rc=$?
[ "$rc" = 1 ] && [ "$reply" = 'error: fps fast is not a number, "refresh", "refresh/N" or "refresh-N"; using 30' ] ||
	fail "a bad value got exit status $rc and reply: $reply"

# The cap set over the socket applies to the running game: put it back to off so vkcube's 3000
# frames end well inside the test's time.
reply=$(client "$cli" ctl vkcube fps 0)
[ "$reply" = "ok fps 0" ] || fail "unexpected reply: $reply"

rc=0
wait "$client" || rc=$?
if [ "$rc" != 0 ]; then
	show_sanitizer_report "$e2e_tmp/vkcube.out"
	fail "vkcube exited with status $rc: $(tail -n 5 "$e2e_tmp/vkcube.out")"
fi
[ ! -e "$sock" ] || fail "the socket $sock is still there after vkcube exited"
echo "control socket: found by game key and pid, status, fps set, bad value refused, removed at exit"
