#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# lib.sh itself: the dumbbell and the chain of routers carry traffic end to
# end with offloads off and every namespace is gone after cleanup; the
# test harness (ALL_TESTS, TESTS, defer, TMP_DIR, the derived plan) does
# what docs/testing.md says, checked on a small script of its own.

ALL_TESTS="dumbbell_topology chain_topology harness"

. "$(dirname "$0")/lib.sh"

require_cmd ethtool ping

ping2() { ip netns exec "$1" ping -c 2 -W 2 -q "$2" >/dev/null; }

dumbbell_topology() {
	dumbbell 2 || return 1
	check "dumbbell_s1_to_d" ping2 "$S1" 10.9.0.2
	check "dumbbell_s2_to_d" ping2 "$S2" 10.9.0.2
	check "veth_offloads_off" sh -c "ip netns exec $R1 ethtool -k rb0 | grep -q 'tcp-segmentation-offload: off' &&
		ip netns exec $R1 ethtool -k rb0 | grep -q 'generic-receive-offload: off'"
	cleanup
}

chain_topology() {
	chain 3 || return 1
	check "chain3_h0_to_h1" ping2 "$H0" 10.3.0.2
	cleanup
	check "namespaces_cleaned_up" test -z "$(ip netns list)"
}

# A script in the harness's style: "a" defers two commands and passes,
# "b" fails a check, "c" fails outside its checks, "d" skips.  It writes
# what ran, in order, to $LOG, and its TMP_DIR's name to $LOG.tmp.
mini_script() {
	cat <<'SCRIPT'
ALL_TESTS="a b c d"
. "$SELFTESTS_DIR/lib.sh"
echo "$TMP_DIR" >"$LOG.tmp"
touch "$TMP_DIR/x"
a() { defer sh -c "echo a-defer-1 >>$LOG"; defer sh -c "echo a-defer-2 >>$LOG"
	echo a >>"$LOG"; check "a_one" true; check "a_two" true; }
b() { echo b >>"$LOG"; check "b_one" false; check "b_two" true; }
c() { echo c >>"$LOG"; false; }
d() { echo d >>"$LOG"; skip_test "not here"; }
tests_run
SCRIPT
}

# harness_run [TESTS [KSFT_REQUIRE_ALL]]: run the mini script; its output in $TMP_DIR/h.out,
# its exit status echoed
harness_run() {
	mini_script >"$TMP_DIR/mini.sh"
	rm -f "$TMP_DIR/h.log"
	TESTS="$1" LOG=$TMP_DIR/h.log SELFTESTS_DIR=$SELFTESTS_DIR KSFT_REQUIRE_ALL=${2:-} \
		bash "$TMP_DIR/mini.sh" >"$TMP_DIR/h.out" 2>&1
	echo $?
}

harness() {
	local rc tmp
	rc=$(harness_run "")
	log "all: exit $rc; ran $(tr '\n' ' ' <"$TMP_DIR/h.log")"
	check "harness_plan_is_the_list" grep -qx '1\.\.4' "$TMP_DIR/h.out"
	check "harness_results_per_test" test "$(grep -E '^(not )?ok [0-9]' "$TMP_DIR/h.out" | tr '\n' '|')" = \
		"ok 1 a|not ok 2 b|not ok 3 c|ok 4 d # SKIP not here|"
	check "harness_checks_nested" test "$(grep -cE '^    (not )?ok [0-9]' "$TMP_DIR/h.out")" = 4
	check "harness_failure_exits_1" test "$rc" = 1
	# the deferred commands ran when "a" returned, the last one first
	check "harness_defer_lifo_at_return" test "$(tr '\n' ' ' <"$TMP_DIR/h.log")" = "a a-defer-2 a-defer-1 b c d "
	tmp=$(cat "$TMP_DIR/h.log.tmp")
	check "harness_tmp_dir_removed" test -n "$tmp" -a ! -e "$tmp"
	rc=$(harness_run "d a")
	check "harness_tests_selects (exit $rc)" sh -c "[ $rc = 0 ] && grep -qx '1\.\.2' '$TMP_DIR/h.out' &&
		[ \"\$(tr '\n' ' ' <'$TMP_DIR/h.log')\" = 'd a a-defer-2 a-defer-1 ' ]"
	# under make check a missing prerequisite fails the test
	rc=$(harness_run "d" yes)
	check "harness_skip_fails_under_make_check (exit $rc)" sh -c "[ $rc = 1 ] &&
		grep -q '^    not ok 1 prerequisite: not here' '$TMP_DIR/h.out' && grep -qx 'not ok 1 d' '$TMP_DIR/h.out'"
	rc=$(harness_run "a nosuch")
	check "harness_unknown_test_refused (exit $rc)" sh -c "[ $rc = 1 ] && [ ! -e '$TMP_DIR/h.log' ] &&
		grep -q 'unknown test \"nosuch\"' '$TMP_DIR/h.out'"
}

tests_run
