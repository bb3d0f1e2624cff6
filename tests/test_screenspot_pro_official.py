"""ScreenSpot-Pro in full against its official script: Chinese and negative samples, and the official report.

tests/fixtures/screenspot_pro_official_verdicts.json holds answers and what ``eval_screenspot_pro.py`` (likaixin2000/
ScreenSpot-Pro-GUI-Grounding @ bd8bbbb, run unchanged outside the project with a stub model) made of them on the
copy in tests/fixtures/screenspot_pro_official (written by make_screenspot_pro_official.py): 84 rows x (English,
Chinese, negative) = 252 samples covering every group, application, UI type, box edge and refusal form.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_metrics.grounding_official import group_figure, overall_figure, screenspot_pro_report
from gui_tasks.grounding import screenspot
from gui_tasks.grounding.lmms_task import doc_to_text
from gui_tasks.grounding.score import REFUSAL_PROMPT, ScoreParams, score_response

FIX = Path(__file__).parent / "fixtures"
COPY = FIX / "screenspot_pro_official"
OFFICIAL = json.loads((FIX / "screenspot_pro_official_verdicts.json").read_text(encoding="utf-8"))


def _records(run: dict) -> list[dict]:
    docs = {json.loads(d["meta"])["report"]["id"]: d
            for d in screenspot.load_docs("screenspot_pro", COPY, language=run["language"], gt_type=run["gt_type"])}
    params = ScoreParams(family=run["family"], inside_rule="inclusive", strictness="official")
    return [score_response(docs[d["id"]], d["raw_response"], params) for d in run["details"]]


def _flat(tree: dict, prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in tree.items():
        out.update(_flat(v, f"{prefix}{k}/") if isinstance(v, dict) else {f"{prefix}{k}": float(v)})
    return out


@pytest.mark.parametrize("name", sorted(OFFICIAL["runs"]))
def test_every_sample_and_every_figure_equal_the_official_script(name):
    run = OFFICIAL["runs"][name]
    records = _records(run)
    ours = [r["official"]["correctness"] for r in records]
    theirs = [d["correctness"] for d in run["details"]]
    assert len(ours) == 84 and ours == theirs  # 100% per-sample agreement
    report, official = _flat(screenspot_pro_report(records)), _flat(run["metrics"])
    assert report.keys() == official.keys()
    assert report == pytest.approx(official, abs=1e-12)
    assert sum(r["correct"] for r in records) == run["metrics"]["overall"]["num_correct_action"]  # grounding_acc agrees


def test_the_constructed_set_covers_every_verdict_group_and_edge():
    runs = OFFICIAL["runs"]
    assert sum(len(r["details"]) for r in runs.values()) >= 200
    assert {d["correctness"] for r in runs.values() for d in r["details"]} == {"correct", "wrong", "wrong_format"}
    cases = {d["case"] for r in runs.values() for d in r["details"] if d["case"]}
    assert {"left_edge", "right_edge", "top_edge", "bottom_right_corner", "just_right_outside",
            "above_image_in_published_box"} <= cases
    assert len(runs["en_positive"]["metrics"]["leaderboard_simple_style"]) == 6
    assert len(runs["en_positive"]["metrics"]["leaderboard_detailed_style"]) == 12


def test_a_point_above_the_image_inside_the_published_box_counts_as_the_script_counts_it():
    run = OFFICIAL["runs"]["en_positive"]
    i = next(i for i, d in enumerate(run["details"]) if d["case"] == "above_image_in_published_box")
    assert run["details"][i]["correctness"] == "correct"  # [135, -1, 151, 19] tested unclipped by the script
    assert _records(run)[i]["correct"] is True


def test_chinese_and_negative_documents():
    cn = screenspot.load_docs("screenspot_pro", COPY, language="cn")
    neg = screenspot.load_docs("screenspot_pro", COPY, gt_type="negative")
    assert cn[0]["instruction"].startswith("在") and cn[0]["id"].endswith("-cn")
    assert neg[0]["id"].endswith("-negative") and json.loads(neg[0]["meta"])["gt_type"] == "negative"
    with pytest.raises(ValueError, match="Chinese"):
        screenspot.load_docs("screenspot_pro", COPY, language="cn", gt_type="negative")
    text = doc_to_text(neg[0], {"prompt": "os_atlas", "refusal": True})
    assert text.endswith(REFUSAL_PROMPT) and neg[0]["instruction"] in text


def test_negative_answer_reading_order_point_first_then_the_phrase():
    doc = screenspot.load_docs("screenspot_pro", COPY, gt_type="negative")[0]
    params = ScoreParams(family="os_atlas", inside_rule="inclusive")
    verdict = lambda text: score_response(doc, text, params)["official"]["correctness"]  # noqa: E731
    assert verdict("Target does not exist") == "correct"
    assert verdict("(500,500) Target does not exist") == "wrong"  # a point is read first: positive
    assert verdict("no idea") == "wrong_format"


def test_leaderboard_metrics_read_the_group_and_ui_type_figures():
    run = OFFICIAL["runs"]["en_positive"]
    records = _records(run)
    simple = run["metrics"]["leaderboard_simple_style"]
    assert group_figure("CAD")(records) == pytest.approx(simple["group:CAD"]["action_acc"])
    assert overall_figure("icon_acc")(records) == pytest.approx(run["metrics"]["overall"]["icon_acc"])


def test_pss_report_carries_the_official_report():
    from gui_tasks.grounding.report import Series, markdown, summarise

    run = OFFICIAL["runs"]["cn_positive"]
    summary = summarise(Series("m\ngui_screenspot_pro_cn", "gui_screenspot_pro_cn", "screenspot_pro", _records(run)))
    assert _flat(summary["official_report"]) == pytest.approx(_flat(run["metrics"]), abs=1e-12)
    cad = run["metrics"]["leaderboard_simple_style"]["group:CAD"]
    text = markdown([summary])
    assert (f"| CAD | {cad['text_acc']:.3f} | {cad['icon_acc']:.3f} | {cad['action_acc']:.3f} | {cad['num_total']} |"
            in text)
    assert "| inventor |" in text and "Official report (eval_screenspot_pro.py)" in text


def test_import_of_the_official_scripts_negative_log_matches_every_sample(tmp_path, monkeypatch):
    from gui_tasks.grounding.published import import_run

    monkeypatch.setenv("SCREENSPOT_PRO_DATA_DIR", str(COPY))
    run, task = OFFICIAL["runs"]["en_negative"], "gui_screenspot_pro_negative_os_atlas"
    # the script's log layout (details of the run's kind plus one positive English detail it must leave out)
    details = [{"id": d["id"], "img_path": "x.png", "prompt_to_evaluate": "", "gt_type": run["gt_type"],
                "lang": run["language"], "instruction_style": "instruction", "raw_response": d["raw_response"],
                "correctness": d["correctness"]} for d in run["details"]]
    details.append({**details[0], "gt_type": "positive", "lang": "en"})
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"metrics": run["metrics"], "details": details}), encoding="utf-8")
    got = import_run(path, task, tmp_path / "out", family=run["family"])
    assert (got.matched, got.skipped, got.unmatched, got.disagreements) == (84, 1, [], 0)
    assert got.published_accuracy == pytest.approx(run["metrics"]["overall"]["action_acc"])


def test_data_check_counts_the_chinese_and_negative_tasks_against_the_release():
    check = screenspot.data_check_pro(COPY)
    assert [(c.task, c.found, c.expected) for c in check.counts] == [
        ("gui_screenspot_pro [pro layout]", 84, 1581), ("gui_screenspot_pro_cn", 84, 1581),
        ("gui_screenspot_pro_negative", 84, 1581)]
    assert not check.errors
