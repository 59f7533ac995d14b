#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""labs/lab11/summary.py - one table row per stress run (Lab 11).

  labs/lab11/summary.py [--csv] LABEL=OUT...

OUT is the --out directory of a "vm/gcovlab run" whose workload was
labs/lab11/stress.sh or labs/lab11/lab11.sh.  For each run: the
operations per second of each kind of worker, what the kernel's checkers
reported (from OUT/console.log), the kmemleak suspects (lab11.sh only)
and how the run ended.  Plain text by default; --csv for the site's
tables.
"""

import argparse
import csv
import os
import re
import signal
import sys

# What the console shows when a checker fires, and the name in the table.
# kmemleak is left out: its background scan also reports objects of early
# boot; the "leaks" column is lab11.sh's own count, which leaves them out.
REPORTS = (
    ("blocked for more than", "hung task"),
    ("BUG: KASAN", "KASAN"),
    ("possible circular locking", "lockdep"),
    ("possible recursive locking", "lockdep"),
    ("inconsistent lock state", "lockdep"),
    ("BUG: sleeping function called", "atomic sleep"),
    ("ODEBUG:", "debugobjects"),
    ("BUG: soft lockup", "soft lockup"),
    ("Oops", "oops"),
    ("general protection", "oops"),
    ("WARNING:", "warning"),
)
COLUMNS = ("run", "loads/s", "reads/s", "resets/s", "kernel reports", "leaks", "outcome")


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def row(label, out):
    console = read(os.path.join(out, "console.log"))
    if not console:
        raise SystemExit("summary.py: %s has no console.log: is it the --out of a "
                         "vm/gcovlab run?" % out)
    m = re.search(r"stress: (\d+) s, (\d+) CPUs", console)
    if not m:
        raise SystemExit("summary.py: %s/console.log has no stress.sh output: run "
                         "labs/lab11/stress.sh or lab11.sh as the workload" % out)
    seconds = int(m.group(1))
    ops = {name: int(n) for name, n in re.findall(r"stress: (\S+) (\d+) ok, \d+ failed",
                                                  console)}

    def rate(*names):
        return "%.1f" % (sum(ops.get(n, 0) for n in names) / seconds)

    found = []
    for needle, name in REPORTS:
        if needle in console and name not in found:
            found.append(name)
    first = re.search(r"\[\s*(\d+\.\d+)\] INFO: task \S+ blocked for more than", console)
    if first:
        found[found.index("hung task")] = "hung task (at %.0f s)" % float(first.group(1))
    leaks = re.search(r"lab11: kmemleak: (\d+) suspects", console)
    status = read(os.path.join(out, "status")).strip()
    if "stress: STALLED" in console:
        # No status file: the guest never finished, the tool stopped it.
        outcome = "stalled" + ("" if status else "; VM stopped at the timeout")
    else:
        # lab11.sh's verdict covers stress.sh's; a checker's report fails
        # the run whatever the workload said.
        done = re.findall(r"lab11: done, status (\d+)", console) or \
            re.findall(r"stress: done, status (\d+)", console)
        if done and done[-1] == "0" and not found:
            outcome = "finished, all checks passed"
        else:
            outcome = "finished, status %s" % (done[-1] if done else status or "?")
    return {"run": label, "loads/s": rate("load-a", "load-b"),
            "reads/s": rate("read-1", "read-2", "read-3"),
            "resets/s": rate("reset-all", "reset-one"),
            "kernel reports": ", ".join(found) or "none",
            "leaks": leaks.group(1) if leaks else "not scanned",
            "outcome": outcome}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--csv", action="store_true", help="CSV with a header line")
    p.add_argument("runs", nargs="+", metavar="LABEL=OUT")
    args = p.parse_args()
    rows = []
    for arg in args.runs:
        label, sep, out = arg.partition("=")
        if not sep or not label or not out:
            p.error("give each run as LABEL=OUT, not %r" % arg)
        rows.append(row(label, os.path.expanduser(out)))
    if args.csv:
        w = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return 0
    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in COLUMNS]
    print("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)).rstrip())
    for r in rows:
        print("  ".join(r[c].ljust(w) for c, w in zip(COLUMNS, widths)).rstrip())
    return 0


if __name__ == "__main__":
    # "| head" closes the pipe early: end quietly, as other tools do.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
