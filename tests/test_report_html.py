"""`lantern report --html`: the page, loaded in headless Chromium, renders Table 3/4/6 and decodes every plot.

Scores a small synthetic set of bags, runs the real `lantern report --html`,
and reads the DOM Chromium rendered (``--dump-dom``). A copy of the page gets
a tiny script that, once the page has loaded, writes each image's decode state
and natural size into the DOM, so the dump says whether the embedded PNGs
decoded. Skipped only when Chromium is missing outside CI (``CI`` set: a
missing Chromium fails; ``scripts/test.sh`` installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lantern_eval.report import TABLE3_COLS, TABLE4_COLS, TABLE6_COLS, score_main
from lantern_eval.synthetic import SyntheticConfig, generate, write_bag
from lantern_eval.telemetry import resolve_warning_key

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IMG_PROBE = """<script>
window.addEventListener("load", () => {  // the load event waits for every image
  const out = [];
  for (const img of document.images) {
    let ok = img.complete && img.naturalWidth > 0 ? "decoded" : "broken", opaque = 0, ink = 0, n = 0;
    try {
      const c = document.createElement("canvas");
      c.width = img.naturalWidth; c.height = img.naturalHeight;
      const g = c.getContext("2d"); g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < d.length; i += 4) { n++; if (d[i + 3] === 255) opaque++; if (d[i] + d[i + 1] + d[i + 2] < 600) ink++; }
    } catch (e) { ok = "undrawable"; }
    out.push(`${ok}:${img.naturalWidth}x${img.naturalHeight}:${n ? opaque / n : 0}:${n ? ink / n : 0}`);
  }
  const p = document.createElement("p"); p.id = "img-probe"; p.textContent = out.join(" "); document.body.appendChild(p);
});
</script>"""


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (scripts/test.sh installs Debian's chromium; in CI this test must run)")
        pytest.skip("chromium is not installed (apt-get install chromium, or run scripts/test.sh)")
    return exe


class _Dom(HTMLParser):
    """Tables (id -> rows of (row label, {data-col: text})) and the image probe of a dumped DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[tuple[str, dict[str, str]]]] = {}
        self.probe = ""
        self.n_img = 0
        self._table: str | None = None
        self._row: tuple[str, dict[str, str]] | None = None
        self._cell: str | None = None  # data-col of the open <td>, "" for the row header
        self._text = ""
        self._in_probe = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("id") or ""
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None and "data-model" in a:
            self._row = (a["data-model"] or "", {})
        elif tag in ("td", "th") and self._row is not None:
            self._cell, self._text = (a.get("data-col") or "") if tag == "td" else "", ""
        elif tag == "p" and a.get("id") == "img-probe":
            self._in_probe = True
        elif tag == "img":
            self.n_img += 1

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._text += data
        if self._in_probe:
            self.probe += data

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            if self._cell:
                self._row[1][self._cell] = self._text.strip()
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "p":
            self._in_probe = False


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two pairs of one agent (warning run that brakes early, no-warning run that hits the walker) and its Route B, scored."""
    root = tmp_path_factory.mktemp("html")
    key = resolve_warning_key().key
    for c in (
        SyntheticConfig(agent="coop", warning_key=key),
        SyntheticConfig(agent="coop", condition="no-warning", responds_at=None, react_after_event=None, collide=True),
        SyntheticConfig(agent="coop", route_kind="B"),
    ):
        write_bag(generate(c), root / "bags" / f"{c.route_kind}_{c.condition}", c.metadata())
    assert score_main([str(root / "bags"), "--out", str(root / "out")]) == 0
    return root / "out"


def test_lantern_report_html_renders_the_tables_and_decodes_the_plots_in_chromium(scored: Path) -> None:
    exe = chromium()
    lantern = Path(sys.executable).with_name("lantern")
    cmd = [str(lantern)] if lantern.is_file() else [sys.executable, "-m", "lantern"]
    p = subprocess.run([*cmd, "report", str(scored), "--html"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    page = scored / "report.html"
    text = page.read_text()
    # self-contained: nothing fetched from anywhere (no script, style sheet, font or image outside the file)
    assert "<script" not in text and "<link" not in text and "@import" not in text and "url(" not in text
    assert 'src="data:image/png;base64,' in text and "src=\"http" not in text and "src=\"file" not in text

    probe_copy = scored / "probe.html"
    probe_copy.write_text(text.replace("</body>", IMG_PROBE + "</body>"))
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000", "--dump-dom", probe_copy.as_uri()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    dom = _Dom()
    dom.feed(r.stdout)

    summary = json.loads((scored / "summary.json").read_text())
    t3 = dom.tables["table3"]
    assert [m for m, _ in t3] == ["coop (warning)", "coop (no-warning)", "coop warning gain (paired)"]  # the gain follows its no-warning row
    rows3 = dict(t3)
    assert set(rows3["coop (warning)"]) == set(TABLE3_COLS)
    # the no-warning run hits the walker: collision gate -> CUS 0 on its one scored pair; empty families show "–"
    assert rows3["coop (no-warning)"]["PE"] == "0.0 (1/1)" and rows3["coop (no-warning)"]["Overall"] == "0.0 (1/1)"
    assert rows3["coop (no-warning)"]["VC"] == "–"
    cus_w = summary["table3"]["coop (warning)"]["PE"]
    assert 50.0 < cus_w <= 100.0  # a clean, early-braking run
    assert rows3["coop (warning)"]["PE"] == f"{cus_w:.1f} (1/1)"
    assert rows3["coop warning gain (paired)"]["PE"] == f"{cus_w - 0.0:+.1f}"

    rows4 = dict(dom.tables["table4"])
    assert set(rows4) == {"coop (no-warning)", "coop (warning)"} and set(rows4["coop (warning)"]) == {*TABLE4_COLS, "n"}
    assert (rows4["coop (no-warning)"]["Coll.-A"], rows4["coop (no-warning)"]["Gate Pass"]) == ("100.0", "0.0")
    assert (rows4["coop (warning)"]["Coll.-A"], rows4["coop (warning)"]["Gate Pass"]) == ("0.0", "100.0")
    assert rows4["coop (warning)"]["A-Prog."] == "100.0" and rows4["coop (warning)"]["n"] == "1/1"
    assert rows4["coop (warning)"]["TTC"] == f"{summary['table4']['coop (warning)']['TTC']:.1f}"

    rows6 = dict(dom.tables["table6"])
    assert set(rows6["coop (warning)"]) == {*TABLE6_COLS, "n"}
    assert rows6["coop (warning)"]["CUS"] == f"{cus_w:.1f}" and rows6["coop (no-warning)"]["CUS"] == "0.0"
    assert rows6["coop (warning)"]["Event Exp."] == "100.0" and rows6["coop (no-warning)"]["Event Exp."] == "100.0"

    # every plot decoded whole: the family bars and one timeline per pair (2), at the size of the PNG files drawn,
    # every pixel opaque (matplotlib's white background; a truncated PNG leaves transparent rows) and some ink drawn
    shots = [s.split(":") for s in dom.probe.split()]
    assert dom.n_img == 3 and len(shots) == 3, dom.probe
    assert all(s[0] == "decoded" and float(s[2]) == 1.0 and float(s[3]) > 0.01 for s in shots), dom.probe
    sizes = [tuple(int(v) for v in s[1].split("x")) for s in shots]
    assert sizes[0] == png_size(scored / "plots" / "family_cus_bars.png")
    timelines = sorted(png_size(f) for f in (scored / "plots" / "timelines").glob("*.png"))
    assert len(timelines) == 2 and sorted(sizes[1:]) == timelines
