# SPDX-License-Identifier: GPL-2.0
#
# make                 build the modules for every target kernel, the tc plugins
#                      and the man pages (build/man)
# make check           everything the project tests: unit tests, then the
#                      selftests in a VM on each kernel (installs what is missing)
# make check-debug     the selftests on a debug 6.12 kernel (KASAN, lockdep,
#                      kmemleak, UBSAN...; built once into .deps/), fuzzers at
#                      full size (long: see docs/testing.md)
# make demo            the comparison experiment in a VM (installs what is missing)
# make reproduce       every paper-reproduction scenario in a VM (long)
# make install         install modules (+ depmod), tc plugins and man pages on this host
# make deb             Debian packages congavoid-dkms and congavoid-tc in build/deb
# make check-deb       install them into a clean Debian 12 system in a VM and use
#                      them there (downloads a minimal root once; long)
# make unit            unit tests of the algorithm cores only
# make build32         the modules built against the installed 32-bit (686-pae)
#                      kernel headers, failing on any warning (make check runs it)
# make mutants         mutation testing: each mutant of tools/mutants in a scratch
#                      copy, its selftests in a VM on 6.12 (hours; MUTATE="--only ID",
#                      MUTATE=--build-only: docs/testing.md)
#
# KVERS="6.1.0-56-amd64 ..." or KDIR=/path/to/kernel/build choose the kernels
# (default: the Debian 6.1 and 6.12 kernels found by tools/kvers).

TOP := $(CURDIR)
BUILD := $(TOP)/build
SHELL := /bin/bash

ifdef KDIR
KVERS := $(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)
kdir = $(KDIR)
else
KVERS ?= $(shell $(TOP)/tools/kvers)
kdir = /lib/modules/$(1)/build
endif

# Sources that make up the modules, copied as symlinks into each kernel's
# build folder so that the tree itself stays clean.
MODSRC := Kbuild include $(wildcard tcp_decbit tcp_bimodal sch_decbit sch_hbh tcp_fixedwin)

.PHONY: all modules tc man deb check-deb unit build32 check check-debug demo publish-demo reproduce install setup clean FORCE

all: modules tc man

setup:
	@$(TOP)/tools/setup --check >/dev/null 2>&1 || $(TOP)/tools/setup

modules:
	@test -n "$(KVERS)" || { echo "no kernel headers found; run tools/setup or set KDIR" >&2; exit 1; }
	@set -e; for k in $(KVERS); do \
		out=$(BUILD)/$$k; \
		mkdir -p $$out; \
		for s in $(MODSRC); do rm -rf $$out/$$s; cp -rs $(TOP)/$$s $$out/$$s; done; \
		echo "  MODULES $$k"; \
		$(MAKE) -s -C $(call kdir,$$k) M=$$out CONFIG_DEBUG_INFO_BTF_MODULES= CONGAVOID_WERROR=1 modules; \
		rm -rf $$out/testmod; mkdir -p $$out/testmod; cp -rs $(TOP)/selftests/stopdev $$out/testmod/stopdev; \
		$(MAKE) -s -C $(call kdir,$$k) M=$$out/testmod/stopdev CONFIG_DEBUG_INFO_BTF_MODULES= CONGAVOID_WERROR=1 modules; \
	done

tc:
	@$(MAKE) -s -C tools/tc

man:
	@$(TOP)/tools/mkman

unit:
	@$(TOP)/tools/unit

build32:
	@$(TOP)/tools/build32

.PHONY: mutants
mutants: setup tc
	@$(TOP)/tools/mutate $(MUTATE)

check: setup
	@$(TOP)/tools/check

check-debug: setup
	@$(TOP)/tools/check --debug

demo: setup all
	@$(TOP)/tools/demo

# the demo's results page into docs/results (make demo writes results/ only)
publish-demo:
	@$(TOP)/tools/experiment page $(TOP)/results/demo

reproduce: setup all
	@$(TOP)/tools/reproduce

# only the packages' Build-Depends: no VM test bed, no iproute2 source
deb:
	@$(TOP)/tools/mkdeb

check-deb: setup
	@$(TOP)/tools/check-deb

install:
	@set -e; k=$${KVERS_INSTALL:-$$(uname -r)}; \
	$(MAKE) -s modules KVERS=$$k; \
	d=$(DESTDIR)/lib/modules/$$k/updates/congavoid; \
	install -d $$d; \
	find $(BUILD)/$$k -name '*.ko' -exec install -m 644 {} $$d/ \; ; \
	[ -n "$(DESTDIR)" ] || depmod -a $$k; \
	echo "installed modules in $$d"
	@$(MAKE) -s -C tools/tc install DESTDIR=$(DESTDIR)
	@$(TOP)/tools/mkman
	@install -d $(DESTDIR)/usr/share/man/man7 $(DESTDIR)/usr/share/man/man8
	@install -m 644 $(BUILD)/man/*.7 $(DESTDIR)/usr/share/man/man7/
	@install -m 644 $(BUILD)/man/*.8 $(DESTDIR)/usr/share/man/man8/

clean:
	rm -rf $(BUILD)
	@$(MAKE) -s -C tools/tc clean
