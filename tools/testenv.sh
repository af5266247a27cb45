# tools/testenv.sh — sourced by tests/run and tools/demo: re-run the caller inside the test
# environment (tools/testroot) unless it is already there, and build lowlat there.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# testenv_enter SCRIPT ARGS...: exec SCRIPT through tools/testroot unless already inside.
testenv_enter() {
	if [ "${LOWLAT_TESTENV:-}" != 1 ]; then
		exec "$repo/tools/testroot" -- "$@"
	fi
}

# One build directory per environment, since a build configured in the root has the root's paths,
# one per compiler named in CC, and one per variant (LOWLAT_VARIANT, set by tests/run: address =
# ASan+UBSan, thread = TSan, i386 = the 32-bit layer, cross-built).
testenv_build_dir() {
	local compiler=${CC:-}
	echo "$repo/build-${LOWLAT_TESTENV_NAME:-test}${compiler:+-${compiler##*/}}${LOWLAT_VARIANT:+-$LOWLAT_VARIANT}"
}

# testenv_build: configure once and build, quietly unless something fails; sets $build.
testenv_build() {
	build=$(testenv_build_dir)
	local options=(-Dtests=enabled)
	case "${LOWLAT_VARIANT:-}" in
	'') ;;
	# -z nodelete keeps the layer mapped after the loader unloads it, so reports keep its symbols.
	address) options+=(-Db_sanitize=address,undefined -Db_lundef=false -Dc_link_args=-Wl,-z,nodelete) ;;
	thread) options+=(-Db_sanitize=thread -Db_lundef=false -Dc_link_args=-Wl,-z,nodelete) ;;
	i386)
		options+=(--cross-file "$repo/tools/cross/i386-linux-gnu.txt")
		# Under qemu-user where the kernel cannot run them: meson's checks and the tests too.
		testenv_can_run_i386 || options+=(--cross-file "$repo/tools/cross/i386-qemu.txt")
		;;
	*) echo "unknown variant '$LOWLAT_VARIANT' (address, thread or i386)" >&2; return 1 ;;
	esac
	if [ ! -f "$build/build.ninja" ]; then
		meson setup "$build" "$repo" "${options[@]}" >"$build.setup.log" 2>&1 || {
			cat "$build.setup.log" >&2
			return 1
		}
	fi
	ninja -C "$build" >"$build.ninja.log" 2>&1 || {
		cat "$build.ninja.log" >&2
		return 1
	}
}

# testenv_sanitizer_env: the environment for sanitized test runs. Unit tests are instrumented
# themselves; the e2e clients (vkcube, the loader, lavapipe) are not, so the runtime is preloaded
# into them only (E2E_PRELOAD, applied by tests/e2e/lib.sh), never into the shell or python.
# lavapipe is preloaded as well so the loader's dlclose() cannot unmap it: its allocations stay
# reachable and any report keeps its symbols.
testenv_sanitizer_env() {
	local lvp
	unset E2E_PRELOAD E2E_EXTRA_MANIFEST_DIRS E2E_I386_WRAPPER ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS \
		TSAN_OPTIONS
	lvp=$(sed -n 's/.*"library_path": *"\(.*\)".*/\1/p' /usr/share/vulkan/icd.d/lvp_icd*.json | head -n1)
	case "${LOWLAT_VARIANT:-}" in
	address)
		export E2E_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so):$lvp"
		export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0
		export LSAN_OPTIONS="suppressions=$repo/tests/sanitizers/lsan.supp:print_suppressions=0"
		export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
		;;
	thread)
		export E2E_PRELOAD="$(gcc -print-file-name=libtsan.so):$lvp"
		export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$repo/tests/sanitizers/tsan.supp"
		;;
	i386)
		# The 64-bit layer's manifest beside the 32-bit one, as a multilib install has them: each
		# program must get the layer of its own architecture.
		export E2E_EXTRA_MANIFEST_DIRS="$repo/build-${LOWLAT_TESTENV_NAME}/json/devenv"
		# 32-bit programs through qemu-user where the kernel cannot run them (tests/e2e/lib.sh).
		testenv_can_run_i386 || export E2E_I386_WRAPPER="qemu-i386 -L /"
		;;
	esac
}

# testenv_can_build_i386: the 32-bit cross toolchain and Vulkan development files are there.
testenv_can_build_i386() {
	command -v i686-linux-gnu-gcc >/dev/null && i686-linux-gnu-pkg-config --exists vulkan libdrm 2>/dev/null
}

# testenv_can_run_i386_somehow: natively, or under qemu-user (qemu-i386, which tools/testroot
# installs) where the kernel cannot.
testenv_can_run_i386_somehow() {
	testenv_can_run_i386 || command -v qemu-i386 >/dev/null
}

# testenv_can_run_i386: the kernel runs 32-bit x86 programs. Some VMs' kernels cannot (built
# without IA32 emulation, booted with ia32_emulation=0, or a guest mode without 32-bit segments:
# every exec then fails with "Exec format error"), so a program of the cross toolchain's is run.
# A probe that does not build says nothing of the kernel: the i386 build then reports its own error.
testenv_can_run_i386() {
	local dir rc=0
	dir=$(mktemp -d) || return 0
	printf 'int main(void) { return 0; }\n' >"$dir/probe.c"
	if i686-linux-gnu-gcc -o "$dir/probe" "$dir/probe.c" 2>/dev/null && ! "$dir/probe" 2>/dev/null; then
		rc=1
	fi
	rm -rf "$dir"
	return "$rc"
}
