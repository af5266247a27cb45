# tools/testenv.sh — sourced by tests/run and tools/demo: re-run the caller inside the test
# environment (tools/testroot) unless it is already there, and build lowlat there.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# testenv_enter SCRIPT ARGS...: exec SCRIPT through tools/testroot unless already inside.
testenv_enter() {
	if [ "${LOWLAT_TESTENV:-}" != 1 ]; then
		exec "$repo/tools/testroot" -- "$@"
	fi
}

# One build directory per environment, since a build configured in the root has the root's paths.
build="$repo/build-${LOWLAT_TESTENV_NAME:-test}"

# testenv_build: configure once and build, quietly unless something fails.
testenv_build() {
	if [ ! -f "$build/build.ninja" ]; then
		meson setup "$build" "$repo" >"$build.setup.log" 2>&1 || {
			cat "$build.setup.log" >&2
			return 1
		}
	fi
	ninja -C "$build" >"$build.ninja.log" 2>&1 || {
		cat "$build.ninja.log" >&2
		return 1
	}
}
