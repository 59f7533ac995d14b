# SPDX-License-Identifier: GPL-2.0
"""Build the Sphinx site and check every page in headless Chromium.

Used by tests/test_docs.py, and on its own:

    /usr/bin/python3 tests/pagecheck.py                  # build, check
    /usr/bin/python3 tests/pagecheck.py --site _build/html
    /usr/bin/python3 tests/pagecheck.py --screenshot /tmp/shots

A page passes when Chromium logs no SEVERE console entry, every image,
object, embed, stylesheet, script and font it asks for loads from the local
server (and nothing is fetched from anywhere else), every local asset named
in its HTML exists on disk, and pages listed in DIAGRAM_PAGES show a
rendered Graphviz SVG.  Everything is bounded: the server runs on
127.0.0.1 for the duration of the check, and page loads time out.
"""

import argparse
import contextlib
import functools
import html.parser
import importlib.util
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

# Sphinx's generated pages are not site content.
SKIP_PAGES = {"search.html", "genindex.html", "py-modindex.html"}

# page -> how many Graphviz diagrams it must show at least
DIAGRAM_PAGES = {"docs/lab-loop.html": 1, "docs/counter-reordering.html": 2,
                 "docs/debugfs-persistence.html": 1, "docs/gcc-instrumentation.html": 1,
                 "docs/gcov-info-layout.html": 2, "docs/kbuild-gcov.html": 1,
                 "docs/lineage.html": 1, "docs/reliability.html": 2}

# The Performance page draws one chart per benchmark data file
# (docs/bench/*.json, docs/_ext/benchsite.py), inline SVG.
BENCH_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "docs", "bench")


def plot_pages():
    """Each data file with timed series is a chart; kunit-uml.json (tables
    only, on the KUnit chapter) has rows instead."""
    count = 0
    try:
        names = [f for f in os.listdir(BENCH_DATA) if f.endswith(".json")]
    except OSError:
        names = []
    for name in names:
        with open(os.path.join(BENCH_DATA, name), encoding="utf-8") as f:
            count += "series" in json.load(f)
    return {"docs/performance.html": count}

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    # Nothing but the local server resolves: the check never reaches the
    # network, and a page that asks for a remote asset fails loudly.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]

PAGE_TIMEOUT = 30  # seconds per page load


def build_site(outdir):
    """Run the same Sphinx build as CI; return the CompletedProcess."""
    cmd = [PYTHON, "-m", "sphinx", "-W", "--keep-going", "-b", "html",
           ".", outdir]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def html_pages(site):
    """Relative paths of the content pages, sorted."""
    pages = []
    for root, dirs, files in os.walk(site):
        dirs[:] = [d for d in dirs if not d.startswith("_")]
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), site)
            if name.endswith(".html") and rel not in SKIP_PAGES:
                pages.append(rel.replace(os.sep, "/"))
    return sorted(pages)


# --- static checks: read the HTML and CSS, no browser ------------------------

class _AssetParser(html.parser.HTMLParser):
    """Collect the URLs a page loads (not the ones it merely links to)."""

    def __init__(self):
        super().__init__()
        self.assets = []   # (kind, url)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("img", "script", "embed", "source", "iframe") and a.get("src"):
            self.assets.append((tag, a["src"]))
        elif tag == "object" and a.get("data"):
            self.assets.append((tag, a["data"]))
        elif tag == "link" and a.get("href"):
            rel = (a.get("rel") or "").split()
            if {"stylesheet", "icon", "preload"} & set(rel):
                self.assets.append(("link", a["href"]))


_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)""")


def _is_remote(url):
    return bool(urllib.parse.urlsplit(url).scheme) or url.startswith("//")


def _local_path(base_file, url):
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    return os.path.normpath(os.path.join(os.path.dirname(base_file), path))


def static_problems(site, page):
    """Assets named in the page (and its local stylesheets) that are remote
    or missing on disk."""
    problems = []
    page_file = os.path.join(site, page)
    parser = _AssetParser()
    with open(page_file, encoding="utf-8") as f:
        parser.feed(f.read())
    for kind, url in parser.assets:
        if url.startswith("data:"):
            continue
        if _is_remote(url):
            problems.append("%s: remote %s asset %s" % (page, kind, url))
            continue
        path = _local_path(page_file, url)
        if not os.path.isfile(path):
            problems.append("%s: %s asset %s: no such file" % (page, kind, url))
        elif path.endswith(".css"):
            problems += _css_problems(site, path)
    return problems


@functools.lru_cache(maxsize=None)
def _css_problems_cached(site, css):
    problems = []
    with open(css, encoding="utf-8") as f:
        text = f.read()
    rel = os.path.relpath(css, site)
    for url in sorted(set(_CSS_URL.findall(text))):
        if url.startswith("data:"):
            continue
        if _is_remote(url):
            problems.append("%s: remote url(%s)" % (rel, url))
        elif not os.path.isfile(_local_path(css, url)):
            problems.append("%s: url(%s): no such file" % (rel, url))
    return tuple(problems)


def _css_problems(site, css):
    return list(_css_problems_cached(site, css))


# --- the local web server -------------------------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def log_request(self, code="-", size="-"):
        self.server.requests.append((self.path, int(code)))


@contextlib.contextmanager
def serve(site):
    """Serve SITE on 127.0.0.1 (a free port) while the block runs."""
    handler = functools.partial(_QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever,
                              kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# --- the browser ----------------------------------------------------------

def browser_missing():
    """Why the browser check cannot run here, or None if it can."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return "%s is not installed (Debian packages chromium, chromium-driver)" % path
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not importable (Debian package python3-selenium)"
    return None


@contextlib.contextmanager
def chromium():
    """A headless Chromium with a fresh profile, quit when the block ends."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="pagecheck-profile-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + ["--user-data-dir=" + profile,
                                  "--window-size=1280,900"]:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = None
    try:
        # selenium talks to chromedriver at "localhost": say so plainly if
        # this machine cannot resolve that name (no /etc/hosts entry).
        try:
            socket.getaddrinfo("localhost", None)
        except socket.gaierror:
            raise RuntimeError("'localhost' does not resolve on this machine, so "
                               "selenium cannot reach chromedriver: add "
                               "'127.0.0.1 localhost' to /etc/hosts")
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
        driver.set_page_load_timeout(PAGE_TIMEOUT)
        driver.set_script_timeout(PAGE_TIMEOUT)
        yield driver
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


# Runs in the page once it has loaded; returns what did not.
_PAGE_JS = r"""
const done = arguments[arguments.length - 1];
(async () => {
  await document.fonts.ready;
  // An <object>'s SVG can still be on its way when a loaded, busy machine
  // runs this (once, in a warm make check): wait for each up to 10 s
  // before judging; one that never shows is still reported below.
  const svgShown = o => {
    try {
      const d = o.getSVGDocument ? o.getSVGDocument() : o.contentDocument;
      return !!d && !!d.documentElement && d.documentElement.localName === 'svg';
    } catch (e) { return false; }
  };
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline &&
         ![...document.querySelectorAll('object, embed')].every(svgShown))
    await new Promise(res => setTimeout(res, 100));
  const r = {images: [], sheets: [], fonts: [], resources: [], svgs: []};
  for (const img of document.images)
    if (!img.complete || img.naturalWidth === 0) r.images.push(img.src);
  for (const l of document.querySelectorAll('link[rel~="stylesheet"]'))
    if (!l.sheet) r.sheets.push(l.href);
  for (const f of document.fonts)
    if (f.status === 'error') r.fonts.push(f.family);
  for (const e of performance.getEntriesByType('resource'))
    r.resources.push({name: e.name, status: e.responseStatus === undefined ? -1 : e.responseStatus});
  for (const o of document.querySelectorAll('object, embed')) {
    const src = o.data || o.src;
    let doc = null;
    try { doc = o.getSVGDocument ? o.getSVGDocument() : o.contentDocument; }
    catch (e) { doc = null; }
    const root = doc && doc.documentElement;
    const box = o.getBoundingClientRect();
    r.svgs.push({src: src, graphviz: o.classList.contains('graphviz'),
                 svg: !!root && root.localName === 'svg',
                 nodes: root ? root.querySelectorAll('g.node').length : 0,
                 width: box.width, height: box.height});
  }
  r.plots = [...document.querySelectorAll('div.bench-plot > svg')].map(s => {
    const b = s.getBoundingClientRect();
    return {width: b.width, height: b.height, bars: s.querySelectorAll('path, line').length};
  });
  r.scripts = [...document.scripts].filter(s => s.src).map(s => s.src);
  r.origin = location.origin;
  return r;
})().then(done, e => done({error: String(e)}));
"""


def browser_problems(driver, base_url, page):
    """Load PAGE and return a list of what went wrong."""
    url = base_url + page
    problems = []
    driver.get_log("browser")  # drop anything left from before
    driver.get(url)
    r = driver.execute_async_script(_PAGE_JS)
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            problems.append("%s: console: %s" % (page, entry.get("message")))
    if "error" in r:
        return problems + ["%s: page check script failed: %s" % (page, r["error"])]
    for src in r["images"]:
        problems.append("%s: image did not load: %s" % (page, src))
    for href in r["sheets"]:
        problems.append("%s: stylesheet did not load: %s" % (page, href))
    for family in r["fonts"]:
        problems.append("%s: font did not load: %s" % (page, family))
    loaded = {}
    for e in r["resources"]:
        loaded[e["name"]] = e["status"]
        if not e["name"].startswith(r["origin"] + "/"):
            problems.append("%s: fetched from outside the site: %s" % (page, e["name"]))
        elif e["status"] == 0 or e["status"] >= 400:
            problems.append("%s: HTTP %s for %s" % (page, e["status"], e["name"]))
    for src in r["scripts"]:
        if src not in loaded:
            problems.append("%s: script was never fetched: %s" % (page, src))
    for o in r["svgs"]:
        if not o["svg"] or o["width"] <= 0 or o["height"] <= 0:
            problems.append("%s: object/embed shows no SVG: %s" % (page, o["src"]))
    want = DIAGRAM_PAGES.get(page, 0)
    have = sum(1 for o in r["svgs"] if o["graphviz"] and o["svg"] and o["nodes"] > 0)
    if have < want:
        problems.append("%s: expected %d rendered Graphviz SVG diagram(s), found %d"
                        % (page, want, have))
    want = plot_pages().get(page, 0)
    have = sum(1 for p in r["plots"] if p["width"] > 0 and p["height"] > 0 and p["bars"] > 0)
    if have < want:
        problems.append("%s: expected %d drawn benchmark chart(s), found %d"
                        % (page, want, have))
    return problems


def screenshot(driver, path):
    """Save the whole current page (up to 8000 px tall) as a PNG."""
    height = driver.execute_script(
        "return Math.max(document.body.scrollHeight,"
        " document.documentElement.scrollHeight)")
    driver.set_window_size(1280, min(max(int(height), 600), 8000))
    try:
        driver.save_screenshot(path)
    finally:
        driver.set_window_size(1280, 900)


def check_site(site, shots=None):
    """Check every page of a built site; return (pages, problems)."""
    pages = html_pages(site)
    problems = []
    for page in pages:
        problems += static_problems(site, page)
    with serve(site) as server, chromium() as driver:
        base = "http://127.0.0.1:%d/" % server.server_address[1]
        for page in pages:
            problems += browser_problems(driver, base, page)
            if shots:
                name = page[:-len(".html")].replace("/", "_") + ".png"
                screenshot(driver, os.path.join(shots, name))
        for path, code in server.requests:
            if code >= 400:
                problems.append("server: HTTP %d for %s" % (code, path))
    return pages, problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", help="an already built site (default: build one)")
    ap.add_argument("--screenshot", metavar="DIR",
                    help="also save a full-page PNG of every page in DIR")
    args = ap.parse_args(argv)

    why = browser_missing()
    if why:
        print("pagecheck: cannot run:", why, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pagecheck-site-") as tmp:
        site = args.site
        if not site:
            site = os.path.join(tmp, "html")
            res = build_site(site)
            if res.returncode != 0:
                sys.stderr.write(res.stdout + res.stderr)
                print("pagecheck: the Sphinx build failed", file=sys.stderr)
                return 1
        if args.screenshot:
            os.makedirs(args.screenshot, exist_ok=True)
        pages, problems = check_site(site, args.screenshot)
    for p in problems:
        print(p)
    print("pagecheck: %d pages, %d problems" % (len(pages), len(problems)))
    if args.screenshot:
        print("pagecheck: screenshots in", args.screenshot)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
