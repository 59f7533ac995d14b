# SPDX-License-Identifier: GPL-2.0
"""Messages, errors and subprocess helpers shared by every gcovlab step."""

import fcntl
import os
import signal
import subprocess
import sys
import time

# Exit codes of the tool itself.  A workload's own status is passed through
# unchanged by "run"; these are chosen outside the usual range of a script's
# statuses, and OUT/status always holds the workload's status.
EXIT_USAGE = 2
EXIT_FAILED = 125
EXIT_TIMEOUT = 124
EXIT_INTERRUPTED = 130


class GcovlabError(Exception):
    """A failure with a message that names the cause and the fix."""

    def __init__(self, message, code=EXIT_FAILED):
        super().__init__(message)
        self.code = code


def say(msg):
    print("gcovlab: %s" % msg, flush=True)


def warn(msg):
    print("gcovlab: warning: %s" % msg, file=sys.stderr, flush=True)


class Step:
    """Print what a long step does, and how long it took."""

    def __init__(self, what):
        self.what = what
        self.start = None

    def __enter__(self):
        self.start = time.monotonic()
        say("%s ..." % self.what)
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            say("%s: done in %s" % (self.what, seconds(time.monotonic() - self.start)))
        return False


# How long a command stopped at a checkpoint waits for its test's signal.
PAUSE_LIMIT = 600


def checkpoint(name):
    """A named point in a long step where a test can hold the tool.

    With GCOVLAB_PAUSE_AT=NAME in the environment the tool says so on
    stdout and waits there: SIGUSR1 makes it go on, SIGINT (Ctrl-C)
    interrupts it as it would anywhere else.  A test that must interrupt
    a lab switch or a build, or start a second command while a boot holds
    its lock, acts at this point instead of after a guessed delay, so
    that its verdict does not depend on how fast the machine is.  Without
    the variable this does nothing."""
    if os.environ.get("GCOVLAB_PAUSE_AT") != name:
        return
    resumed = []
    old = signal.signal(signal.SIGUSR1, lambda *_: resumed.append(True))
    try:
        say("paused at %s (GCOVLAB_PAUSE_AT): SIGUSR1 goes on, SIGINT stops" % name)
        deadline = time.monotonic() + PAUSE_LIMIT
        while not resumed:
            if time.monotonic() > deadline:
                raise GcovlabError("paused at %s for %d s and no signal came: unset "
                                   "GCOVLAB_PAUSE_AT, which only the tests set" % (
                                       name, PAUSE_LIMIT))
            time.sleep(0.05)
    finally:
        signal.signal(signal.SIGUSR1, old)


def seconds(t):
    if t < 60:
        return "%.1f s" % t
    return "%d min %02d s" % (t // 60, t % 60)


# The Debian package of each program the tool runs (setup.sh installs them).
PACKAGES = {"lcov": "lcov", "genhtml": "lcov", "gcov": "gcc", "gcov-dump": "gcc",
            "gcc": "gcc", "make": "make", "git": "git", "ccache": "ccache",
            "qemu-system-x86_64": "qemu-system-x86", "flex": "flex",
            "bison": "bison", "bc": "bc", "objdump": "binutils"}


def not_installed(program):
    """The GcovlabError for a program that is missing."""
    name = os.path.basename(program)
    package = PACKAGES.get(name)
    return GcovlabError("%s is not installed%s; run ./setup.sh, which installs "
                        "the Debian packages the labs need%s" % (
                            name, " (Debian package %s)" % package if package else "",
                            " (or: sudo apt-get install %s)" % package if package else ""))


def run(cmd, cwd=None, env=None, check=True, capture=False, what=None):
    """Run a command; on failure raise GcovlabError with its output."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, text=True,
                              stdout=subprocess.PIPE if capture else None,
                              stderr=subprocess.STDOUT if capture else None)
    except FileNotFoundError:
        raise not_installed(cmd[0]) from None
    if check and proc.returncode != 0:
        out = ("\n" + tail(proc.stdout, 40)) if capture and proc.stdout else ""
        raise GcovlabError("%s failed (exit %d): %s%s" % (
            what or os.path.basename(cmd[0]), proc.returncode,
            " ".join(cmd), out))
    return proc


def probe(cmd, cwd=None, env=None, stdin=None, text=True, timeout=None):
    """Run a command whose exit status or output is the answer: a non-zero
    exit is not an error (the caller reads returncode); both streams are
    captured.  A missing program still gets not_installed's message; past
    TIMEOUT seconds, subprocess.TimeoutExpired."""
    if cwd is not None and not os.path.isdir(cwd):
        raise GcovlabError("%s: the directory %s does not exist" % (
            os.path.basename(cmd[0]), cwd))
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, input=stdin, text=text,
                              capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise not_installed(cmd[0]) from None


def spawn(cmd, **kwargs):
    """subprocess.Popen, with not_installed's message for a missing program."""
    try:
        return subprocess.Popen(cmd, **kwargs)
    except FileNotFoundError:
        raise not_installed(cmd[0]) from None


def output(cmd, cwd=None, env=None):
    """Return stdout of a command that must succeed."""
    proc = run(cmd, cwd=cwd, env=env, capture=True)
    return proc.stdout


def tail(text, lines):
    parts = text.rstrip("\n").split("\n")
    if len(parts) > lines:
        parts = ["[... %d lines before ...]" % (len(parts) - lines)] + parts[-lines:]
    return "\n".join(parts)


class Lock:
    """A lock file, so that two gcovlab commands (two terminals, or the
    tests and a capture) never build in one directory at once.  Exclusive,
    or with SHARED one that any number of commands hold together and that
    an exclusive holder waits for.  WHAT says what the other command is
    doing when this one has to wait."""

    def __init__(self, path, what, shared=False):
        self.path = path
        self.what = what
        self.mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        self.fd = None

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, self.mode | fcntl.LOCK_NB)
        except BlockingIOError:
            say("waiting for another gcovlab command that is %s ..." % self.what)
            fcntl.flock(self.fd, self.mode)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)
        self.fd = None
        return False

# The file vm/gcovlab leaves in each OUT folder it made (read by run, reset).
OUT_MARKER = ".gcovlab-out"
