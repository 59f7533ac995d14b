# SPDX-License-Identifier: GPL-2.0
"""A kernel configuration as a value.

A configuration is a base ("lab": the kernel tree as checked out, a lab's
branch or a student's; "mainline": the pristine tree; "fixed": the
pristine tree with mainline's own fix, patches/mainline-fix/) and an optional
variant ("all", "smp", "debug").  Its name ("lab", "lab-all",
"mainline-debug", ...) names its build directory, build/<name> in the
work directory, and selects its config fragments (kbuild.CONFIGS).

Config is a str, so that a name where one is expected keeps working; the
questions asked of it are properties, not string surgery at each caller.
"""

from .util import GcovlabError

BASES = ("lab", "mainline", "fixed")
VARIANTS = ("all", "smp", "debug")
# vm/gcovlab kunit's own build directory (not a --variant of the commands)
KUNIT = "kunit"


class Config(str):
    """'lab', 'lab-all', 'mainline-smp', ...: see the module's docstring."""

    def __new__(cls, base, variant=None):
        if base not in BASES:
            raise GcovlabError("unknown kernel base %r; expected one of %s" % (
                base, ", ".join(BASES)))
        if variant is not None and variant not in VARIANTS + (KUNIT,):
            raise GcovlabError("unknown kernel variant %r; expected one of %s" % (
                variant, ", ".join(VARIANTS)))
        self = super().__new__(cls, base + "-" + variant if variant else base)
        self.base = base
        self.variant = variant
        return self

    @classmethod
    def parse(cls, name):
        """The configuration a name stands for ('lab-smp' -> lab + smp)."""
        if isinstance(name, Config):
            return name
        base, _sep, variant = str(name).partition("-")
        return cls(base, variant or None)

    @property
    def is_mainline(self):
        """Mainline's gcov code: the pristine tree, with or without the fix."""
        return self.base in ("mainline", "fixed")

    @property
    def profile_var(self):
        """The make variable that profiles a module: the series reads GCOV
        (the seed's name), mainline GCOV_PROFILE."""
        return "GCOV_PROFILE" if self.is_mainline else "GCOV"

    @property
    def vcpus(self):
        """How many vCPUs its guest gets: two where the kernel is SMP."""
        return 2 if self.variant in ("smp", "debug") else 1

    def source(self, work):
        """The tree it is built from."""
        return {"mainline": work.mainline, "fixed": work.fixed}.get(self.base, work.tree)

    def build_dir(self, work):
        return work.build_dir(self)
