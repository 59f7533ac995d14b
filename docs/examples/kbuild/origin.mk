# SPDX-License-Identifier: GPL-2.0
#
# Where did make take GCOV from?  Reads $(DIR)/Makefile like kbuild reads
# a directory's Makefile, then prints GCOV and $(origin GCOV).  With
# SUB=1 a sub-make (MAKELEVEL 1) does the same first, as kbuild runs one
# make per directory.  docs/kbuild-gcov.rst; tools/capture-kbuild.sh runs it.
#
#   make -s -f origin.mk DIR=<directory> [SUB=1]

include $(DIR)/Makefile

all:
ifeq ($(SUB),1)
	@$(MAKE) -s -f origin.mk DIR=$(DIR) SUB=
endif
	@echo 'make level $(MAKELEVEL): GCOV = "$(GCOV)", origin: $(origin GCOV)'
