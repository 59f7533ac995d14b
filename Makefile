# SPDX-License-Identifier: GPL-2.0
# gcov-kernel-labs: the targets a student, an instructor or CI reaches for.
#
#   make demo      tree, mainline kernel, sample driver run, coverage report
#   make check     the whole test suite (closing line: N passed, N failed), in
#                  two pytest processes at once (tools/check.py)
#   make check-debug  Lab 11 on the debug kernels: its runs and its page (series,
#                  mainline and mainline with its fix: three more kernel builds),
#                  and the series on user-mode Linux (one more: ARCH=um)
#   make html      the documentation site in _build/html (sphinx -W)
#   make bench     time demo, edit -> report, lab switch, the transfer, the
#                  whole-kernel report both ways, kunit runs, atomic
#                  counters: min/median/max of 5 runs (BENCH='--runs 3 --cold';
#                  BENCH='--save docs/bench' updates the site's Performance page)
#   make bench-read  .gcda read speed, the series' debugfs vs mainline's, in
#                  QEMU (BENCH_READ='--passes 9' passes options on)
#   make bench-kunit-uml  the four KUnit suites of docs/kunit-coverage.rst with
#                  the tree's own kunit.py on user-mode Linux and
#                  coverage_uml.config (mainline and the series: two UML
#                  builds, not in make check), beside vm/gcovlab kunit
#                  (BENCH_KUNIT_UML='--save docs/bench/kunit-uml.json'
#                  updates the chapter's table)
#   make captures  run every lab page as a reader would (tools/pagerun.py)
#                  and the chapters' examples; store the output in docs/
#   make room      prepare a room's machine for a workshop, offline after
#                  (tools/prepare-room.py: packages, tree, every lab kernel)
#   make shellcheck
#   make clean     remove _build/ and out/ (the work directory stays; see
#                  'vm/gcovlab clean --help')

PYTHON   := /usr/bin/python3
GCOVLAB  := vm/gcovlab
DEMO_OUT := out/demo
DRIVER   := labs/driver
SHELL_SCRIPTS := setup.sh .ci/run vm/init.sh vm/smoke.sh \
	tools/export-series.sh tools/capture-lib.sh \
	tools/capture-gcc.sh tools/capture-kbuild.sh tools/capture-format.sh tools/capture-kunit.sh tools/ci-coverage.sh \
	$(wildcard docs/examples/format/*.sh) \
	$(wildcard labs/*/*.sh) $(wildcard labs/*/*/*.sh) \
	$(wildcard tests/data/*/workload.sh) $(wildcard tests/data/lab7/*.sh)

.PHONY: demo check check-debug html captures bench bench-read bench-kunit-uml room shellcheck clean help

help:
	@sed -n '2,/^$$/p' Makefile | sed '$$d' | sed 's/^# \{0,1\}//'

demo:
	@start=$$(date +%s); \
	$(GCOVLAB) tree && \
	$(GCOVLAB) build --mainline && \
	$(GCOVLAB) run --mainline --module $(DRIVER) \
		--workload $(DRIVER)/workload-basic.sh --out $(DEMO_OUT) && \
	echo && \
	echo "demo finished in $$(( $$(date +%s) - start )) s" && \
	echo "HTML report: $(CURDIR)/$(DEMO_OUT)/html/index.html" && \
	echo "coverage of the sample driver (lines, branches):" && \
	sed 's/^/  /' $(DEMO_OUT)/summary.txt

check:
	$(PYTHON) tools/check.py

check-debug:
	$(PYTHON) -m pytest -p no:cacheprovider -s tests/debug

html:
	$(PYTHON) -m sphinx -W --keep-going -b html . _build/html

captures:
	$(PYTHON) tools/pagerun.py --capture --all
	tools/capture-gcc.sh
	tools/capture-kbuild.sh
	tools/capture-format.sh
	tools/capture-kunit.sh

bench:
	$(PYTHON) tools/bench.py $(BENCH)

room:
	$(PYTHON) tools/prepare-room.py

bench-read:
	$(PYTHON) tools/bench-read.py $(BENCH_READ)

bench-kunit-uml:
	$(PYTHON) tools/bench-kunit-uml.py $(BENCH_KUNIT_UML)

shellcheck:
	shellcheck $(SHELL_SCRIPTS)

clean:
	rm -rf _build out
