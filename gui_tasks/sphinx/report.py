"""SPHINX reports: Table 4 layout (SR/ACP per task group) and a per-episode trajectory viewer."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Mapping, Sequence

from gui_metrics.sphinx import average_completion, success_rate


def table4(rows: Sequence[Mapping[str, Any]], groups: Sequence[str]) -> str:
    """Markdown in Table 4's layout: rows = (modality, model); per group and All, SR (%) and ACP (%).

    ``rows``: ``{"modality", "model", "records": {group: [trajectory records]}}``."""
    head = "| Modality | Model | " + " | ".join(f"{g} SR (%) | {g} ACP (%)" for g in [*groups, "All"]) + " |"
    out = [head, "|" + "---|" * (2 + 2 * (len(groups) + 1))]
    for r in rows:
        cells = []
        for g in [*groups, "All"]:
            recs = [x for gg in groups for x in r["records"].get(gg, [])] if g == "All" else r["records"].get(g, [])
            cells += [f"{100 * success_rate(recs):.1f}", f"{100 * average_completion(recs):.1f}"]
        out.append(f"| {r['modality']} | {r['model']} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def trajectory_viewer(doc: Mapping[str, Any], outputs: Sequence[str], out: Path) -> tuple[Path, Path]:
    """A PNG strip of the episode's screens (action taken drawn on each) and an HTML page beside it."""
    from PIL import Image, ImageDraw

    from gui_tasks.sphinx.lmms_task import _task
    from gui_tasks.sphinx.simulator import Simulator

    from gui_tasks.sphinx.actions import parse_action
    from gui_tasks.sphinx.observation import interactables

    sim = Simulator()
    obs = sim.reset(_task(doc).initial)
    frames, captions = [], []
    for text in list(outputs) + [None]:
        img = obs.screenshot().convert("RGB")
        d = ImageDraw.Draw(img)
        status, act = parse_action(text) if text is not None else ("end", None)
        cap = "final screen" if text is None else f"{status}: {text.strip()[:60]}"
        if act and "index" in act:
            items = interactables(obs.screen)
            if act["index"] < len(items):
                d.rectangle(items[act["index"]].box, outline=(230, 30, 30), width=3)
                act = {**act, "element": items[act["index"]].id}
        elif act and "point" in act:
            x, y = act["point"]
            d.ellipse((x - 8, y - 8, x + 8, y + 8), outline=(230, 30, 30), width=3)
        frames.append(img)
        captions.append(cap)
        if text is None or act is None:
            continue
        if act["type"] == "stop":
            img = obs.screenshot().convert("RGB")
            frames.append(img)
            captions.append("final screen")
            break
        obs = sim.act(act)
    w, h = frames[0].size
    strip = Image.new("RGB", (w * len(frames), h + 24), "white")
    d = ImageDraw.Draw(strip)
    for k, (f, c) in enumerate(zip(frames, captions)):
        strip.paste(f, (k * w, 24))
        d.text((k * w + 4, 4), f"{k}: {c}"[:48], fill=(0, 0, 0))
    out.parent.mkdir(parents=True, exist_ok=True)
    png = out.with_suffix(".png")
    strip.save(png)
    page = out.with_suffix(".html")
    items = "".join(f"<li>{html.escape(c)}</li>" for c in captions)
    page.write_text(f"<html><body><h1>{html.escape(doc['id'])}</h1><img src='{png.name}'><ol start='0'>{items}</ol></body></html>",
                    encoding="utf-8")
    return png, page
