#!/usr/bin/env bash
# vkcube_rate.sh METHOD FPS FRAMES — vkcube through lowlat at a cap, the validation layer below it.
#
# Passes when the long-run mean rate is within 2% of the cap and validation reported nothing.
# A behaviour check with a loose bound, not a benchmark.
#
# The rate comes from lowlat's summary line: FRAMES presents over the time between the first and
# last return of vkQueuePresentKHR to vkcube, on CLOCK_MONOTONIC. Those are clock reads at the
# app's boundary, not the pacer's arithmetic, and they exclude vkcube's start-up and teardown, which
# on lavapipe with validation take a noisy fraction of a second and would swamp a 2% bound on wall
# time. Wall time is still checked as an outside witness that the app really was slowed: FRAMES
# frames cannot take less than (FRAMES - 1) / FPS.
#
# Stalls: a frame more than an interval late re-anchors the grid (by design: no catch-up burst), and
# that stall's time is lost to the rate; the summary line reports the time lost. On this shared
# 2-core machine other sessions stall vkcube for tens of ms now and then (load averages of 5-9 were
# seen), so:
# - every run must also hold the cap within 2% once the time lost to stalls is taken out: that
#   checks the grid itself, whatever the machine does;
# - a run that misses the plain bound *with* re-anchors is retried, up to 3 runs, each printed;
# - a miss with no re-anchor, or a rate above the cap, fails at once, as does any validation message;
# - if all 3 runs lost more than 2% to stalls, the test is skipped (exit 77) with that reason, not
#   passed: the plain bound could not be judged on a machine that busy.
#
# Exit 77 = skipped (see above).
. "$(dirname "$0")/lib.sh"

method=$1 fps=$2 frames=$3
attempts=3

skip() {
	echo "SKIP: $*"
	exit 77
}

# One run. Returns 0 when within the bound, 2 when it missed after stalls (worth another run);
# anything else fails the test.
run_once() {
	local out="$e2e_tmp/run$1.out" start end line
	start=$(date +%s%N)
	# run_validated fails the test on a bad exit, a wrong chain or any validation message.
	LOWLAT_FPS=$fps LOWLAT_METHOD=$method run_validated "run$1" vkcube --c "$frames"
	end=$(date +%s%N)

	# lowlat: swapchain 500x500 FIFO, 3 images: 600 presents in 9.983 s (60.02 fps), 0 failed; limiter late at 60.000 fps, 0 re-anchors (0.0 ms lost), 0 late releases (0.0 ms)
	line=$(grep '^lowlat: swapchain .* presents in ' "$out" | tail -n 1) || true
	[ -n "$line" ] || fail "no lowlat summary line: was the layer in the chain?"
	echo "$line"
	case $line in
	*"limiter $method at "*) ;;
	*) fail "the summary does not say 'limiter $method': the cap was not applied" ;;
	esac

	echo "$line" | awk -v fps="$fps" -v frames="$frames" -v wall_ns="$((end - start))" '
	{
		for (i = 1; i <= NF; i++) {
			if ($i == "presents" && $(i + 1) == "in") { presents = $(i - 1); seconds = $(i + 2) }
			if ($i == "re-anchors") { reanchors = $(i - 1); lost_ms = substr($(i + 1), 2) }
			# Releases lowlat woke late for: the grid goes on from them, their time is lost too.
			if ($i == "late" && $(i + 1) == "releases") { late = $(i - 1); late_ms = substr($(i + 2), 2) }
		}
		printf "lowlat lost %.1f ms to %d re-anchors and %.1f ms to %d late releases\n", lost_ms, reanchors, late_ms, late
		reanchors += late; lost_ms += late_ms
		if (presents != frames) { printf "FAIL: %d presents, expected %d\n", presents, frames; exit 1 }
		rate = (presents - 1) / seconds
		err = rate / fps - 1
		paced = (presents - 1) / (seconds - lost_ms / 1000)
		paced_err = paced / fps - 1
		wall = wall_ns / 1e9
		printf "rate %.3f fps for a cap of %s (%+.2f%%); %d re-anchors and late releases lost %.1f ms, without them %.3f fps (%+.2f%%); wall %.2f s\n",
		       rate, fps, err * 100, reanchors, lost_ms, paced, paced_err * 100, wall
		if (wall < 0.98 * (frames - 1) / fps) { print "FAIL: faster than the cap by the wall clock"; exit 1 }
		if (err > 0.02) { print "FAIL: faster than the cap"; exit 1 }
		if (paced_err > 0.02 || paced_err < -0.02) { print "FAIL: off the cap even without the stalls"; exit 1 }
		if (err < -0.02 && reanchors > 0) { print "slower than the cap after stalls"; exit 2 }
		if (err < -0.02) { print "FAIL: slower than the cap without any stall"; exit 1 }
	}'
}

n=1
while :; do
	echo "run $n of at most $attempts:"
	rc=0
	(run_once "$n") || rc=$?
	[ "$rc" = 0 ] && exit 0
	[ "$rc" = 2 ] || fail "rate check"
	[ "$n" -lt "$attempts" ] || skip "the machine is overloaded: $attempts runs each lost more than 2% to stalls (each held the cap without them)"
	n=$((n + 1))
done
