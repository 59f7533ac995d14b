# SPDX-License-Identifier: GPL-2.0
#
# A model of the series' GCOV rule (scripts/Makefile.lib, patch 0003),
# cut down to what decides whether one object, foo.o, gets CFLAGS_GCOV.
# docs/kbuild-gcov.rst explains it; tools/capture-kbuild.sh runs it.
#
#   make -s -f rule.mk DIR=<directory> [CONFIG_GCOV_PROFILE_ALL=y]
#
# Like kbuild, it reads the directory's own Makefile first, then applies
# the rule.

CONFIG_GCOV_PROFILE := y
CFLAGS_GCOV := -fprofile-arcs -ftest-coverage -fno-tree-loop-im
basetarget := foo

include $(DIR)/Makefile

# A GCOV that make took from the environment ("environment", or
# "environment override" under make -e) is someone else's variable (gcovr,
# for one, reads GCOV=gcov-12): not a per-directory setting.
gcov-dir = $(if $(filter environment%,$(origin GCOV)),,$(GCOV))

# The first of the three that is not empty decides; it says "no" when it
# starts with n.
ifeq ($(CONFIG_GCOV_PROFILE),y)
gcov-flags = $(if $(patsubst n%,,$(GCOV_$(basetarget).o)$(gcov-dir)$(CONFIG_GCOV_PROFILE_ALL)),$(CFLAGS_GCOV))
endif

all:
	@echo 'foo.o: $(if $(gcov-flags),instrumented: $(gcov-flags),not instrumented)'
