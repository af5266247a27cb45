#!/usr/bin/env bash
# `lowlat ctl` as a key binding runs it, with two games at once (two vkcubes through lowlat): without
# a game named it goes to the game in the foreground, the one whose X11 window has the focus
# (x_active stands in for the window manager: the root's _NET_ACTIVE_WINDOW, the window's
# _NET_WM_PID); with no such window, to the game that presented most recently; with --all, to
# every game. toggle turns the foreground game's cap off and back; `lowlat status --once` lists both
# games with their caps. Which game a command reached is read back from each game's socket.
#
#   control_keys.sh LOWLAT_CLI X_ACTIVE
. "$(dirname "$0")/lib.sh"

cli=$1 x_active=$2
export XDG_RUNTIME_DIR=$e2e_tmp/run
mkdir -m 0700 "$XDG_RUNTIME_DIR"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$e2e_tmp"
}
trap cleanup EXIT

# A presents once a second, B 30 times: B is nearly always the one that presented last.
ENABLE_LOWLAT_LAYER=1 LOWLAT_FPS=1 client timeout 60 vkcube --c 100000 >"$e2e_tmp/a.out" 2>&1 &
pids+=($!)
for _ in $(seq 200); do [ -n "$(ls "$XDG_RUNTIME_DIR"/lowlat/ 2>/dev/null)" ] && break; sleep 0.05; done
a=$(ls "$XDG_RUNTIME_DIR"/lowlat/ | sed -n 's/^vkcube-\([0-9]*\)\.sock$/\1/p')
[ -n "$a" ] || fail "the first vkcube opened no control socket: $(cat "$e2e_tmp/a.out")"
ENABLE_LOWLAT_LAYER=1 LOWLAT_FPS=30 client timeout 60 vkcube --c 100000 >"$e2e_tmp/b.out" 2>&1 &
pids+=($!)
b=
for _ in $(seq 200); do
	b=$(ls "$XDG_RUNTIME_DIR"/lowlat/ | sed -n 's/^vkcube-\([0-9]*\)\.sock$/\1/p' | grep -vx "$a" || true)
	[ -n "$b" ] && break
	sleep 0.05
done
[ -n "$b" ] || fail "the second vkcube opened no control socket: $(cat "$e2e_tmp/b.out")"

# fps_of PID: the fps its config is at now, as its socket says.
fps_of() { "$cli" ctl "$1" status | sed -n 's/.*; fps \([^,]*\),.*/\1/p'; }

# The focused window is B's.
# A coproc's NAME_PID is unset once bash has reaped it: keep the pid for the wait below.
coproc WM { "$x_active" "$b"; }
wm_pid=$WM_PID
read -r ready <&"${WM[0]}" || fail "x_active did not start"
[ "$ready" = ready ] || fail "x_active said $ready"
reply=$("$cli" ctl fps 45 2>"$e2e_tmp/why") || fail "lowlat ctl fps 45 failed: $reply $(cat "$e2e_tmp/why")"
[ "$reply" = "ok fps 45" ] || fail "unexpected reply: $reply"
grep -qF "lowlat ctl: to vkcube (pid $b): its X11 window has the focus" "$e2e_tmp/why" ||
	fail "not sent to the focused window's game: $(cat "$e2e_tmp/why")"
[ "$(fps_of "$b")" = 45 ] && [ "$(fps_of "$a")" = 1 ] || fail "fps 45 reached A ($(fps_of "$a")) / B ($(fps_of "$b"))"
[ "$("$cli" ctl toggle 2>/dev/null)" = "ok fps 0" ] && [ "$(fps_of "$b")" = 0 ] || fail "toggle did not turn B's cap off"
[ "$("$cli" ctl toggle 2>/dev/null)" = "ok fps 45" ] && [ "$(fps_of "$b")" = 45 ] || fail "toggle did not bring B's 45 back"

# Focus on A: the same command goes there.
exec {WM[1]}>&-
wait "$wm_pid" 2>/dev/null || true
coproc WM2 { "$x_active" "$a"; }
wm2_pid=$WM2_PID
read -r ready <&"${WM2[0]}" || fail "x_active did not start"
"$cli" ctl cycle 5,10 >/dev/null 2>&1 || fail "lowlat ctl cycle 5,10 failed"
[ "$(fps_of "$a")" = 5 ] && [ "$(fps_of "$b")" = 45 ] || fail "cycle did not reach the focused A: A $(fps_of "$a"), B $(fps_of "$b")"
"$cli" ctl fps 1 >/dev/null 2>&1
exec {WM2[1]}>&-
wait "$wm2_pid" 2>/dev/null || true

# No focused window (its window is gone): the game that presented last, B, in at least 2 of 3 tries
# (A presents once a second, so it is the last one in about 1 of 60).
hits=0
for i in 1 2 3; do
	"$cli" ctl fps "2$i" 2>"$e2e_tmp/why" >/dev/null || fail "lowlat ctl fps 2$i failed: $(cat "$e2e_tmp/why")"
	[ "$(fps_of "$b")" = "2$i" ] && grep -qF "(pid $b): no game's X11 window has the focus; it presented most recently" "$e2e_tmp/why" &&
		hits=$((hits + 1))
done
[ "$hits" -ge 2 ] || fail "without a focused window only $hits of 3 commands reached B, which presents 30 times as often: $(cat "$e2e_tmp/why")"

# --all: both, each reply named.
out=$("$cli" ctl --all fps 40) || fail "lowlat ctl --all fps 40 failed: $out"
[ "$(sort <<<"$out")" = "$(printf 'vkcube %s: ok fps 40\nvkcube %s: ok fps 40\n' "$a" "$b" | sort)" ] || fail "--all replied: $out"
[ "$(fps_of "$a")" = 40 ] && [ "$(fps_of "$b")" = 40 ] || fail "--all did not reach both games"

# A swapchain takes a new cap at its next present, and `status` counts its frames over half a
# second: both are running at 40 after a second and a half.
sleep 1.5
status=$("$cli" status --once)
echo "$status"
for p in "$a" "$b"; do
	grep -Eq "^vkcube +$p +500x500 +40 +cpu +[1-9][0-9.]* +-$" <<<"$status" ||
		fail "lowlat status does not list vkcube $p at cap 40 on \"cpu\", presenting, no latency measured"
done
echo "control keys: to the focused window's game, else the latest presenter, --all to both; toggle, cycle, status"
