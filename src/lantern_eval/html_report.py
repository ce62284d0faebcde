"""``lantern report --html``: one self-contained HTML page of a score directory.

The page holds Table 3 / 4 / 6 (the numbers, counts, captions and notes of the
Markdown tables, from the same summary.json), the per-family CUS bars and the
per-pair timelines. The plots are the PNG files ``report.py`` has just drawn,
embedded as base64 ``data:`` URIs, and the style sheet is inline: no external
CSS, script, font or image, so the single file opens offline, mailed or
archived on its own. No script at all: the page is static.

The cells come ready from ``report.py`` (``table3_cells`` / ``simple_cells``,
the very strings of table3|4|6.md), so the page and the Markdown cannot
disagree; this module only lays them out and never imports ``report`` (the
imports point one way). Pure logic: no rclpy, no matplotlib (the plots come in
as files).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HTML_NAME = "report.html"

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
table { border-collapse: collapse; margin: 0.5em 0 0.3em; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.55em; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #eef1f5; }
tr.gain td { font-style: italic; background: #f7f7f7; }
p.caption { font-size: 0.85em; color: #444; max-width: 80em; }
ul.notes { font-size: 0.85em; color: #663; }
figure { margin: 1em 0; }
figcaption { font-size: 0.85em; color: #444; }
img { max-width: 100%; height: auto; border: 1px solid #ddd; }
"""


@dataclass(frozen=True)
class Figure:
    """One plot of the page: the PNG file and its caption."""

    path: Path
    caption: str
    ident: str


def data_uri(png: Path) -> str:
    """The PNG as a ``data:image/png;base64,...`` URI (why: the page must not depend on files beside it)."""
    return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


@dataclass(frozen=True)
class HtmlTable:
    """One table of the page: ``id``, caption, header (first column the row label), rows ``(label, cells, css class)``, notes."""

    ident: str
    caption: str
    header: Sequence[str]
    rows: Sequence[tuple[str, Sequence[str], str]]
    notes: Sequence[str] = ()


def table_html(t: HtmlTable) -> str:
    """The table in its section; cells carry ``data-col`` and rows ``data-model``, so the page can be read by column and model."""
    out = [f'<section id="{_e(t.ident)}-section"><h2>{_e(t.caption.split(":", 1)[0])}</h2>', f'<table id="{_e(t.ident)}">']
    out.append("<thead><tr>" + "".join(f'<th scope="col">{_e(h)}</th>' for h in t.header) + "</tr></thead><tbody>")
    for label, cells, cls in t.rows:
        tds = "".join(f'<td data-col="{_e(c)}">{_e(v)}</td>' for c, v in zip(t.header[1:], cells))
        klass = f' class="{_e(cls)}"' if cls else ""
        out.append(f'<tr data-model="{_e(label)}"{klass}><th scope="row">{_e(label)}</th>{tds}</tr>')
    out.append("</tbody></table>")
    out.append(f'<p class="caption">{_e(t.caption)}</p>')
    if t.notes:
        out.append('<ul class="notes">' + "".join(f"<li>{_e(n.removeprefix('- '))}</li>" for n in t.notes) + "</ul>")
    out.append("</section>")
    return "\n".join(out)


def _figure(f: Figure) -> str:
    return f'<figure id="{_e(f.ident)}"><img src="{data_uri(f.path)}" alt="{_e(f.caption)}"><figcaption>{_e(f.caption)}</figcaption></figure>'


def render_html(summary: dict[str, Any], source: str, tables: Sequence[HtmlTable], bars: Figure | None, timelines: Sequence[Figure]) -> str:
    """The whole page as one string."""
    head = (
        f"<p>Score directory <code>{_e(source)}</code>: {_e(summary.get('n_bags', '?'))} bag(s), "
        f"{_e(summary.get('n_scored_pairs', '?'))} of {_e(summary.get('n_pairs', '?'))} pair(s) scored.</p>"
        f'<p class="caption">{_e(summary.get("counting_rule", ""))}</p>'
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lantern report: {_e(source)}</title><style>{_STYLE}</style></head><body>",
        "<h1>LANTERN closed-loop results</h1>",
        head,
        *(table_html(t) for t in tables),
        '<section id="family-bars-section"><h2>Family CUS bars</h2>',
        _figure(bars) if bars is not None else "<p>No plot.</p>",
        "</section>",
        f'<section id="timelines-section"><h2>Per-pair timelines ({len(timelines)})</h2>',
        *(_figure(f) for f in timelines),
        "" if timelines else "<p>No pair has a recorded series.</p>",
        "</section></body></html>",
    ]
    return "\n".join(parts) + "\n"


def write_html(out: Path, summary: dict[str, Any], tables: Sequence[HtmlTable], bars: Path | None, timelines: Sequence[tuple[dict[str, str], Path]]) -> Path:
    """``<out>/report.html`` from the summary's counts, the tables' cells and the plots just drawn (timelines: (pair's CSV fields, PNG))."""
    figs = []
    for i, (fields, png) in enumerate(timelines):
        cus = fields.get("cus")
        cap = f"{fields.get('route_id', '')} ({fields.get('family_abbr', '')}), {fields.get('model', '')}: CUS " + (f"{float(cus):.1f}" if cus else f"– ({fields.get('status_reason') or fields.get('cus_reason') or 'not scored'})")
        figs.append(Figure(png, cap, f"timeline-{i}"))
    bar_fig = Figure(bars, "Mean CUS per family, warning vs no-warning (hatched); whiskers: 95 % t-interval; n = scored/total pairs", "family-bars") if bars is not None else None
    path = Path(out) / HTML_NAME
    path.write_text(render_html(summary, str(out), tables, bar_fig, figs), encoding="utf-8")
    return path
