#!/usr/bin/env bash
# precision.sh [FPS [FRAMES]] — how precisely lowlat paces, measured from outside: vkcube at a cap of
# FPS (default 60), late method, the validation layer below lowlat and the bench probe above it
# (tests/bench/probe) and its twin right under lowlat. The frame interval is the time between two
# present returns the upper probe saw: when lowlat released the app to start its next frame. It is
# judged between frames lowlat held (the driver's present returned, by the lower probe, at least
# 50 us before lowlat's): a frame the app or the driver made late is released at once, and its
# lateness is the machine's, not lowlat's pacing. Passes when, over those intervals after the first
# 30 frames (at least half of all), the 99th percentile of |interval - 1/FPS| is at most
# P99_BOUND_US and the median interval is within MEDIAN_BOUND_US of 1/FPS: the grid itself, which
# the machine's late wake-ups move by no more than the catch-up steps.
#
# The bound is what this shared 2-core VM meets reliably under the other sessions' load, not the
# goal: the tight goal (a fifth of MangoHud's error, 100 us) is tools/bench-limiter's, a benchmark,
# since the host preempts this VM's CPUs for milliseconds now and then. The distribution behind the
# bound is in docs/rationale.md ("Test bounds"). The test runs once: a run over it
# fails (the precise release is judged in virtual time, tests/sim).
. "$(dirname "$0")/lib.sh"
require_probes_around_lowlat

fps=${1:-60} frames=${2:-600}
P99_BOUND_US=${E2E_P99_BOUND_US:-6000}
# lowlat catches up a late release in 50 us steps: a run with many late wake-ups has more than half
# its intervals 50 us short (seen: a median 47 us short).
MEDIAN_BOUND_US=100

LOWLAT_FPS=$fps LOWLAT_METHOD=late E2E_PROBE=1 run_validated run vkcube --c "$frames"
grep -q '^lowlat: swapchain .* limiter late at ' "$e2e_tmp/run.out" ||
	fail "lowlat does not say it limits: $(grep '^lowlat: swapchain' "$e2e_tmp/run.out")"
stats=$(probe_rate run --cap "$fps" --below "$e2e_tmp/run.below.csv") ||
	fail "could not read the probes' CSVs"
p99=$(probe_value "$stats" p99_err_us) held=$(probe_value "$stats" held_share)
median=$(probe_value "$stats" median_ms)
echo "the probes around lowlat: $stats (bounds: p99_err_us <= $P99_BOUND_US," \
	"median within $MEDIAN_BOUND_US us of $(awk -v f="$fps" 'BEGIN { printf "%.3f", 1000 / f }') ms)"
awk -v p99="${p99:-inf}" -v held="$held" -v median="${median:-0}" -v fps="$fps" -v bound="$P99_BOUND_US" \
	-v mbound="$MEDIAN_BOUND_US" 'BEGIN { m = (median - 1000 / fps) * 1000; if (m < 0) m = -m
	exit !(held >= 0.5 && p99 <= bound && m <= mbound) }' ||
	fail "pacing precision: outside the bounds (above)"
