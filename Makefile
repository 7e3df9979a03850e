# SPDX-License-Identifier: GPL-2.0-only
#
# dm-fault: build the modules and the dmfault tool, and run the tests, the
# demo, the lint gates and benchmarks on Debian's kernels.
#
#   make            the modules for the running kernel (KVER=V, KVERS="V1 V2"
#                   or KDIR=TREE: others) in build/KVER/, and tools/dmfault;
#                   installs no package
#   make deps       the Debian packages make check and make demo need
#                   (make deps-GROUP: one of scripts/deps.sh's groups)
#   make check      host unit tests, fuzz smoke, VM suites on each kernel of
#                   the test matrix (below)
#   make dust-ref   the in-tree dm-dust of each kernel (KVERS), built from
#                   linux-source into build/KVER/ref/ for the VM suites
#   make check-long make check with the full sweeps and loops (DMF_LONG=1)
#   make check-flavours every VM suite on Debian's cloud and rt flavours of
#                   6.1 and 6.12 (make deps-flavours installs them; KVERS:
#                   some); each kernel's result with its allocator hooks
#                   (built or not) and time.  Not part of make check
#   make check-debug the VM suites on a KASAN/lockdep/kmemleak kernel built from
#                   linux-source-6.1 and one from linux-source-6.12 (DEBUG_KERNELS:
#                   one of them; slow: not part of make check)
#   make demo       a fault device under fio in a VM, with its statistics and a
#                   picture of faults and latency by the second (build/demo.png)
#   make hunt       dmfault hunt over its whole catalogue in a VM, each kernel in
#                   turn (HUNT_STEPS steps a path, default 150; HUNT_PATHS: some)
#   make crashtest-catalogue  dmfault crashtest over every entry of its catalogue on
#                   each of its filesystems in a VM, each kernel in turn: a row of
#                   the verdict table a run (CT_ENTRIES: some; CT_FSES: only these;
#                   CT_STATES states a run, default 60; CT_MINIMISE checks to shrink
#                   a failure, default 32).  Hours: not in make check
#   make soak       tests/vm/soak.sh in a VM, each kernel in turn: SOAK_SECONDS
#                   (default 3600) of fio verify, rule changes, table swaps,
#                   messages and create/remove at once, then dmfault hunt over
#                   dm-fault's control paths (SOAK_HUNT_STEPS, default 40);
#                   console in soak-KVER.log.  Not part of make check
#   make fuzz-seq   random operation sequences (tests/seqfuzz) in a VM, each
#                   kernel in turn, SEQFUZZ_SECONDS each (default 3600; make
#                   check runs 40 fixed ones); make fuzz-seq-debug on the debug
#                   kernels
#   make lint       checkpatch --strict, sparse (C=1), W=1: warnings are errors
#   make bench      side-by-side ratios under QEMU -icount
#   make install    make's modules under /lib/modules/KVER/updates/dm-fault (and
#                   depmod), then install-tools; DESTDIR honoured.  make uninstall
#   make install-tools  no build: dmfault, its man page, bash completion, hunt's
#                   catalogue and helper, crashtest's catalogue and its shell
#                   helpers under PREFIX (/usr/local)
#   make dkms-install  the sources to /usr/src/dm-fault-VERSION, then dkms
#                   add, build and install for every kernel with headers
#   make deb        build/deb/dm-fault-dkms_VERSION_all.deb and dmfault_VERSION_ARCH.deb
#                   (dpkg-buildpackage on a copy of the tracked files), then
#                   lintian; make deb ARCH=arm64: dmfault cross-built for arm64
#   make deb-check  make deb, then both packages installed and used in a VM on
#                   each kernel (DKMS builds in the guest: minutes); not in make check.
#                   ARCH=arm64: the arm64 packages on the kernels of the root
#                   scripts/arm64-root.sh --deb makes (ARM64_DEB_ROOT)
#   make in-tree-check  scripts/in-tree.sh into Debian's linux-source, build the
#                   three modules there (CONFIG_DM_FAULT=m); not part of make check
#   make ARCH=arm64 the modules and the tool cross-built (aarch64-linux-gnu-gcc)
#                   for the arm64 kernels of the root that scripts/arm64-root.sh
#                   makes (ARM64_ROOT, default /var/cache/dm-fault/arm64-root;
#                   make deps-arm64 installs what it needs); KVERS: some
#   make check-arm64  make ARCH=arm64, then the target, allocator-hook, cache
#                   and bad-block suites on each of them under
#                   qemu-system-aarch64.  Not part
#                   of make check
#   make clean
#
# Only make deps, deps-GROUP, check and demo install packages; the other
# targets check for what they need and name the make deps-GROUP that
# installs it.  The test targets (check, demo, lint, bench, hunt, soak,
# deb-check) run on the test matrix, the kernels make deps installs:
# Debian's generic flavour of 6.1 and 6.12 for this architecture
# (scripts/kvers.sh), the two that CI's time holds.  Other kernels with
# headers here (Debian's cloud and rt flavours, one's own) are tested only
# when named: KVERS="V1 V2".

SHELL := /bin/bash
TOP := $(CURDIR)
# The test matrix, resolved when a recipe runs, after make check or make
# demo may have installed the kernels.
K = $${KVERS:-$$(scripts/kvers.sh)}
# Debian's other flavours of the same kernels (make check-flavours).
KF = $${KVERS:-$$(scripts/kvers.sh --flavours)}
# What a build is for (scripts/kvers.sh --build).
export KVERS KVER KDIR
# make ARCH=arm64: the kernels, their build trees and the guests' root are
# the arm64 root's; the tool goes to build/arm64/layer, which tests/vm/run
# --arch arm64 lays over the checkout in the guest.
ARM64_ROOT ?= /var/cache/dm-fault/arm64-root
ifeq ($(ARCH),arm64)
CROSS_COMPILE ?= aarch64-linux-gnu-
export ARCH CROSS_COMPILE
export KROOT := $(ARM64_ROOT)
endif
SRCS := Kbuild lib drivers mm include

.PHONY: all modules tools tools-arm64 check-arm64 dust-ref check check-long check-flavours check-debug unit fuzz vmtest \
	demo hunt soak lint bench fuzz-seq fuzz-seq-debug crashtest-catalogue \
	install install-tools uninstall dkms-install dkms-uninstall in-tree-check deb deb-check clean deps

PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC = $(DESTDIR)/usr/src/dm-fault-$(VERSION)

all: modules tools

deps: deps-check deps-demo

deps-%:
	@scripts/deps.sh $*

need-%:
	@scripts/deps.sh --check $*

# One shadow tree per kernel (symlinks to the sources) so that the objects
# of two kernels never overwrite each other.
modules:
	@set -e; kv=$$(scripts/kvers.sh --build); for k in $$kv; do \
		echo "  MODULES $$k"; \
		s=$(TOP)/build/$$k/src; mkdir -p $$s; \
		cp -rsf $(wildcard $(addprefix $(TOP)/,$(SRCS))) $$s/; \
		$(MAKE) -s -C $${KDIR:-$$KROOT/lib/modules/$$k/build} M=$$s $(KBUILD_OPTS) modules; \
		cp $$s/*.ko $(TOP)/build/$$k/; \
		[ -e $$s/dmf_alloc.ko ] || echo "  dmf_alloc not built for $$k: the allocator hooks" \
			"need an x86-64 or arm64 kernel with kprobes and ftrace with arguments"; \
	done

ifeq ($(ARCH),arm64)
tools: tools-arm64
else
tools:
	@echo '#include <libdevmapper.h>' | $(CC) -E -o /dev/null - 2>/dev/null || \
		{ echo "dm-fault: libdevmapper.h not found: install libdevmapper-dev (make deps-build)" >&2; \
		  exit 1; }
	@$(MAKE) -s -C tools/dmfault
	@$(MAKE) -s -C tests/vm/bin
	@$(MAKE) -s -C tests/seqfuzz
endif

# The tool and the suites' helpers cross-built in a copy of their sources
# (the checkout's objects are the host's); only the programs go to the
# layer, at their paths in the checkout.
A64 := $(TOP)/build/arm64
tools-arm64:
	@echo '#include <libdevmapper.h>' | $(CROSS_COMPILE)gcc -E -o /dev/null - 2>/dev/null || \
		{ echo "dm-fault: no arm64 libdevmapper.h or no $(CROSS_COMPILE)gcc (make deps-arm64)" >&2; \
		  exit 1; }
	@mkdir -p $(A64)/src $(A64)/layer/tools/dmfault $(A64)/layer/tests/vm/bin
	@git ls-files -z tools include drivers lib tests/vm/bin | xargs -0 cp -u --parents -t $(A64)/src
	@$(MAKE) -s -C $(A64)/src/tools/dmfault CC=$(CROSS_COMPILE)gcc dmfault dmf-hunt
	@$(MAKE) -s -C $(A64)/src/tests/vm/bin CC=$(CROSS_COMPILE)gcc
	@cp $(A64)/src/tools/dmfault/dmfault $(A64)/src/tools/dmfault/dmf-hunt $(A64)/layer/tools/dmfault/
	@cp $(addprefix $(A64)/src/tests/vm/bin/,dmf-pattern dmf-allocsys dmf-crashcheck dmf-fsops) \
		$(A64)/layer/tests/vm/bin/

# One VM at a time, each arm64 kernel in turn (TCG: slow).
ARM64_SUITES ?= 10-target 30-alloc 50-cache 57-bad
check-arm64:
	@$(MAKE) -s modules tools ARCH=arm64
	@rc=0; for k in $$(KROOT=$(ARM64_ROOT) scripts/kvers.sh --build); do \
		ARM64_ROOT=$(ARM64_ROOT) nice tests/vm/run --arch arm64 --kernel $$k --mem 2048 --disk 1G --disk 256M \
			--timeout 3600 -- tests/vm/all $(ARM64_SUITES) || rc=1; \
	done; exit $$rc

unit: need-check
	@$(MAKE) -s -C tests/unit check

fuzz: need-check
	@$(MAKE) -s -C tests/fuzz run

check: deps-check
	@$(MAKE) -s modules tools dust-ref KVERS="$(K)"
	@tests/check $(K)

check-long: deps-check
	@$(MAKE) -s modules tools dust-ref KVERS="$(K)"
	@DMF_LONG=1 tests/check $(K)

# The in-tree dm-dust from linux-source, beside fault-dust in a VM suite.
dust-ref: need-check
	@scripts/dm-dust-ref.sh $$(scripts/kvers.sh --build)

# A guest's limit (VM_TIMEOUT) is 7200 s, more than make check's 4500:
# the rt kernels run the suites slower, and no CI time limit applies here.
check-flavours: deps-flavours
	@$(MAKE) -s modules tools dust-ref KVERS="$(KF)"
	@VM_TIMEOUT=$${VM_TIMEOUT:-7200} tests/check --vm-only $(KF)

DEBUG_KERNELS ?= 6.1 6.12

check-debug: need-debug
	@$(MAKE) -s tools
	@mkdir -p build; p=0; f=0; for v in $(DEBUG_KERNELS); do \
		DEBUG_KERNEL=$$v tests/check-debug $(SUITES) 2>&1 | tee build/check-debug-$$v.log; \
		l=$$(grep -E '^[0-9]+ passed, [0-9]+ failed$$' build/check-debug-$$v.log | tail -n 1); \
		[ -n "$$l" ] || l="0 passed, 1 failed"; \
		p=$$((p + $${l%% *})); l=$${l#*, }; f=$$((f + $${l%% *})); \
	done; echo "$$p passed, $$f failed"; [ $$f -eq 0 ]

demo: deps-demo
	@$(MAKE) -s modules tools KVERS="$(K)"
	@mkdir -p build; k="$(K)"; set -o pipefail; \
		tests/vm/run --kernel "$${k##* }" --disk 512M -- tests/demo.sh | tee build/demo.log
	@scripts/demo-plot.sh build/demo.log build/demo.png

# About 25 minutes a kernel on two shared cores: not part of make check.
hunt: need-check
	@$(MAKE) -s modules tools KVERS="$(K)"
	@rc=0; for k in $(K); do \
		nice -n 10 tests/vm/run --kernel $$k --mem 2048 --timeout 3000 -- \
			env HUNT_STEPS=$${HUNT_STEPS:-150} tests/vm/hunt.sh $$HUNT_PATHS || rc=1; \
	done; exit $$rc

# Random operation sequences (tests/seqfuzz/README) for SEQFUZZ_SECONDS on
# each kernel, one VM at a time; SEQFUZZ_SEED=S starts from seed S.  make
# check runs the same suite over 40 sequences from a fixed seed.
SEQFUZZ_SECONDS ?= 3600
fuzz-seq: need-check
	@$(MAKE) -s modules tools KVERS="$(K)"
	@rc=0; for k in $(K); do \
		nice -n 5 tests/vm/run --kernel $$k --mem 2048 --disk 1G --disk 256M \
			--timeout $$(($(SEQFUZZ_SECONDS) + 1800)) -- env \
			SEQFUZZ_SECONDS=$(SEQFUZZ_SECONDS) SEQFUZZ_SEED=$${SEQFUZZ_SEED:-} \
			DMF_SUITE_TIMEOUT=$$(($(SEQFUZZ_SECONDS) + 1200)) tests/vm/all 70-seqfuzz || rc=1; \
	done; exit $$rc

# The same on the debug kernels of make check-debug (KASAN, lockdep, kmemleak).
fuzz-seq-debug: need-debug
	@$(MAKE) -s tools
	@rc=0; for v in $(DEBUG_KERNELS); do \
		DEBUG_KERNEL=$$v SEQFUZZ_SECONDS=$(SEQFUZZ_SECONDS) \
		DMF_SUITE_TIMEOUT=$$(($(SEQFUZZ_SECONDS) * 3 + 1200)) tests/check-debug 70-seqfuzz || rc=1; \
	done; exit $$rc

crashtest-catalogue: need-check
	@$(MAKE) -s modules tools KVERS="$(K)"
	@rc=0; for k in $(K); do \
		nice -n 10 tests/vm/run --kernel $$k --mem 2048 --disk 1G --timeout 36000 -- \
			env CT_STATES=$${CT_STATES:-60} CT_MINIMISE=$${CT_MINIMISE:-32} CT_FSES="$$CT_FSES" \
			tests/vm/crashtest-catalogue.sh $$CT_ENTRIES || rc=1; \
	done; exit $$rc

# One VM a kernel, in turn; each run's console goes to soak-KVER.log too.
soak: need-check
	@$(MAKE) -s modules tools KVERS="$(K)"
	@s=$${SOAK_SECONDS:-3600}; p=0; f=0; for k in $(K); do \
		nice -n 5 tests/vm/run --kernel $$k --mem 2048 --disk 1G --disk 256M \
			--timeout $$((s + 1800)) -- env SOAK_SECONDS=$$s \
			SOAK_HUNT_STEPS=$${SOAK_HUNT_STEPS:-40} tests/vm/soak.sh 2>&1 | tee soak-$$k.log; \
		rc=$${PIPESTATUS[0]}; \
		l=$$(grep -E '^[0-9]+ passed, [0-9]+ failed$$' soak-$$k.log | tail -n 1); \
		[ -n "$$l" ] || l="0 passed, 1 failed"; \
		[ $$rc -eq 0 ] || [ "$${l#*, }" != "0 failed" ] || l="$${l%%,*}, 1 failed"; \
		echo "# kernel $$k: $$l (exit $$rc)"; \
		p=$$((p + $${l%% *})); l=$${l#*, }; f=$$((f + $${l%% *})); \
	done; echo "$$p passed, $$f failed"; [ $$f -eq 0 ]

ifeq ($(ARCH),arm64)
lint: need-lint
	@scripts/lint.sh $$(scripts/kvers.sh --build)
else
lint: need-lint
	@scripts/lint.sh $(K)
endif

bench: need-bench
	@$(MAKE) -s modules tools KVERS="$(K)"
	@bench/run $(K)

# depmod only for the running system's tree, not a DESTDIR
install: modules tools
	@set -e; for k in $$(scripts/kvers.sh --build); do \
		install -D -m 644 -t $(DESTDIR)/lib/modules/$$k/updates/dm-fault build/$$k/*.ko; \
		[ -n "$(DESTDIR)" ] || depmod -a $$k; \
	done
	@install -D -m 644 mm/dmf-alloc.modprobe.conf $(DESTDIR)/lib/modprobe.d/dm-fault.conf
	@$(MAKE) -s install-tools

# what make tools built, nothing built here
install-tools:
	@$(MAKE) -s -C tools/dmfault install-files DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)

uninstall:
	@set -e; for k in $$(scripts/kvers.sh --build); do \
		rm -rf $(DESTDIR)/lib/modules/$$k/updates/dm-fault; \
		[ -n "$(DESTDIR)" ] || depmod -a $$k; \
	done
	@rm -f $(DESTDIR)/lib/modprobe.d/dm-fault.conf
	@$(MAKE) -s -C tools/dmfault uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)

# what DKMS builds from: the Kbuild tree and dkms.conf
dkms-src:
	@rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)
	@cp -r Kbuild dkms.conf lib drivers mm include $(DKMS_SRC)/

dkms-install:
	@command -v dkms >/dev/null || { echo "dm-fault: dkms is not installed (apt-get install dkms)" >&2; exit 1; }
	@$(MAKE) -s dkms-src
	@dkms add -m dm-fault -v $(VERSION)
	@dkms install -m dm-fault -v $(VERSION) $(if $(KVERS),$(addprefix -k ,$(KVERS)),--all)
	@install -D -m 644 mm/dmf-alloc.modprobe.conf $(DESTDIR)/lib/modprobe.d/dm-fault.conf

dkms-uninstall:
	@dkms remove -m dm-fault -v $(VERSION) --all
	@rm -rf $(DKMS_SRC) $(DESTDIR)/lib/modprobe.d/dm-fault.conf

# make deb ARCH=arm64: dpkg-buildpackage's cross build (debian/rules takes
# CC from dpkg's buildtools.mk; the cross profile runs no test)
comma := ,
DEB_CROSS := $(if $(filter arm64,$(ARCH)),-a arm64 -Pcross$(comma)nocheck)
DEB_CROSS_ENV := $(if $(filter arm64,$(ARCH)),CC=$(CROSS_COMPILE)gcc)
deb: need-deb
	@rm -rf build/deb && mkdir -p build/deb/dm-fault-$(VERSION)
	@git ls-files -z | xargs -0 cp --parents -t build/deb/dm-fault-$(VERSION)
	@cd build/deb/dm-fault-$(VERSION) && \
		$(DEB_CROSS_ENV) DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage $(DEB_CROSS) -us -uc -b \
		> ../build.log 2>&1 || \
		{ tail -n 20 ../build.log; exit 1; }
	@ls build/deb/*.deb
	@lintian --fail-on error,warning build/deb/*.deb

# ARCH=arm64: the kernels of the root scripts/arm64-root.sh --deb makes
ARM64_DEB_ROOT ?= /var/cache/dm-fault/arm64-deb-root
deb-check: deb
	@$(if $(filter arm64,$(ARCH)),k=$$(ls $(ARM64_DEB_ROOT)/boot 2>/dev/null | sed -n 's/^vmlinuz-//p'); \
		[ -n "$$k" ] || { echo "dm-fault: no arm64 root at $(ARM64_DEB_ROOT):" \
			"scripts/arm64-root.sh --deb makes it (as root)" >&2; exit 1; }; \
		ARM64_DEB_ROOT=$(ARM64_DEB_ROOT) tests/deb-check.sh build/deb $${KVERS:-$$k}, \
		tests/deb-check.sh build/deb $(K))

in-tree-check: need-debug
	@scripts/in-tree-check.sh

clean:
	rm -rf build
	-@$(MAKE) -s -C tools/dmfault clean
	-@$(MAKE) -s -C tests/unit clean
	-@$(MAKE) -s -C tests/fuzz clean
	-@$(MAKE) -s -C tests/vm/bin clean
	-@$(MAKE) -s -C tests/seqfuzz clean
