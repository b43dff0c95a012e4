#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages, tc's help and the modules agree on every default and
# range.  The values come from one place (the uapi headers' *_DEFAULT and
# *_MAX constants, the modules' CONGAVOID_PARAM_* declarations), read by
# tools/mkman, which also builds the pages:
# - each module parameter: modinfo's description ends in the declared
#   range and default, the loaded module holds that default, refuses
#   LO-1 and HI+1 and takes LO and HI;
# - a fresh decbit and hbh dump the defaults;
# - every default in "tc qdisc add ... help" is the one of the man page;
# - the pages in build/man are those the sources give, and render without
#   a groff warning.

ALL_TESTS="module_params qdisc_defaults help_vs_pages pages_current"

. "$(dirname "$0")/lib.sh"

require_cmd tc jq python3 modinfo man
require_module sch_decbit sch_hbh tcp_decbit tcp_bimodal tcp_fixedwin

PAGES="tc-decbit.8 tc-hbh.8 congavoid.7"
MK=$TOP_DIR/tools/mkman
CHECK=$SELFTESTS_DIR/man_check.py
"$MK" --values >"$TMP_DIR/values.json" || { echo "# tools/mkman --values failed"; exit 1; }

# param_bounds MOD: every bounded parameter holds its default and its range
param_bounds() {
	local mod=$1 bad=0 name type lo hi def f now v
	modinfo -p "$TOP_DIR/build/$(uname -r)/$mod/$mod.ko" >"$TMP_DIR/$mod.modinfo"
	python3 "$CHECK" params "$mod" "$TMP_DIR/$mod.modinfo" || bad=1
	while read -r name type lo hi def; do
		f=/sys/module/$mod/parameters/$name
		read -r now <"$f"
		if [ "$type" = bool ]; then
			def=$([ "$def" = true ] && echo Y || echo N)
		fi
		[ "$now" = "$def" ] || { log "$mod.$name is $now, declared default $def"; bad=1; }
		[ "$type" = uint ] || continue
		for v in $((lo - 1)) $((hi + 1)); do
			if echo "$v" 2>/dev/null >"$f"; then
				log "$mod.$name accepted $v, out of $lo..$hi"
				bad=1
			fi
		done
		for v in "$lo" "$hi"; do
			echo "$v" >"$f" && read -r now <"$f" && [ "$now" = "$v" ] ||
				{ log "$mod.$name refused $v, in $lo..$hi"; bad=1; }
		done
		echo "$def" >"$f"
		log "$mod.$name: default $def, $lo..$hi"
	done < <(jq -r --arg m "$mod" '.params[$m][] | select(.type != "other") |
		"\(.name) \(.type) \(.min // "-") \(.max // "-") \(.default)"' "$TMP_DIR/values.json")
	return $bad
}
# one check per module that has parameters
module_params() {
	local m
	for m in $(jq -r '.params | to_entries[] | select(.value | length > 0) | .key' "$TMP_DIR/values.json"); do
		check "${m}_params_hold_declared_default_and_range" param_bounds "$m"
	done
}

# fresh_dump KIND OPTIONS...: a fresh qdisc dumps the defaults
fresh_dump() {
	local kind=$1
	shift
	tc -n "$N" qdisc replace dev d0 root "$kind" "$@" || return 1
	tc -n "$N" -j qdisc show dev d0 >"$TMP_DIR/$kind.json"
	python3 "$CHECK" dump "$kind" "$TMP_DIR/$kind.json"
}
qdisc_defaults() {
	defer tc -n "$N" qdisc del dev d0 root
	check "decbit_dumps_defaults" fresh_dump decbit
	check "hbh_dumps_defaults" fresh_dump hbh rate 10mbit
	tc -n "$N" qdisc replace dev d0 root decbit pool 7 pool_limit 100
	check "decbit_pool_dumps_ibl_default" \
		python3 "$CHECK" dump decbit <(tc -n "$N" -j qdisc show dev d0)
}

# help_vs_page KIND: tc's help and the page give the same defaults
help_vs_page() {
	tc qdisc add dev lo root "$1" help 2>"$TMP_DIR/$1.help"
	python3 "$CHECK" help "$1" "$TMP_DIR/$1.help" "$TOP_DIR/build/man/tc-$1.8"
}
help_vs_pages() {
	check "decbit_help_defaults_are_the_page_s" help_vs_page decbit
	check "hbh_help_defaults_are_the_page_s" help_vs_page hbh
}

# build/man is what the sources give, and renders cleanly
pages_render() {
	local p bad=0 warn
	"$MK" -o "$TMP_DIR/man" || return 1
	for p in $PAGES; do
		cmp -s "$TMP_DIR/man/$p" "$TOP_DIR/build/man/$p" ||
			{ log "build/man/$p is not what man/$p.in gives now"; bad=1; }
		warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$TMP_DIR/man/$p" 2>&1 >/dev/null)
		[ -z "$warn" ] || { log "$p: $warn"; bad=1; }
		log "$p: $(MANWIDTH=80 man -l "$TMP_DIR/man/$p" 2>/dev/null | wc -l) lines"
	done
	return $bad
}
pages_current() {
	check "pages_current_and_render_cleanly" pages_render
}

setup_prepare() {
	setup_ns N || return 1
	ip -n "$N" link add d0 type dummy && ip -n "$N" link set d0 up
}

setup_prepare || exit $ksft_fail
tests_run
