# SPDX-License-Identifier: GPL-2.0
#
# A model of the series' GCOV rule (scripts/Makefile.lib: patch 0003, and
# the last default that patch 0010 appends), cut down to what decides
# whether one object, foo.o, gets CFLAGS_GCOV.  It plays the make that
# kbuild runs for one directory.  docs/kbuild-gcov.rst explains it;
# tools/capture-kbuild.sh runs it.
#
#   [KBUILD_GCOV=y|n] make -s -f rule.mk DIR=<directory> [CONFIG_GCOV_PROFILE_ALL=y]
#
# "make GCOV=y" is modelled as KBUILD_GCOV=y in the environment.  The
# series' top Makefile copies a GCOV given on its command line into the
# exported KBUILD_GCOV and keeps GCOV itself away from the sub-makes
# (origin.mk TOP=kbuild shows this), so the environment variable is all
# of it that a directory's make sees.  GCOV=y on this model's own command
# line plays a sub-make that receives GCOV anyway, as in series v2.
#
# Like kbuild, it reads the directory's own Makefile first, then applies
# the rule.

CONFIG_GCOV_PROFILE := y
CFLAGS_GCOV := -fprofile-arcs -ftest-coverage -fno-tree-loop-im
basetarget := foo

include $(DIR)/Makefile

# The directory's GCOV, then the command line's default.  A GCOV that
# make took from the environment ("environment", or "environment
# override" under make -e) is someone else's variable (gcovr, for one,
# reads GCOV=gcov-12): not a per-directory setting.
gcov-dir = $(if $(filter environment%,$(origin GCOV)),,$(GCOV))$(KBUILD_GCOV)

# The first of the four values that is not empty decides; it says "no"
# when it starts with n.
ifeq ($(CONFIG_GCOV_PROFILE),y)
gcov-flags = $(if $(patsubst n%,,$(GCOV_$(basetarget).o)$(gcov-dir)$(CONFIG_GCOV_PROFILE_ALL)),$(CFLAGS_GCOV))
endif

all:
	@echo 'foo.o: $(if $(gcov-flags),instrumented: $(gcov-flags),not instrumented)'
