# SPDX-License-Identifier: GPL-2.0
"""What the site shows besides text captures, made by tools/pagerun.py
--capture from a lab's results before its HOME goes:

  Lab 0: docs/captures/lab0/report.png, a screenshot (headless Chromium)
         of the basic run's genhtml function list for gcovdemo.c;
  Lab 7: docs/reports/lab7-report/, step 2's lcov HTML report, published
         with the site;
  Lab 11: docs/captures/lab11/table.csv, the reliability chapter's table,
         labs/lab11/summary.py --csv over the page's three runs.

Both with the machine's paths rewritten as in the text captures.
"""

import os
import shutil
import struct
import subprocess
import tempfile
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def copy_normalised(src, dst, normalise):
    shutil.copytree(src, dst)
    for dirpath, _d, files in os.walk(dst):
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = normalise(f.read())
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)


def lab7_report(home, normalise):
    report = os.path.join(REPO, "docs", "reports", "lab7-report")
    shutil.rmtree(report, ignore_errors=True)
    copy_normalised(os.path.join(home, "lab7", "basic", "html"), report, normalise)
    return "docs/reports/lab7-report/"


def lab0_screenshot(home, normalise):
    """The function list fills the top of the window: one screen, no scrolling
    (headless --screenshot cannot scroll)."""
    dest = os.path.join(REPO, "docs", "captures", "lab0", "report.png")
    with tempfile.TemporaryDirectory() as tmp:
        html = os.path.join(tmp, "html")
        copy_normalised(os.path.join(home, "lab0", "basic", "html"), html, normalise)
        shot = [os.path.join(d, n) for d, _s, files in os.walk(html) for n in files
                if n == "gcovdemo.c.func-sort-c.html"]
        if not shot:
            raise RuntimeError("genhtml made no function list for gcovdemo.c in ~/lab0/basic/html")
        if os.path.exists(dest):
            os.remove(dest)
        proc = subprocess.run(
            ["timeout", "120", "chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             "--user-data-dir=" + os.path.join(tmp, "profile"), "--window-size=1200,800",
             "--screenshot=" + dest, "file://" + shot[0]],
            capture_output=True, text=True, check=False)
        if not os.path.exists(dest) or not os.path.getsize(dest):
            raise RuntimeError("headless Chromium made no screenshot of the report:\n" +
                               (proc.stdout + proc.stderr)[-2000:])
    trim_png(dest)
    return "docs/captures/lab0/report.png"


def trim_png(path, margin=24):
    """Cut off the rows below the content that equal the last row."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise RuntimeError("%s is not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise RuntimeError("%s: a PNG layout this trimmer does not read" % path)
    bpp = 4 if ctype == 6 else 3
    stride = w * bpp
    raw = zlib.decompress(idat)
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    last = h - 1
    while last > 0 and rows[last] == rows[h - 1]:
        last -= 1
    keep = min(h, last + 1 + margin)

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))

    with open(path, "wb") as f:
        f.write(data[:8] + chunk(b"IHDR", struct.pack(">IIBBBBB", w, keep, 8, ctype, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows[:keep]), 9)) +
                chunk(b"IEND", b""))


def lab11_table(home, normalise):
    dest = os.path.join(REPO, "docs", "captures", "lab11", "table.csv")
    runs = [("series v2", "v2"), ("series v1 (bug 1 put back)", "v1"),
            ("mainline 6.1", "mainline")]
    proc = subprocess.run(["/usr/bin/python3", os.path.join(REPO, "labs", "lab11", "summary.py"),
                           "--csv"] + ["%s=%s" % (label, os.path.join(home, "lab11", d))
                                       for label, d in runs],
                          capture_output=True, text=True, check=True)
    with open(dest, "w", encoding="utf-8") as f:
        f.write(normalise(proc.stdout))
    return "docs/captures/lab11/table.csv"


MAKERS = {0: lab0_screenshot, 7: lab7_report, 11: lab11_table}
