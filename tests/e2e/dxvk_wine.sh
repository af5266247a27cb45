#!/usr/bin/env bash
# Real DXVK under Wine, the Proton path: our D3D11 program built with mingw-w64 as LowlatTest.exe,
# run by Wine with DXVK installed into the prefix (dxvk-setup), on lavapipe, through lowlat with
# validation below it. Wine's winevulkan hands DXVK's Vulkan calls to the host loader, so the
# host's implicit layers (lowlat) and VK_INSTANCE_LAYERS (validation) apply as for a native program.
#
#   dxvk_wine.sh EXE [FPS]      with FPS, run with LOWLAT_FPS=FPS and check the cap
#   dxvk_wine.sh EXE FPS latency-sleep-nv VDISPLAY_MANIFEST_DIR LOWLAT_CLI
#
# latency-sleep-nv: as dxvk_native.sh's (the `lowlat` wrapper, the virtual display below
# validation, DXVK sleeping through VK_NV_low_latency2 provided by lowlat): lowlat must say wait
# point "latency-sleep", pace nearly every sleep, and the program's own frame start must follow
# lowlat's release (the end of the sleep) within 2 ms, as natively. The program's clock is
# QueryPerformanceCounter, which Wine 10 reads from CLOCK_MONOTONIC_RAW (100 ns ticks; checked
# here: every frame start must fall inside the run on that clock); lowlat's log is on
# CLOCK_MONOTONIC, which the NTP slew moves against it by some ppm. So the offset between the two
# is read before and after the run and the starts are mapped across, interpolating (a few us of
# drift over a run, against a bound of milliseconds).
#
# Asserts: a clean exit; validation silent; lowlat saw engine "DXVK" in "LowlatTest.exe" (DXVK
# names the instance after the .exe, as it will for every Proton game) and took its game key
# (games/LowlatTest.exe.json) from that name; lowlat's summaries count all the program's presents;
# with FPS, the cap holds as dxvk_lib.sh's check_dxvk_cap defines it.
# Skips (77) without Wine, DXVK for Wine or the .exe, and in sanitizer builds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dxvk_lib.sh"

[ -z "${E2E_SKIP:-}" ] || skip "$E2E_SKIP"
# Wine maps its own preloader and reserves the low address space before anything is loaded; a
# preloaded ASan/TSan runtime cannot coexist with that. The sanitizer builds run the same layer
# under DXVK's threads in dxvk-native instead.
[ -z "${E2E_PRELOAD:-}" ] || skip "Wine cannot run with a sanitizer runtime preloaded (dxvk-native covers DXVK under sanitizers)"
command -v wine >/dev/null || skip "no wine (Debian: wine, wine64)"
if ! command -v dxvk-setup >/dev/null || [ ! -d /usr/lib/dxvk/wine64 ]; then
	skip "no DXVK for Wine (Debian: dxvk, dxvk-wine64)"
fi
wineserver=$(command -v wineserver || echo /usr/lib/x86_64-linux-gnu/wine/wineserver)
[ -x "$wineserver" ] || skip "no wineserver found"

exe=$1
cap=${2:-}
mode=${3:-}
name=dxvk-wine${cap:+-$cap}${mode:+-$mode}
# DXVK for Wine draws on Win32 windows; a DXVK_WSI_DRIVER meant for DXVK-native makes it fail.
unset DXVK_WSI_DRIVER
[ -z "$cap" ] || export LOWLAT_FPS="$cap"

# One prefix per build directory, made once: wineboot takes ~20 s the first time and the prefix is
# ~1.2 GB (Wine's PE DLLs), too much to make per test. The lock makes concurrent tests wait for the
# one that creates it; the marker is written last, so an interrupted setup is redone.
WINEPREFIX="$(cd "$(dirname "$exe")" && pwd)/wineprefix"
export WINEPREFIX WINEDEBUG=-all
exec 9>"$WINEPREFIX.lock"
flock 9
if [ ! -e "$WINEPREFIX/.lowlat-dxvk-ready" ]; then
	echo "making a Wine prefix with DXVK in $WINEPREFIX (once per build directory)"
	rm -rf "$WINEPREFIX"
	# No Mono or Gecko: nothing here needs them, and their installers would ask.
	WINEDLLOVERRIDES="mscoree,mshtml=" wine wineboot --init >"$e2e_tmp/wineboot.log" 2>&1 ||
		{ tail -n 20 "$e2e_tmp/wineboot.log" >&2; fail "wineboot failed"; }
	dxvk-setup install -y >"$e2e_tmp/dxvk-setup.log" 2>&1 ||
		{ tail -n 20 "$e2e_tmp/dxvk-setup.log" >&2; fail "dxvk-setup install failed"; }
	"$wineserver" -w
	touch "$WINEPREFIX/.lowlat-dxvk-ready"
fi
flock -u 9

# The wineserver outlives the program by a few seconds; wait for it after each run, so nothing of
# this test is left running when meson reads the result. The frame-start file's Unix path works
# as is: Wine resolves a path starting with / on the current drive, which for a Unix working
# directory is Z:, the Unix root.
dxvk_before_run() { clock_pair >"$e2e_tmp/$1.clock-before"; }
dxvk_after_run() {
	"$wineserver" -w
	[ -s "$e2e_tmp/$1.starts" ] || return 0
	clock_pair >"$e2e_tmp/$1.clock-after"
	map_starts_to_monotonic "$e2e_tmp/$1" || fail "$1: the program's frame starts could not be put on CLOCK_MONOTONIC"
}

# clock_pair: "RAW MONO", CLOCK_MONOTONIC_RAW and CLOCK_MONOTONIC at one moment (the middle of two
# MONOTONIC reads around the RAW one), in ns.
clock_pair() {
	python3 -c 'import time
a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
r = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)
b = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
print(r, (a + b) // 2)'
}

# map_starts_to_monotonic BASE: BASE.starts (QueryPerformanceCounter, ns) onto CLOCK_MONOTONIC,
# with BASE.clock-before / BASE.clock-after; the program's own file is kept as BASE.starts.qpc.
map_starts_to_monotonic() {
	mv "$1.starts" "$1.starts.qpc"
	python3 - "$1" <<'PY'
import sys
base = sys.argv[1]
raw0, mono0 = map(int, open(base + ".clock-before").read().split())
raw1, mono1 = map(int, open(base + ".clock-after").read().split())
starts = [int(line) for line in open(base + ".starts.qpc")]
outside = [s for s in starts if not raw0 <= s <= raw1]
if outside:
    sys.exit(f"{len(outside)} of {len(starts)} frame starts lie outside the run on CLOCK_MONOTONIC_RAW "
             f"(first {outside[0]}, run {raw0}..{raw1}): this Wine's QueryPerformanceCounter is another clock")
off0, off1 = mono0 - raw0, mono1 - raw1
with open(base + ".starts", "w") as out:
    for s in starts:
        out.write(f"{s + off0 + (off1 - off0) * (s - raw0) // (raw1 - raw0)}\n")
print(f"{base.rsplit('/', 1)[-1]}: frame starts mapped from CLOCK_MONOTONIC_RAW, offset {off0 / 1e6:.3f} ms, "
      f"drift {(off1 - off0) / 1e3:.1f} us over the run")
PY
}

wrapper=()
if [ -n "$cap" ]; then
	# The present log, to say how late the game thread starts behind lowlat's wait.
	export LOWLAT_LOG=1 LOWLAT_LOG_DIR="$e2e_tmp/$name.logs"
fi
if [ "$mode" = latency-sleep-nv ]; then
	export VK_ADD_LAYER_PATH="$4" E2E_LAYERS_UNDER=VK_LAYER_LOWLAT_vdisplay LOWLAT_VDISPLAY_HZ=60
	export LOWLAT_VDISPLAY_LOG="$e2e_tmp/$name.truth"
	wrapper=("$5" --)
	# As dxvk_native.sh's: the frame start follows the release (the sleep before it) by 0-2 ms.
	export DXVK_RELEASE_ROW=same DXVK_LATE_START_MIN_MS=-2 DXVK_LATE_START_MAX_MS=0.5
fi
dxvk_test "$name" "$(basename "$exe")" "${wrapper[@]}" wine "$exe"
if [ "$mode" = latency-sleep-nv ]; then
	check_latency_sleep_nv "$name"
fi
