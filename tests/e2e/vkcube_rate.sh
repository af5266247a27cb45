#!/usr/bin/env bash
# vkcube_rate.sh METHOD FPS FRAMES — vkcube through lowlat at a cap, the validation layer below it
# and the bench probe above it (tests/bench/probe): the rate is measured where the app sees it.
#
# Passes when validation reported nothing, lowlat says it limits with METHOD, and the probe's
# present returns (the release of each frame; the first 30 left out: start-up) show:
# - a median interval within 0.5% of 1/FPS: the grid itself, which a stall of the machine does not
#   move;
# - a long-run mean rate within RATE_LOW..RATE_HIGH of FPS (below): a stall costs a late frame's
#   time (lowlat restarts its grid after a frame more than an interval late, by design: no
#   catch-up burst), so the mean may fall short by what the host stalls, and never run over. A
#   run that falls further short is judged without its stalled intervals (over 1.5 / FPS): at most
#   STALLED_MAX of them, and the others' rate within RATE_LOW;
# - by the wall clock, FRAMES frames took at least (FRAMES - 1) / FPS.
# The test runs once: a run outside the bounds fails.
# The bounds are sized from runs on this VM under the other sessions' load (docs/rationale.md,
# "Test bounds").
. "$(dirname "$0")/lib.sh"
require_probes_around_lowlat

method=$1 fps=$2 frames=$3
# The mean rate may fall this far below the cap, and not above it (fractions of FPS).
RATE_LOW=${E2E_RATE_LOW:-0.03}
RATE_HIGH=0.005
STALLED_MAX=0.10

# The run. Returns 0 within the bounds, 2 outside them; fails at once on a broken run.
run_once() {
	local out="$e2e_tmp/run$1.out" start end line stats
	start=$(date +%s%N)
	# run_validated fails the test on a bad exit, a wrong chain or any validation message.
	LOWLAT_FPS=$fps LOWLAT_METHOD=$method E2E_PROBE=1 run_validated "run$1" "${vkcube[@]}" --c "$frames"
	end=$(date +%s%N)

	# What lowlat says: that it limits, and how (not how well).
	line=$(grep '^lowlat: swapchain .* presents in ' "$out" | tail -n 1) || true
	[ -n "$line" ] || fail "no lowlat summary line: was the layer in the chain?"
	case $line in
	*"limiter $method at "*) ;;
	*) fail "the summary does not say 'limiter $method': the cap was not applied" ;;
	esac

	stats=$(probe_rate "run$1" --cap "$fps") || fail "could not read the probe's CSV"
	echo "run $1, the probe above lowlat: $stats"
	awk -v fps="$fps" -v frames="$frames" -v wall_ns="$((end - start))" -v low="$RATE_LOW" -v high="$RATE_HIGH" \
		-v rate="$(probe_value "$stats" fps)" -v median="$(probe_value "$stats" median_ms)" \
		-v stalled="$(probe_value "$stats" stalled)" -v steady="$(probe_value "$stats" steady_fps)" \
		-v stalled_max="$STALLED_MAX" 'BEGIN {
		err = rate / fps - 1
		median_err = median * fps / 1000 - 1
		wall = wall_ns / 1e9
		printf "rate %.3f fps for a cap of %s (%+.2f%%, bounds -%.1f%%..+%.1f%%); median interval %.3f ms (%+.2f%%); wall %.2f s\n",
		       rate, fps, err * 100, low * 100, high * 100, median, median_err * 100, wall
		if (wall < 0.98 * (frames - 1) / fps) { print "FAIL: faster than the cap by the wall clock"; exit 1 }
		if (median_err > 0.005 || median_err < -0.005) { print "outside: the median interval is off the cap"; exit 2 }
		if (err > high) { print "outside: faster than the cap"; exit 2 }
		if (err < -low) {
			printf "without the %.1f%% of intervals over 1.5 frames: %.3f fps (%+.2f%%)\n",
			       stalled * 100, steady, (steady / fps - 1) * 100
			if (stalled > stalled_max || steady / fps - 1 < -low) { print "outside: slower than the cap"; exit 2 }
		}
	}'
}

rc=0
(run_once 1) || rc=$?
[ "$rc" = 0 ] || fail "the cap: outside the bounds (above)"
