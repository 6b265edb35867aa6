#!/usr/bin/python3
"""The web page of `attnviz-cli export --format html` in a real browser.

Debian's Chromium, headless and with the network closed, driven through ChromeDriver's WebDriver
protocol (the standard library's HTTP client is enough), loads pages the CLI writes and checks:
no console error and no request for anything outside the file; the tokens in the DOM; heatmaps
drawn; a head switched, a step opened and a cell pointed at, whose value is the trace's within
the precision the page states; a hostile token shown as text, never run. Exit 77 (skipped) when
no browser is installed, saying so.

    page_in_browser.py ATTNVIZ_CLI WORK_DIR [SCREENSHOT_DIR]

A Vision Transformer's page (the bundled shapes) shows [CLS]'s attention over the picture.
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

SKIPPED = 77


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def read_safetensors(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        body = f.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        count = (end - start) // 4
        tensors[name] = (entry["shape"], struct.unpack("<%df" % count, body[start:end]))
    return tensors


def at(tensor, *index):
    shape, values = tensor
    flat = 0
    for i, n in zip(index, shape):
        flat = flat * n + i
    return values[flat]


class Browser:
    """One headless Chromium session through ChromeDriver."""

    def __init__(self, profile):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.driver = subprocess.Popen(["chromedriver", "--port=%d" % port],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = "http://127.0.0.1:%d" % port
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        options = {
            "binary": shutil.which("chromium"),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--disable-quic", "--no-first-run",
                     "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1280,720",
                     "--user-data-dir=" + profile],
        }
        session = self.call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": options,
            "goog:loggingPrefs": {"browser": "ALL"}}}})
        self.session = "/session/" + session["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as e:
            fail("WebDriver %s %s: %s" % (method, path, e.read().decode()[:400]))

    def go(self, url):
        self.call("POST", self.session + "/url", {"url": url})

    def run(self, script, *args):
        return self.call("POST", self.session + "/execute/sync", {"script": script, "args": list(args)})

    def element(self, css):
        found = self.call("POST", self.session + "/element", {"using": "css selector", "value": css})
        return next(iter(found.values()))

    def click(self, css):
        self.call("POST", self.session + "/element/%s/click" % self.element(css), {})

    def point(self, x, y):
        self.call("POST", self.session + "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": "viewport",
                         "x": int(x), "y": int(y)}]}]})

    def keys(self, css, text):
        self.call("POST", self.session + "/element/%s/value" % self.element(css), {"text": text})

    def console(self):
        return self.call("POST", self.session + "/se/log", {"type": "browser"})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", self.session + "/screenshot")))

    def wait(self, script, what):
        for _ in range(200):
            if self.run(script):
                return
            time.sleep(0.05)
        fail("the page never got " + what)

    def close(self):
        try:
            self.call("DELETE", self.session)
        finally:
            self.driver.terminate()
            self.driver.wait()


def export(cli, out, *args):
    result = subprocess.run([cli, "export", *args, "--format", "html", "--out", out, "--quiet"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        fail("attnviz-cli export %s: %s" % (" ".join(args), result.stderr.strip()))
    return os.path.join(out, "lesson.html")


def load(browser, page):
    browser.go("file://" + page)
    browser.wait("return document.body.dataset.ready === 'true' || "
                 "!document.getElementById('problem').hidden", "ready")
    problem = browser.run("const p = document.getElementById('problem'); return p.hidden ? '' : p.textContent")
    if problem:
        fail("the page says: " + problem)
    errors = [e["message"] for e in browser.console() if e.get("level") == "SEVERE"]
    if errors:
        fail("console errors in %s: %s" % (page, errors))
    requests = browser.run("return performance.getEntriesByType('resource').map(e => e.name)")
    if requests:
        fail("the page asked for %s" % requests)


def cell_centre(browser, figure_css, row, column):
    return browser.run("""
        const canvas = document.querySelector(arguments[0] + ' canvas');
        canvas.scrollIntoView({block: 'center'});
        const box = canvas.getBoundingClientRect(), d = canvas.dataset;
        return [box.left + Number(d.left) + (arguments[2] + 0.5) * Number(d.cell),
                box.top + Number(d.top) + (arguments[1] + 0.5) * Number(d.cell)];""",
                       figure_css, row, column)


def check_model_page(browser, cli, work, shots):
    text = "and god said"
    page = export(cli, os.path.join(work, "genesis"), "--model", "genesis", "--text", text)
    trace_file = os.path.join(work, "genesis.safetensors")
    subprocess.run([cli, "trace", "--model", "genesis", "--text", text, "--dump", trace_file,
                    "--quiet"], check=True, capture_output=True)
    trace = read_safetensors(trace_file)
    load(browser, page)

    tokens = browser.run("return [...document.querySelectorAll('#head-view-queries li')].map(e => e.textContent)")
    if len(tokens) != len(text) or tokens[0] != "a":
        fail("head view tokens %s" % tokens)

    # Head view: layer 0 only head 1 (the previous-character head), then query 5.
    browser.run("const s = document.getElementById('head-view-block');"
                "s.value = [...s.options].find(o => o.text.includes(' 0 ')).value;"
                "s.dispatchEvent(new Event('change'));")
    for head in (0, 2, 3):
        browser.click('#head-toggles button[data-head="%d"]' % head)
    pressed = browser.run("return [...document.querySelectorAll('#head-toggles button')].map(b => b.getAttribute('aria-pressed'))")
    if pressed != ["false", "true", "false", "false"]:
        fail("head toggles %s" % pressed)
    browser.run("document.querySelector('#head-view-queries li[data-index=\"5\"]').focus()")
    shown = browser.run("return [...document.querySelectorAll('#head-view-keys li')].map(e => Number(e.dataset.weight))")
    weights = trace["layer0.masked_self.weights"]
    for key in range(len(text)):
        if abs(shown[key] - at(weights, 0, 1, 5, key)) > 1e-4:
            fail("head view: query 5 key %d shows %s, the trace %s" % (key, shown[key], at(weights, 0, 1, 5, key)))
    if max(range(len(text)), key=lambda k: shown[k]) != 4:
        fail("layer 0 head 1 should look at the previous character")
    browser.screenshot(os.path.join(shots, "head-view.png"))

    # Model view: every layer × head drawn; a click opens one.
    browser.click("#tab-model")
    thumbnails = browser.run("return document.querySelectorAll('#model-view canvas').length")
    if thumbnails != 3 * 4:
        fail("model view has %d maps, not 12" % thumbnails)
    browser.click('#model-view canvas[data-layer="2"][data-head="3"]')
    opened = browser.run("const f = document.querySelector('#model-view-open figure'); return f && [f.dataset.layer, f.dataset.head]")
    if opened != ["2", "3"]:
        fail("the model view opened %s" % opened)
    browser.screenshot(os.path.join(shots, "model-view.png"))

    # The walkthrough: → to the scores, point at a cell of head 2.
    browser.click("#tab-steps")
    steps = browser.run("return [...document.querySelectorAll('section.step')].map(s => s.dataset.step)")
    if len(steps) < 10:
        fail("the walkthrough has %d steps: %s" % (len(steps), steps))
    browser.run("document.getElementById('step-next').focus()")
    for _ in range(steps.index("scores")):
        browser.run("document.activeElement.blur()")
        browser.call("POST", browser.session + "/actions", {"actions": [{
            "type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": "\uE014"}, {"type": "keyUp", "value": "\uE014"}]}]})
    visible = browser.run("return document.querySelector('section.step:not([hidden])').dataset.step")
    if visible != "scores":
        fail("→ reached %s, not the scores" % visible)
    figure = 'section.step:not([hidden]) figure[data-head="2"]'
    x, y = cell_centre(browser, figure, 7, 3)
    browser.point(x, y)
    readout = browser.run("return {...document.getElementById('cell-readout').dataset}")
    expected = at(trace["layer0.masked_self.scores"], 0, 2, 7, 3)
    if (readout.get("query"), readout.get("key"), readout.get("step")) != ("7", "3", "scores"):
        fail("the readout is for %s" % readout)
    if abs(float(readout["value"]) - expected) > float(readout["precision"]) * 1.0001 + 1e-9:
        fail("scores[2, 7, 3] reads %s, the trace %s (± %s)" % (readout["value"], expected, readout["precision"]))
    drawn = browser.run("""
        const c = document.querySelector(arguments[0] + ' canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
        return seen.size;""", figure)
    if drawn < 12:
        fail("the scores heatmap has %d colours: not drawn" % drawn)
    browser.screenshot(os.path.join(shots, "walkthrough.png"))

    # On a phone: nothing wider than the screen, in the head view or on a step.
    browser.call("POST", browser.session + "/window/rect", {"width": 390, "height": 844})
    load(browser, page)
    for view in ("heads", "steps"):
        browser.click("#tab-" + view)
        wide = browser.run("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wide > 1:
            fail("the %s view is %d pixels wider than a phone's screen" % (view, wide))
    browser.screenshot(os.path.join(shots, "phone.png"))
    browser.call("POST", browser.session + "/window/rect", {"width": 1280, "height": 720})


def write_import(path, tokens, model):
    """An attention-import file (docs/attention-import.md): one layer of 2 heads, rows of 1/n."""
    n = len(tokens)
    values = struct.pack("<%df" % (2 * n * n), *([1.0 / n] * (2 * n * n)))
    header = json.dumps({"__metadata__": {"tokens": json.dumps(tokens), "model": model},
                         "layer0": {"dtype": "F32", "shape": [2, n, n],
                                    "data_offsets": [0, len(values)]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + values)


def check_hostile_page(browser, cli, work):
    hostile = "</script><img src=x onerror=document.title='run'>"
    source = os.path.join(work, "hostile.safetensors")
    write_import(source, ["a", hostile, "<!--", "{{title}}", "b"], hostile)
    page = export(cli, os.path.join(work, "hostile"), "--attentions", source)
    load(browser, page)
    if browser.run("return document.querySelectorAll('img').length") != 0:
        fail("a token became an image")
    if browser.run("return document.title") == "run":
        fail("a token's script ran")
    tokens = browser.run("return [...document.querySelectorAll('#head-view-keys li')].map(e => e.textContent)")
    if tokens != ["a", hostile, "<!--", "{{title}}", "b"]:
        fail("the tokens are not shown as written: %r" % tokens)
    title = browser.run("return document.getElementById('title').textContent")
    if hostile not in title:
        fail("the title does not show the model's name as written: %r" % title)


def check_picture_page(browser, cli, work, shots, models):
    """The bundled ViT: [CLS]'s row over the picture, most of it on the ring's patches."""
    examples = os.path.join(models, "shapes", "examples")
    page = export(cli, os.path.join(work, "shapes"), "--model", "shapes", "--image",
                  os.path.join(examples, "ring.png"), "--layers", "3")
    load(browser, page)
    if browser.run("return document.getElementById('tab-picture').hidden"):
        fail("a ViT's page has no picture view")
    browser.click("#tab-picture")
    browser.wait("return Number(document.getElementById('picture-canvas').dataset.largest) > 0",
                 "its picture drawn")
    # The brightest patch of layer 3's mean row is one the ring covers (examples/shapes.json).
    ring = json.load(open(os.path.join(examples, "shapes.json")))["pictures"]["ring.png"]["shape_patches"]
    brightest = int(browser.run("return document.getElementById('picture-canvas').dataset.brightest"))
    if brightest not in ring:
        fail("[CLS] looks most at patch %d, not at the ring's %s" % (brightest, ring))
    browser.screenshot(os.path.join(shots, "picture.png"))

def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    cli, work = sys.argv[1], sys.argv[2]
    shots = sys.argv[3] if len(sys.argv) > 3 else work
    # The bundled models, beside the CLI in the build (share/attnviz/models).
    models = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(cli))), "share", "attnviz", "models")
    missing = [tool for tool in ("chromium", "chromedriver") if not shutil.which(tool)]
    if missing:
        print("SKIPPED: %s not installed (tools/install-deps.sh installs Debian's chromium and "
              "chromium-driver)" % " and ".join(missing))
        return SKIPPED
    shutil.rmtree(work, ignore_errors=True)  # the pages of an earlier run
    os.makedirs(work)
    os.makedirs(shots, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        browser = Browser(profile)
        try:
            check_model_page(browser, cli, work, shots)
            check_hostile_page(browser, cli, work)
            check_picture_page(browser, cli, work, shots, models)
        finally:
            browser.close()
    print("the page works in %s" % subprocess.run(["chromium", "--version"], capture_output=True,
                                                   text=True).stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
