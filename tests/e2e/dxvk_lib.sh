# shellcheck shell=bash
# tests/e2e/dxvk_lib.sh — shared by the real-DXVK tests (dxvk_native.sh, dxvk_wine.sh); sourced
# after lib.sh.
#
# Both run tests/apps/d3d11/d3d11_frames.cpp, which writes its own frame-start times, so a cap can
# be checked where the game sees it (its loop) and not only where lowlat waits (DXVK's submit
# thread, which calls vkQueuePresentKHR).

# skip MESSAGE: meson's exit status for a skipped test, for a missing environment only and before
# the program runs; the message says what to install.
skip() {
	echo "SKIP: $*"
	exit 77
}

# DXVK logs to stderr only (not to files beside the program), and only what is worth reading.
export DXVK_LOG_LEVEL=warn DXVK_LOG_PATH=none
# Nor may the caller's DXVK settings (its own frame cap, its frame latency) decide what is measured.
unset DXVK_CONFIG DXVK_CONFIG_FILE DXVK_FRAME_RATE

# Under tests/run --sanitize=thread: DXVK is not built with TSan, so TSan sees its threads only
# through the calls it intercepts (pthread_mutex_lock, free) and not through DXVK's own atomics and
# futexes that order them; it then reported DXVK's mutexes as a lock-order inversion (every run)
# and as locked after being freed (2 runs in ~60), all frames in libdxvk_d3d11.so. Reports from
# such interceptor calls are dropped for DXVK's modules only, instead of a suppression by module
# name, which would also hide a race of lowlat's own hooks whenever DXVK is in their stack.
[ -z "${TSAN_OPTIONS:-}" ] || export TSAN_OPTIONS="$TSAN_OPTIONS:ignore_noninstrumented_modules=1"

dxvk_frames=300 # 5 s at a 60 fps cap

# frame_start_fps FILE: the mean rate of the program's own frame starts, without the first 10
# frames. DXVK lets the game thread run up to its frame latency (3 by default) ahead of the
# presents before it blocks, and the first frames also create pipelines and the swapchain; a
# mean over all frames would count those as fast or slow frames the cap had no say in.
frame_start_fps() {
	awk 'NR > 10 { if (!first) first = $1; last = $1; n++ }
		END { if (n > 1 && last > first) printf "%.2f\n", (n - 1) / ((last - first) * 1e-9); else print 0 }' "$1"
}

# frame_start_interval_ms FILE: the median time between the program's own frame starts, without
# the first 10 frames: the cadence the limiter set. A stall of the shared machine lengthens a few
# intervals, and the mean rate with them, but not the median.
frame_start_interval_ms() {
	python3 - "$1" <<'PY'
import statistics, sys
starts = [int(line) for line in open(sys.argv[1])][10:]
gaps = [(b - a) / 1e6 for a, b in zip(starts, starts[1:])]
print(f"{statistics.median(gaps):.3f}" if gaps else 0)
PY
}

# frame_start_steady FILE CAP: "STALLED FPS": the share of the intervals between frame starts (the
# first 10 frames left out) over 1.5 / CAP, a stall, and the rate over the others.
frame_start_steady() {
	python3 - "$1" "$2" <<'PY'
import sys
starts = [int(line) for line in open(sys.argv[1])][10:]
gaps = [b - a for a, b in zip(starts, starts[1:])]
steady = [g for g in gaps if g <= 1.5e9 / float(sys.argv[2])]
print(f"{1 - len(steady) / len(gaps):.4f} {len(steady) / (sum(steady) / 1e9):.2f}" if steady else "1 0")
PY
}

# check_release_to_start NAME MAX_MS: each frame of $e2e_tmp/NAME.starts (the program's own frame
# starts) against the release lowlat logged for it in $e2e_tmp/NAME.logs (the log's row for present
# k carries the wait, at the app's latency sleep or input call, before frame k): none may start
# before its release, and the median start may follow it by at most MAX_MS. The first 10 frames are
# left out, as in frame_start_fps.
check_release_to_start() {
	local name=$1 max_ms=$2
	python3 - "$e2e_tmp/$name.starts" "$e2e_tmp/$name.logs" "$max_ms" "$name" <<'PY' ||
import csv, glob, statistics, sys
starts = [int(line) for line in open(sys.argv[1])]
logs = glob.glob(sys.argv[2] + "/*.csv")
rows = list(csv.reader(line for line in open(logs[0]) if not line.startswith("#")))
col = rows[0].index("wait_end_ns")
ends = [int(row[col]) for row in rows[1:]]
assert len(ends) == len(starts), f"{len(ends)} presents logged for {len(starts)} frames"
gaps = [(starts[i] - ends[i]) / 1e6 for i in range(10, len(starts))]
med = statistics.median(gaps)
print(f"{sys.argv[4]}: a frame starts {med:.3f} ms (median; min {min(gaps):.3f}, max {max(gaps):.3f}) after lowlat's release")
if min(gaps) < 0:
    sys.exit("a frame started before lowlat released it")
if med > float(sys.argv[3]):
    sys.exit(f"median {med:.3f} ms above {sys.argv[3]} ms")
PY
		fail "$name: frames do not start at lowlat's release"
}

# check_dxvk_run NAME APP: what every real-DXVK run must show in $e2e_tmp/NAME.out (after
# run_validated: clean exit, validation silent, validation below lowlat):
#  - the program drew all its frames and said so;
#  - lowlat saw the instance DXVK made for the program, named as DXVK names it (APP: the
#    executable's file name) with engine "DXVK" — the key a per-game setting will use;
#  - lowlat's config took the game key from that name: `games/APP.json` is the program's file
#    (under Wine, the .exe name, not Wine's loader and not Wine's own explorer.exe, whose
#    instance lowlat sees too);
#  - lowlat's summaries (one per Vulkan swapchain DXVK made) count every present the program made.
check_dxvk_run() {
	local name=$1 app=$2
	local out="$e2e_tmp/$name.out" summary presents
	summary=$(grep '^d3d11_frames: ' "$out" | tail -n 1)
	[[ $summary =~ ^d3d11_frames:\ $dxvk_frames\ frames\ in ]] ||
		fail "$name: no summary line for $dxvk_frames frames from the program"
	grep -qF "lowlat: active in \"$app\" (engine \"DXVK\")" "$out" ||
		fail "$name: lowlat did not see app \"$app\" with engine \"DXVK\"; it saw: $(grep '^lowlat: active in' "$out" | tr '\n' ' ')"
	grep -F "lowlat: config: game \"$app\" from " "$out" | grep -qF 'DXVK/vkd3d' ||
		fail "$name: lowlat's game key is not \"$app\" from DXVK's application name; it said: $(grep '^lowlat: config: game' "$out" | tr '\n' ' ')"
	[ "$(summary_presents "$out" | wc -l)" -ge 1 ] ||
		fail "$name: lowlat printed no swapchain summary, so its hooks never ran"
	presents=$(summary_presents "$out" | awk '{ n += $1 } END { print n + 0 }')
	[ "$presents" = "$dxvk_frames" ] ||
		fail "$name: lowlat counted $presents presents, the program presented $dxvk_frames frames"
	echo "$name: $summary"
}

# check_dxvk_cap NAME CAP: the cap held, seen from the game thread: the program's own frame starts
# (its clock, outside lowlat), after the first 10. Returns 0 when it held, 2 when not (worth
# another run); fails at once where lowlat does not say its limiter is on. This is a shared 2-core
# machine where other sessions stall a run for tens of ms now and then, and lowlat restarts its
# grid after a frame that is more than an interval late (no catch-up burst), so a stall's time is
# lost to the mean rate, by design. So:
#  - the median interval between frame starts must be within 2% of 1/CAP: the grid itself, which a
#    stall does not move (with DXVK's own latency sleep releasing the game thread, the median was
#    up to 1.6% long under load);
#  - the mean rate of frame starts must be within -DXVK_RATE_LOW..+3% of CAP (DXVK lets the game
#    thread run its frame latency ahead, so a few frames' starts bunch after a stall); a run further
#    short is judged without its intervals over 1.5 frames, at most 10% of them, the rest within
#    DXVK_RATE_LOW (as tests/vdisplay/e2e_engines.py judges its runs).
# The bounds are sized from runs on this VM (docs/rationale.md, "Test bounds").
check_dxvk_cap() {
	local name=$1 cap=$2
	local line game interval steady
	line=$(grep '^lowlat: swapchain .* presents in ' "$e2e_tmp/$name.out" | tail -n 1)
	case $line in
	*"limiter "*" at "*) ;;
	*) fail "$name: lowlat's summary does not say the limiter was on with LOWLAT_FPS=$cap: $line" ;;
	esac
	game=$(frame_start_fps "$e2e_tmp/$name.starts")
	interval=$(frame_start_interval_ms "$e2e_tmp/$name.starts")
	steady=$(frame_start_steady "$e2e_tmp/$name.starts" "$cap")
	awk -v fps="$cap" -v game="$game" -v interval="$interval" -v name="$name" -v low="${DXVK_RATE_LOW:-0.03}" \
		-v stalled="${steady% *}" -v steady="${steady#* }" 'BEGIN {
		game_err = game / fps - 1
		interval_err = interval * fps / 1000 - 1
		printf "%s: the game thread ran at %.2f fps for a cap of %s (%+.2f%%, bounds -%.1f%%..+3%%), %.3f ms a frame at the median (%+.2f%%, bound 2%%)\n",
		       name, game, fps, game_err * 100, low * 100, interval, interval_err * 100
		if (interval_err > 0.02 || interval_err < -0.02) { print "outside: the median frame interval is off the cap"; exit 2 }
		if (game_err > 0.03) { print "outside: the game thread ran faster than the cap"; exit 2 }
		if (game_err < -low) {
			printf "%s: without the %.1f%% of intervals over 1.5 frames: %.2f fps (%+.2f%%)\n",
			       name, stalled * 100, steady, (steady / fps - 1) * 100
			if (stalled > 0.10 || steady / fps - 1 < -low) { print "outside: the game thread ran slower than the cap"; exit 2 }
		}
	}'
}

# late_start_ms NAME: how late the game thread starts a frame behind the lowlat wait that releases
# it, from lowlat's side: the median, over frames 10 on, of the time from the program's frame start
# to the end of that wait (lowlat's present log, LOWLAT_LOG_DIR=$e2e_tmp/NAME.logs); positive where
# the frame started before its release. Where lowlat waits in the present call (its late method,
# the default) the wait that releases frame i is the one after frame i-1's present went down; where
# the app sleeps through lowlat (DXVK_RELEASE_ROW=same: VK_NV_low_latency2) it is the sleep before
# frame i, logged in frame i's row. Both are on CLOCK_MONOTONIC (under Wine, once dxvk_wine.sh has
# mapped the program's QueryPerformanceCounter onto it), and DXVK presents once per frame, in
# order, so the i-th frame start pairs with the log's i-th present.
late_start_ms() {
	python3 - "$e2e_tmp/$1.starts" "$e2e_tmp/$1.logs" "${DXVK_RELEASE_ROW:-previous}" <<'PY'
import csv, glob, statistics, sys
starts = [int(line) for line in open(sys.argv[1])]
# One log per swapchain; DXVK recreates its swapchain once when it turns latency sleep on, so the
# logs are joined in the order of their presents.
ends = []
for log in sorted(glob.glob(sys.argv[2] + "/*.csv")):
    rows = list(csv.reader(line for line in open(log) if not line.startswith("#")))
    col, present = rows[0].index("wait_end_ns"), rows[0].index("present_ns")
    # A wait made at the app's present wait (wait point "present-wait") is written into its row
    # when that wait comes; the last presents' never are (the program stops waiting).
    ends += [(int(row[present]), int(row[col]) if row[col] else None) for row in rows[1:]]
ends = [end for _, end in sorted(ends)]
if len(ends) != len(starts):
    sys.exit(f"{len(ends)} presents logged for {len(starts)} frames")
shift = 1 if sys.argv[3] == "previous" else 0
late = [(ends[i - shift] - starts[i]) / 1e6 for i in range(10, len(starts)) if ends[i - shift] is not None]
print(f"{statistics.median(late):.2f}")
PY
}

# dxvk_before_run / dxvk_after_run: what a test must do around each run of the program
# (dxvk_wine.sh waits for the wineserver, and maps the program's clock onto CLOCK_MONOTONIC);
# nothing by default.
dxvk_before_run() { :; }
dxvk_after_run() { :; }

# check_late_start NAME: with the present log on (LOWLAT_LOG_DIR), print how late the game thread
# starts (late_start_ms); fail below DXVK_LATE_START_MIN_MS or above DXVK_LATE_START_MAX_MS.
check_late_start() {
	local ms
	[ -n "${LOWLAT_LOG_DIR:-}" ] || return 0
	ms=$(late_start_ms "$1") || fail "$1: could not pair the program's frame starts with lowlat's log"
	case $ms in
	-*) echo "$1: the game thread starts a frame ${ms#-} ms (median) after the end of lowlat's wait that releases it" ;;
	*) echo "$1: the game thread starts a frame ${ms} ms (median) before the end of lowlat's wait that releases it" ;;
	esac
	[ -z "${DXVK_LATE_START_MIN_MS:-}" ] ||
		awk -v ms="$ms" -v min="$DXVK_LATE_START_MIN_MS" 'BEGIN { exit !(ms >= min) }' ||
		fail "$1: the game thread starts a frame ${ms#-} ms after lowlat's release, more than ${DXVK_LATE_START_MIN_MS#-} ms: lowlat's wait does not release it"
	[ -z "${DXVK_LATE_START_MAX_MS:-}" ] ||
		awk -v ms="$ms" -v max="$DXVK_LATE_START_MAX_MS" 'BEGIN { exit !(ms <= max) }' ||
		fail "$1: the game thread starts a frame ${ms} ms before lowlat's wait that releases it ends, more than ${DXVK_LATE_START_MAX_MS} ms: the late wait does not reach it"
}

# dxvk_test NAME APP COMMAND...: run COMMAND FRAMES 1 STARTS_FILE through lowlat under validation
# (sync interval 1: V-Sync, the common game setting; DXVK asks for FIFO, which Xvfb does not
# throttle) and check it (check_dxvk_run). With LOWLAT_FPS set, check the cap too (check_dxvk_cap):
# a run outside its bounds fails (the test runs once).
dxvk_test() {
	local name=$1 app=$2 rc=0
	shift 2
	rm -rf "$e2e_tmp/$name.vvl" "$e2e_tmp/$name.starts" "$e2e_tmp/$name.logs"
	dxvk_before_run "$name"
	run_validated "$name" "$@" "$dxvk_frames" 1 "$e2e_tmp/$name.starts"
	dxvk_after_run "$name"
	check_dxvk_run "$name" "$app"
	[ -n "${LOWLAT_FPS:-}" ] && [ -z "${dxvk_no_cap_check:-}" ] || return 0
	check_dxvk_cap "$name" "$LOWLAT_FPS" || rc=$?
	[ "$rc" = 2 ] && fail "$name: the cap: outside the bounds (above)"
	[ "$rc" = 0 ] || fail "$name: the cap did not hold"
	check_late_start "$name"
}

# check_latency_sleep_nv NAME: in $e2e_tmp/NAME.out, lowlat provided VK_NV_low_latency2 (DXVK
# enables it only with present ids), a swapchain got the wait point "latency-sleep", and lowlat
# paced all but 10 of the program's sleeps.
check_latency_sleep_nv() {
	local name=$1 out="$e2e_tmp/$1.out" paced
	grep -qF 'lowlat: VK_NV_low_latency2 provided by lowlat' "$out" ||
		fail "$name: lowlat did not provide VK_NV_low_latency2 (did DXVK enable it?)"
	grep -q 'lowlat: swapchain [0-9x]*: wait point "latency-sleep"' "$out" ||
		fail "$name: no swapchain got the wait point \"latency-sleep\""
	paced=$(grep -o 'wait point "latency-sleep": [0-9]* sleeps, [0-9]* paced' "$out" | awk '{ n += $(NF - 1) } END { print n + 0 }')
	echo "$name: lowlat paced $paced of the program's sleeps in vkLatencySleepNV"
	[ "$paced" -ge $((dxvk_frames - 10)) ] || fail "$name: only $paced sleeps paced for $dxvk_frames frames"
}
