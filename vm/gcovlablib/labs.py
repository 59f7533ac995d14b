# SPDX-License-Identifier: GPL-2.0
"""The lab registry, labs/index.toml."""

import os
import tomllib

from .config import VARIANTS, Config
from .util import EXIT_USAGE, GcovlabError
from .work import REPO

INDEX = os.path.join(REPO, "labs", "index.toml")


def load():
    with open(INDEX, "rb") as f:
        data = tomllib.load(f)
    return {lab["number"]: lab for lab in data.get("lab", [])}


def series_patches():
    pdir = os.path.join(REPO, "patches")
    return sorted(p for p in os.listdir(pdir) if p.endswith(".patch")) if os.path.isdir(pdir) else []


def get(number):
    labs = load()
    if number in labs:
        return labs[number]
    have = ", ".join(str(n) for n in sorted(labs))
    raise GcovlabError(
        "Lab %d does not exist yet.  This checkout has lab%s %s (labs/index.toml); "
        "the labs up to 10 arrive with the later parts of the patch series, and "
        "patches/ holds %d patch file%s so far." % (
            number, "s" if len(labs) != 1 else "", have,
            len(series_patches()), "" if len(series_patches()) == 1 else "s"),
        EXIT_USAGE)


def kernel_config(number):
    """The build configuration a lab runs on: 'mainline', 'lab', or 'lab'
    with a variant ('lab-all', 'lab-smp': labs/index.toml's variant key)."""
    lab = get(number)
    if lab["kernel"] == "mainline":
        return Config("mainline")
    if lab["kernel"] == "series":
        variant = lab.get("variant")
        if variant not in (None,) + VARIANTS:
            raise GcovlabError("labs/index.toml: lab %d has variant = %r; expected "
                               "one of %s" % (number, variant, ", ".join(VARIANTS)))
        return Config("lab", variant)
    raise GcovlabError("labs/index.toml: lab %d has kernel = %r; expected "
                       "\"mainline\" or \"series\"" % (number, lab["kernel"]))


def patches(number):
    """The patch files (absolute paths) of a series lab's state: the first
    `patches` of the series, then the lab's own `lab_patch` if it has one
    (Lab 9: a state the series no longer passes through)."""
    lab = get(number)
    have = series_patches()
    k = lab.get("patches", 0)
    if k > len(have):
        raise GcovlabError("Lab %d needs the first %d patches of the series, but "
                           "patches/ holds %d" % (number, k, len(have)))
    out = [os.path.join(REPO, "patches", name) for name in have[:k]]
    if lab.get("lab_patch"):
        out.append(os.path.join(REPO, lab["lab_patch"]))
    return out


def patch_files(path):
    """The files a patch file changes (its "diff --git a/X b/X" lines)."""
    with open(path, encoding="utf-8") as f:
        return [line.split()[2][2:] for line in f if line.startswith("diff --git ")]


def lab_patch_files(number):
    """The files Lab NUMBER's own patch changes ([] without one): a later
    patch of the series that carries the same hunks is applied without
    them (exercise.py)."""
    lab = get(number)
    return patch_files(os.path.join(REPO, lab["lab_patch"])) if lab.get("lab_patch") else []
