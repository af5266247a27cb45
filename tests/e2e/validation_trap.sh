#!/usr/bin/env bash
# The harness's own check: a client that makes validation errors on purpose (vkcube --force_errors)
# must fail run_validated. Without this a broken validation setup would make every test pass.
. "$(dirname "$0")/lib.sh"

if (run_validated forced vkcube --c 20 --force_errors) 2>"$e2e_tmp/trap.err"; then
	fail "run_validated accepted a run with deliberate validation errors"
fi
grep -q 'validation layer reported' "$e2e_tmp/trap.err" ||
	fail "run_validated failed for another reason: $(tail -n 3 "$e2e_tmp/trap.err")"
echo "validation trap: deliberate errors were caught"
