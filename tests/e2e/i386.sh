# tests/e2e/i386.sh — sourced: running the 32-bit build's programs where the kernel cannot run
# 32-bit x86 programs itself (tools/testenv.sh sets E2E_I386_WRAPPER to qemu-user then).

# is_elf32 FILE: FILE is a 32-bit ELF program (EI_CLASS, byte 4, is 1).
is_elf32() {
	[ -f "$1" ] && [ "$(head -c 5 "$1" 2>/dev/null | tail -c 1 | od -An -tu1 | tr -d ' ')" = 1 ] &&
		[ "$(head -c 4 "$1" | tail -c 3)" = ELF ]
}

# wrapper_for PROGRAM: what runs PROGRAM here: E2E_I386_WRAPPER for a 32-bit program where that is
# set, else nothing (for a command line built around it: `$(wrapper_for "$cli") "$cli" ...`).
wrapper_for() {
	if [ -n "${E2E_I386_WRAPPER:-}" ] && is_elf32 "$(command -v "$1" || echo "$1")"; then
		echo "$E2E_I386_WRAPPER"
	fi
}
