# SPDX-License-Identifier: GPL-2.0
"""The guest: a busybox initramfs, a QEMU boot with a timeout, the transfer.

The console (ttyS0) goes to console.log; the data channel (ttyS1, see
vm/init.sh for the protocol) goes to transfer.log.  Nothing the guest
sends is trusted: sizes, checksums and paths are checked on the host.
"""

import base64
import binascii
import hashlib
import io
import json
import os
import signal
import stat
import struct
import subprocess
import tarfile
import time
import zlib

from .util import GcovlabError, EXIT_TIMEOUT, checkpoint, say, seconds, spawn, tail, warn
from .work import VM

BUSYBOX = "/bin/busybox"
QEMU = "qemu-system-x86_64"
APPEND = "console=ttyS0 panic=-1 rdinit=/init"


# ---------------------------------------------------------------- initramfs

class Cpio:
    """A 'newc' cpio archive, written without root and without cpio(1)."""

    def __init__(self):
        self.parts = []
        self.ino = 1

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        name_b = name.encode() + b"\0"
        hdr = b"070701" + b"".join(b"%08X" % v for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
            len(name_b), 0))
        self.ino += 1
        self.parts.append(hdr + name_b)
        self.parts.append(b"\0" * (-(110 + len(name_b)) % 4))
        self.parts.append(data)
        self.parts.append(b"\0" * (-len(data) % 4))

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, data, mode=0o644):
        self._entry(name, stat.S_IFREG | mode, data)

    def chardev(self, name, major, minor, mode=0o600):
        self._entry(name, stat.S_IFCHR | mode, rdev=(major, minor))

    def bytes(self):
        self._entry("TRAILER!!!", 0)
        return b"".join(self.parts)


def check_static(path):
    """busybox must be the static build: the initramfs has no libc."""
    try:
        with open(path, "rb") as f:
            elf = f.read(1 << 16)
    except OSError:
        raise GcovlabError("%s not found: install busybox-static "
                           "(apt-get install busybox-static; ./setup.sh does this)" % path)
    if elf[:5] != b"\x7fELF\x02":
        raise GcovlabError("%s is not a 64-bit ELF program" % path)
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        ptype, = struct.unpack_from("<I", elf, phoff + i * phentsize)
        if ptype == 3:  # PT_INTERP: dynamically linked
            raise GcovlabError("%s is dynamically linked; the guest has no C "
                               "library.  Install busybox-static (it replaces "
                               "Debian's busybox): apt-get install busybox-static" % path)


def initramfs(path, workload, kos, files=()):
    check_static(BUSYBOX)
    c = Cpio()
    for d in ("bin", "dev", "etc", "proc", "root", "sys", "tmp", "work"):
        c.dir(d)
    c.chardev("dev/console", 5, 1)
    with open(os.path.join(VM, "init.sh"), "rb") as f:
        c.file("init", f.read(), 0o755)
    with open(BUSYBOX, "rb") as f:
        c.file("bin/busybox", f.read(), 0o755)
    # nobody: for workloads that check what an unprivileged reader may do
    # (busybox su -s /bin/sh nobody -c ...).
    c.file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n"
           b"nobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n")
    c.file("etc/group", b"root:x:0:\nnogroup:x:65534:\n")
    with open(workload, "rb") as f:
        c.file("work/workload.sh", f.read(), 0o755)
    for ko in kos:
        with open(ko, "rb") as f:
            c.file("work/" + os.path.basename(ko), f.read())
    for extra in files:
        with open(extra, "rb") as f:
            c.file("work/" + os.path.basename(extra), f.read(),
                   0o755 if os.access(extra, os.X_OK) else 0o644)
    with open(path, "wb") as f:
        f.write(c.bytes())


# ---------------------------------------------------------------- QEMU

def smp_topology(cpus):
    """QEMU's -smp for CPUS vCPUs: one socket each.  Lab 10's SMP kernel
    has no ACPI (vm/smp.config) and finds its CPUs in the MP table, where
    SeaBIOS lists only the first logical CPU of each package: with QEMU's
    default topology for "-smp 2" (one socket, two cores) it brings up one
    CPU.  (The debug kernels have ACPI's MADT too, and boot the same.)"""
    if cpus <= 1:
        return "1"
    return "%d,sockets=%d,cores=1,threads=1" % (cpus, cpus)


def qemu_cmd(kernel, initrd, console, transfer, accel, memory="256M", append="", cpus=1):
    if cpus > 1 and accel == "tcg":
        # One host thread per vCPU, so that they really run at once (as
        # many at a time as the host has cores).
        accel = "tcg,thread=multi"
    return [QEMU, "-accel", accel, "-m", memory, "-smp", smp_topology(cpus),
            "-nodefaults", "-no-reboot", "-display", "none",
            "-kernel", kernel, "-initrd", initrd,
            "-append", (APPEND + " " + append) if append else APPEND,
            "-serial", "file:" + console, "-serial", "file:" + transfer]


def boot(kernel, initrd, outdir, accel="tcg", timeout=120, append="", cpus=1):
    """Boot once; return the parsed transfer.  Raises on timeout."""
    console = os.path.join(outdir, "console.log")
    transfer = os.path.join(outdir, "transfer.log")
    for p in (console, transfer):
        if os.path.exists(p):
            os.remove(p)
    cmd = qemu_cmd(kernel, initrd, console, transfer, accel, append=append, cpus=cpus)
    start = time.monotonic()
    say("booting %s under %s%s (timeout %d s)%s ..." % (
        os.path.basename(kernel), accel.upper(),
        ", %d vCPUs" % cpus if cpus > 1 else "", timeout,
        ", kernel parameters: " + append if append else ""))
    proc = spawn(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                 stderr=subprocess.STDOUT, start_new_session=True)
    try:
        checkpoint("boot")      # the guest runs, build/ is in use
        out, _ = proc.communicate(timeout=timeout)
    except KeyboardInterrupt:
        # QEMU runs in its own session: stop it too, or it outlives us.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise GcovlabError(
            "the guest did not finish within %d s, so the VM was stopped.  "
            "Does the workload wait for something that never happens?  The "
            "console log is kept: %s\nIts last lines:\n%s\n"
            "(Give a slow workload more time with --timeout SECONDS.)" %
            (timeout, console, tail(read_text(console), 15)), code=EXIT_TIMEOUT)
    took = time.monotonic() - start
    if proc.returncode != 0:
        raise GcovlabError("QEMU failed (exit %d): %s\n%s" % (
            proc.returncode, " ".join(cmd), tail(out.decode(errors="replace"), 20)))
    say("guest finished in %s" % seconds(took))
    return parse_transfer(read_bytes(transfer), console)


def read_bytes(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def safe_rel(rel):
    parts = rel.split("/")
    return rel and not rel.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def _decode(rel, chunks):
    try:
        return base64.b64decode("".join(chunks), validate=True)
    except binascii.Error:
        raise GcovlabError("%s arrived damaged (not valid base64)" % rel) from None


def _check(rel, data, size, digest):
    got = hashlib.sha256(data).hexdigest()
    if len(data) != size or got != digest:
        raise GcovlabError(
            "%s arrived damaged: the guest sent %s bytes with sha256 %s, "
            "the host got %d bytes with sha256 %s" % (rel, size, digest, len(data), got))


def _listed_rel(name):
    """A path as find prints it below gcov/ ('./a/b.gcda'), checked."""
    rel = name[2:] if name.startswith("./") else name
    if not safe_rel(rel):
        raise GcovlabError("the guest sent a file with an unsafe path %r" % name)
    return rel


def _unpack(archive, sizes, sums):
    """The archive's regular files, each checked against both lists."""
    if set(sizes) != set(sums):
        raise GcovlabError("the guest's lists of sizes and of sha256 name different "
                           "files (the data channel was cut?)")
    files = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            for member in tar:
                if member.isdir():
                    continue
                rel = _listed_rel(member.name)
                if not member.isfile():
                    raise GcovlabError("the guest's archive holds %s, which is not a "
                                       "regular file" % rel)
                if rel not in sizes:
                    raise GcovlabError("the guest's archive holds %s, which its lists "
                                       "do not name" % rel)
                if rel in files:
                    raise GcovlabError("the guest's archive holds %s twice" % rel)
                # the size is checked before anything is read: a damaged
                # header cannot make the host read gigabytes
                if member.size != sizes[rel]:
                    raise GcovlabError(
                        "%s arrived damaged: the guest listed %d bytes, its archive "
                        "holds %d" % (rel, sizes[rel], member.size))
                data = tar.extractfile(member).read()
                _check(rel, data, sizes[rel], sums[rel])
                files[rel] = data
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise GcovlabError("the guest's archive of .gcda files arrived damaged "
                           "(%s)" % e) from None
    missing = sorted(set(sizes) - set(files))
    if missing:
        raise GcovlabError("the guest listed %d files that are not in its archive, "
                           "the first %s" % (len(missing), missing[0]))
    return files


def parse_transfer(data, console):
    """Decode the data channel; check every size and checksum.

    The guest sends either one archive of every .gcda file, as raw bytes,
    with a list of their sizes and one of their sha256, or (when a file
    could not be read whole) each file on its own, in base64.  See
    vm/init.sh for the records.  DATA is the channel's bytes (a str is
    taken as UTF-8).
    """
    if isinstance(data, str):
        data = data.encode()
    got = {"status": None, "done": None, "found": None, "archive": None}
    files = {}
    sizes, sums = {}, {}
    pos = 0             # where the next line starts in DATA

    def next_line():
        nonlocal pos
        end = data.find(b"\n", pos)
        if end < 0:
            end = len(data)
        line = data[pos:end].decode("utf-8", errors="replace").rstrip("\r")
        pos = end + 1
        return line

    def block():
        body = []
        while pos < len(data):
            line = next_line()
            if line == "GCOVLAB-END":
                break
            body.append(line)
        return body

    def raw(size):
        """SIZE bytes as they came, then the end of their record."""
        nonlocal pos
        trailer = b"\nGCOVLAB-END"
        if len(data) < pos + size + len(trailer) and \
                trailer.startswith(data[pos + size:]):
            pos = len(data)     # cut off: the guest stopped while sending
            return None
        body = data[pos:pos + size]
        pos += size
        if data[pos:pos + 1] != b"\n" or next_line() != "" or \
                next_line() != "GCOVLAB-END":
            raise GcovlabError("the guest's data channel is damaged: the archive "
                               "announced as %d bytes is not followed by GCOVLAB-END "
                               "(see transfer.log next to %s)" % (size, console))
        return body

    def record(line):
        if line.startswith("GCOVLAB-STATUS "):
            got["status"] = int(line.split()[1])
        elif line.startswith("GCOVLAB-DONE "):
            numbers = [int(n) for n in line.split()[1:]]
            got["done"] = numbers[0]
            got["found"] = numbers[1] if len(numbers) > 1 else None
        elif line.startswith("GCOVLAB-FILE "):
            _tag, size, digest, rel = line.split(" ", 3)
            chunks = block()
            if not safe_rel(rel):
                raise GcovlabError("the guest sent a file with an unsafe path %r" % rel)
            if rel in files:
                raise GcovlabError("the guest sent %s twice" % rel)
            body = _decode(rel, chunks)
            _check(rel, body, int(size), digest)
            files[rel] = body
        elif line.startswith("GCOVLAB-ARCHIVE "):
            _tag, size, digest = line.split(" ")
            name = "the archive of .gcda files"
            if int(size) < 0:
                raise ValueError("negative size")
            body = raw(int(size))
            if body is not None:
                _check(name, body, int(size), digest)
                got["archive"] = body
        elif line == "GCOVLAB-SIZES":
            for entry in block():
                size, name = entry.split(" ", 1)
                sizes[_listed_rel(name)] = int(size)
        elif line == "GCOVLAB-SHA256":
            for entry in block():
                digest, name = entry.split("  ", 1)
                sums[_listed_rel(name)] = digest

    while pos < len(data):
        first = pos
        line = next_line()
        try:
            record(line)
        except (ValueError, IndexError):
            raise GcovlabError("the guest's data channel is damaged: line %d does not "
                               "parse: %r (see transfer.log next to %s)" % (
                                   data.count(b"\n", 0, first) + 1, line[:120],
                                   console)) from None
    status, done, found = got["status"], got["done"], got["found"]
    if status is None or done is None:
        raise GcovlabError(
            "the guest stopped before it %s (a kernel panic, or /init failed?).  "
            "The console log is kept: %s\nIts last lines:\n%s" % (
                "ran the workload" if status is None else "sent all coverage data",
                console, tail(read_text(console), 20)))
    if got["archive"] is not None:
        if files:
            raise GcovlabError("the guest sent an archive and single files as well: "
                               "one transfer mixes both ways (a damaged vm/init.sh?)")
        files = _unpack(got["archive"], sizes, sums)
    if done != len(files):
        raise GcovlabError("the guest sent %d files but announced %d" % (len(files), done))
    if found is not None and found > done:
        warn("the guest found %d .gcda files but could read only %d: the others are "
             "missing from the results (see the console log: %s)" % (found, done, console))
    return status, files


def probe_kvm(kernel, initrd, outdir, cache):
    """A bounded boot under KVM; TCG unless it completes in time."""
    key = "%s %d" % (kernel, int(os.stat(kernel).st_mtime))
    try:
        with open(cache, encoding="utf-8") as f:
            known = json.load(f)
        if known.get("key") == key:
            return known["accel"]
    except (OSError, ValueError, KeyError):
        pass
    accel = "tcg"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        say("probing KVM with a 30 s bounded boot ...")
        try:
            boot(kernel, initrd, outdir, accel="kvm", timeout=30)
            accel = "kvm"
        except GcovlabError as e:
            first = str(e).split("\n")[0]
            if e.code == EXIT_TIMEOUT:
                first = "a boot under KVM did not finish within 30 s"
            warn("KVM probe failed (%s); using TCG for this kernel.  The probe's "
                 "console log: %s" % (first, os.path.join(outdir, "console.log")))
    else:
        say("/dev/kvm is not usable here: using TCG")
    with open(cache, "w", encoding="utf-8") as f:
        json.dump({"key": key, "accel": accel}, f)
    return accel
