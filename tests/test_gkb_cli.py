"""GUI Knowledge Bench through the real lmms-eval CLI on the tiny checkpoint, then the report and its PNGs.

The CLI exits 0 even when an evaluation raises, so the test reads the files it wrote.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gui_metrics.knowledge import SUBTASKS
from gui_tasks.commands.cli import find_results, lmms_eval_command
from gui_tasks.knowledge import report

pytestmark = pytest.mark.slow
FIXTURES = Path(__file__).parent / "fixtures" / "gui_knowledge"


def test_synthetic_group_and_official_action_type_end_to_end(tmp_path, tiny_checkpoint, subprocess_env):
    env = {**subprocess_env, "GUI_KNOWLEDGE_DATA_DIR": str(FIXTURES)}
    out = tmp_path / "run"
    cmd = lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", ["gui_knowledge_synth", "gui_knowledge_type"], out, limit=2,
                            extra=["--gen_kwargs", "max_new_tokens=16"])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    files = find_results(out)
    assert files, log[-3000:]
    results = json.loads(files[-1].read_text(encoding="utf-8"))["results"]
    assert 0.0 <= results["gui_knowledge_synth"]["gkb_acc,none"] <= 1.0, log[-3000:]
    for sub in SUBTASKS:
        res = results[f"gui_knowledge_synth_en_{sub}"]
        assert f"gkb_{sub}_acc,none" in res and res["gkb_acc,none"] == res[f"gkb_{sub}_acc,none"]
    synth_type = [json.loads(line)["gkb_acc"] for p in sorted(out.rglob("*_samples_gui_knowledge_synth_en_type.jsonl"))
                  for line in p.read_text(encoding="utf-8").splitlines()]
    assert {r["platform"] for r in synth_type} == {"mobile", "desktop"}  # the synthetic world has both action spaces
    samples = [json.loads(line) for p in sorted(out.rglob("*_samples_gui_knowledge_type.jsonl"))
               for line in p.read_text(encoding="utf-8").splitlines()]
    recs = [s["gkb_acc"] for s in samples]
    assert {(r["platform"], r["gold_action"]) for r in recs} == {("desktop", "right_single"), ("mobile", "long_press")}
    assert all(r["status"] in {"parsed", "malformed", "empty"} for r in recs)

    assert report.main([str(out), "--out", str(tmp_path / "report")]) == 0
    built = report.build_report([files[-1]])
    assert {(r.source, r.lang) for r in built.rows} == {("synthetic", "en"), ("official", "en")}
    synth = next(r for r in built.rows if r.source == "synthetic")
    assert sorted(synth.n) == sorted(SUBTASKS) and all(n == 2 for n in synth.n.values())
    assert set(synth.calibration) == {"pred_rate", "gold_rate", "precision", "recall"}
    for name in ("table.md", "table.csv", "confusion_desktop.png", "confusion_mobile.png"):
        assert (tmp_path / "report" / name).stat().st_size > 0
    assert "Interface Perception" in (tmp_path / "report" / "table.md").read_text(encoding="utf-8")
