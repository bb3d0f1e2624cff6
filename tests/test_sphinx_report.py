"""SPHINX Table 4 layout and the trajectory viewer."""

from __future__ import annotations

from PIL import Image

from gui_tasks.sphinx.report import table4, trajectory_viewer


def test_table4_layout_and_values():
    recs = {"User": [{"satisfied": [True, True]}, {"satisfied": [True, False]}], "Testing": [{"satisfied": [False, False]}]}
    md = table4([{"modality": "Text", "model": "tiny", "records": recs}], ["User", "Testing"])
    lines = md.splitlines()
    assert lines[0] == ("| Modality | Model | User SR (%) | User ACP (%) | Testing SR (%) | Testing ACP (%) | All SR (%) | All ACP (%) |")
    # User: SR 1/2, ACP (1 + .5)/2; Testing 0/0; All SR 1/3, ACP 1.5/3
    assert lines[2] == "| Text | tiny | 50.0 | 75.0 | 0.0 | 0.0 | 33.3 | 50.0 |"


def test_viewer_draws_one_frame_per_step_plus_final(tmp_path):
    doc = {"id": "nav/DndOn", "max_steps": 5}
    png, page = trajectory_viewer(doc, ["click [0]", "garbage", "click [2]", "stop"], tmp_path / "ep")
    with Image.open(png) as im:
        # 4 outputs then the final screen after stop
        assert im.size == (360 * 5, 720 + 24)
    text = page.read_text()
    assert "malformed: garbage" in text and text.count("<li>") == 5
