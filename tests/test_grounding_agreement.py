"""docs/grounding_agreement.md is what scripts/grounding_agreement.py writes from the committed corpora (issue 52)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("grounding_agreement", ROOT / "scripts" / "grounding_agreement.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_agreement_page_is_regenerated_exactly():
    mod = _script()
    assert (ROOT / "docs" / "grounding_agreement.md").read_text(encoding="utf-8") == mod.render()


def test_lmms_eval_is_called_and_its_departures_are_real():
    mod = _script()
    case = {"form": "pixel", "text": "(834, 1010)", "width": 1920, "height": 1080, "box_xyxy": [825, 958, 842, 1061],
            "ui_type": "text"}
    assert mod.lmms_screenspot_v2(case) and not mod.ours("screenspot_v2", case)
    frac = dict(case, text=f"({833.5 / 1920!r}, {1009.5 / 1080!r})")
    assert mod.lmms_screenspot_v2(frac) and mod.ours("screenspot_v2", frac)
    # lmms-eval's ScreenSpot-v2 reads [x, y, w, h] as x1y1x2y2 when w > x and h > y: the box [10, 10, 60, 40] there
    near = {"text": f"({50 / 1920!r}, {35 / 1080!r})", "width": 1920, "height": 1080, "box_xyxy": [10, 10, 70, 50],
            "ui_type": "icon"}
    assert mod.ours("screenspot_v2", near) and mod.lmms_screenspot_v2(near)
    far = dict(near, text=f"({65 / 1920!r}, {45 / 1080!r})")  # inside ours [10, 10, 70, 50], outside theirs [10,10,60,40]
    assert mod.ours("screenspot_v2", far) and not mod.lmms_screenspot_v2(far)
