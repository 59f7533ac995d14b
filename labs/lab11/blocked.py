#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""labs/lab11/blocked.py - the hung-task reports of a console log, short.

  labs/lab11/blocked.py CONSOLE [FUNCTION]

For each task that the hung-task detector reported (its first report):
the task, then its stack from the innermost function outwards, without
the lines marked "?" (addresses found on the stack that may be stale),
the offsets and the timestamps.  With FUNCTION, only the tasks whose
stack passes through it.  Exit status 1 if there is no such report.
"""

import re
import signal
import sys

HEAD = re.compile(r"INFO: task (\S+):(\d+) blocked for more than (\d+) seconds")
FRAME = re.compile(r"^\s*(\?\s+)?([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+")


def reports(lines):
    """(task, pid, [functions]) for each report, in order."""
    found = []
    current = None
    for line in lines:
        text = re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line.rstrip("\n"))
        m = HEAD.search(text)
        if m:
            current = (m.group(1), m.group(2), [])
            found.append(current)
            continue
        if current is None:
            continue
        if text.strip() == "</TASK>":
            current = None
            continue
        f = FRAME.match(text)
        if f and not f.group(1):
            current[2].append(f.group(2))
    return found


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError as e:
        print("blocked.py: %s: %s" % (sys.argv[1], e.strerror), file=sys.stderr)
        return 2
    want = sys.argv[2] if len(sys.argv) == 3 else None
    seen = set()
    shown = 0
    for task, pid, stack in reports(lines):
        if pid in seen or (want and want not in stack):
            continue
        seen.add(pid)
        shown += 1
        print("task %s, pid %s:" % (task, pid))
        for fn in stack:
            print("    %s" % fn)
    if not shown:
        print("blocked.py: no hung-task report%s in %s" % (
            " with %s in its stack" % want if want else "", sys.argv[1]))
        return 1
    return 0


if __name__ == "__main__":
    # "| head" closes the pipe early: end quietly, as other tools do.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
