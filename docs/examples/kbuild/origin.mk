# SPDX-License-Identifier: GPL-2.0
#
# Where did make take GCOV from?  Reads $(DIR)/Makefile like kbuild reads
# a directory's Makefile, then prints GCOV and $(origin GCOV), and
# KBUILD_GCOV when it is set.  With SUB=1 a sub-make (MAKELEVEL 1) does
# the same first, as kbuild runs one make per directory.
# docs/kbuild-gcov.rst; tools/capture-kbuild.sh runs it.
#
#   make -s -f origin.mk DIR=<directory> [SUB=1] [TOP=kbuild|overrides|unexport]
#
# TOP=kbuild makes the first make do what the series' top Makefile does
# with a GCOV from its command line (patch 0003); TOP=overrides and
# TOP=unexport do one of its two steps alone.

# The series' top Makefile, copied (it runs this in the first make only)
ifeq ($(MAKELEVEL)$(TOP),0kbuild)
ifeq ("$(origin GCOV)", "command line")
KBUILD_GCOV := $(GCOV)
MAKEOVERRIDES := $(filter-out GCOV=%, $(MAKEOVERRIDES))
unexport GCOV
endif
export KBUILD_GCOV
endif

# One step alone: GCOV=y stays out of the sub-makes' MAKEFLAGS ...
ifeq ($(MAKELEVEL)$(TOP),0overrides)
MAKEOVERRIDES := $(filter-out GCOV=%, $(MAKEOVERRIDES))
endif
# ... or out of their environment.
ifeq ($(MAKELEVEL)$(TOP),0unexport)
unexport GCOV
endif

include $(DIR)/Makefile

all:
ifeq ($(SUB),1)
	@$(MAKE) -s -f origin.mk DIR=$(DIR) SUB=
endif
	@echo 'make level $(MAKELEVEL): GCOV = "$(GCOV)", origin: $(origin GCOV)$(if $(KBUILD_GCOV),; KBUILD_GCOV = "$(KBUILD_GCOV)")'
