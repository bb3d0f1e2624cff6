"""CircularEval (every rotation of the options must be answered right) and the letter-bias report."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import datasets
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui_core.benchmark import benchmark
from gui_metrics.circular import per_question
from gui_metrics.letter_bias import answer_shares, gold_shares, majority_baseline_accuracy, total_variation
from gui_tasks.harness.circular import Layout, expand, rotate

FIXTURES = Path(__file__).parent / "fixtures"


def test_rotation_moves_the_gold_letter_with_its_option_and_parallel_fields():
    doc = {"id": "q", "options": ["o0", "o1", "o2", "o3"], "answer": "B", "option_images": ["i0", "i1", "i2", "i3"],
           "images": ["s.png"]}
    r1 = rotate(doc, 1, Layout(parallel=("option_images",)))
    assert r1["options"] == ["o1", "o2", "o3", "o0"] and r1["option_images"] == ["i1", "i2", "i3", "i0"]
    assert r1["answer"] == "A" and r1["images"] == ["s.png"]  # o1 now shows as A; the screenshot is the same
    assert rotate(doc, 3)["answer"] == "C"  # ["o3", "o0", "o1", "o2"]: o1 at C
    mapped = rotate({"id": "q", "options": {"A": "x", "B": "y", "C": "z", "D": "w"}, "answer": "D"}, 2)
    assert mapped["options"] == {"A": "z", "B": "w", "C": "x", "D": "y"} and mapped["answer"] == "B"


def test_expand_keeps_rotations_together_and_asks_yes_no_questions_once():
    docs = expand([{"id": "q1", "options": ["a", "b", "c"], "answer": "C"},
                   {"id": "q2", "options": ["yes", "no", "unknown"], "answer": "yes"}])
    assert [(d["id"], d["circular_id"], d["rotation"], d["n_rotations"], d["answer"]) for d in docs] == [
        ("q1@r0", "q1", 0, 3, "C"), ("q1@r1", "q1", 1, 3, "B"), ("q1@r2", "q1", 2, 3, "A"), ("q2", "q2", 0, 1, "yes")]


@given(st.integers(2, 7).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n - 1))))
def test_every_rotation_shows_the_gold_text_under_the_gold_letter_and_each_letter_is_gold_once(case):
    n, gold = case
    doc = {"id": "q", "options": [f"t{i}" for i in range(n)], "answer": "ABCDEFG"[gold]}
    rotations = expand([doc])
    assert len(rotations) == n
    for r in rotations:
        assert r["options"]["ABCDEFG".index(r["answer"])] == f"t{gold}"
    assert sorted(r["answer"] for r in rotations) == list("ABCDEFG"[:n])


def test_a_question_counts_only_when_every_rotation_is_right_and_incomplete_ones_are_left_out():
    def rec(q, k, ok, n=4):
        return {"circular_id": q, "rotation": k, "n_rotations": n, "correct": ok, "status": "parsed"}

    items = [rec("q1", k, True) for k in range(4)] + [rec("q2", k, k != 2) for k in range(4)] + [rec("q3", 0, True)]
    items[6] = {**items[6], "status": "malformed"}
    collapsed = per_question(items + [{"correct": True, "status": "parsed"}])  # a plain record passes through
    assert [(r.get("circular_id"), r["correct"], r["status"]) for r in collapsed] == [
        (None, True, "parsed"), ("q1", True, "parsed"), ("q2", False, "malformed")]


def test_letter_shares_total_variation_and_majority_baseline_by_hand():
    recs = [{"answer": g, "pred": p, "choices": ["A", "B", "C", "D"], "correct": g == p}
            for g, p in (("A", "A"), ("A", "A"), ("B", "A"), ("C", None))]
    recs.append({"answer": "F", "pred": "F", "choices": ["T", "F"], "correct": True})
    assert gold_shares(recs) == pytest.approx({"A": 0.4, "B": 0.2, "C": 0.2, "F": 0.2})
    assert answer_shares(recs) == pytest.approx({"A": 0.75, "F": 0.25})
    # |0.75-0.4| + 0.2 + 0.2 + |0.25-0.2| = 0.8, halved
    assert total_variation(recs) == pytest.approx(0.4)
    assert majority_baseline_accuracy(recs) == pytest.approx(3 / 5)  # always A on A-D (2 of 4), always F on T/F (1 of 1)
    circular = [{**r, "circular_id": "q", "rotation": k, "n_rotations": 2} for k, r in enumerate(
        [{"answer": "A", "choices": ["A", "B"]}, {"answer": "B", "choices": ["A", "B"]}])]
    assert majority_baseline_accuracy(circular) == 0.0  # always A is right on one rotation only
    assert math.isnan(total_variation([{"answer": "A", "pred": None}]))


def test_official_ri_and_si_golds_all_a_give_always_a_full_marks_plain_and_none_circular(monkeypatch, tmp_path):
    """The released RI/SI answers are all "A" (docs/mpr_gui.md): plain scoring rewards always-"A", CircularEval does not."""
    from gui_metrics.lmms_bridge import register_with_lmms_eval
    from gui_tasks.mpr import lmms_task, release
    from lmms_eval.api.registry import AGGREGATION_REGISTRY

    dst = tmp_path / "mpr"
    shutil.copytree(FIXTURES / "mpr_official", dst)
    monkeypatch.setenv(benchmark("mpr_gui").data.env, str(dst))
    register_with_lmms_eval()
    rows = datasets.Dataset.from_list(lmms_task.task_rows({"lang": "en", "source": "official", "dimensions": ["RI", "SI"]}))

    def score(docs, metric):
        values = [lmms_task.process_results(d, ["A"])[metric] for d in docs]
        return AGGREGATION_REGISTRY[metric](values)

    plain, circular = list(lmms_task.process_docs_official(rows)), list(lmms_task.process_docs_official_circular(rows))
    assert {d["answer"] for d in plain} == {"A"} and len(circular) == 4 * len(plain)
    assert score(plain, "mpr_acc_ri") == 1.0 and score(plain, "mpr_acc_si") == 1.0
    assert score(plain, "mcq_letter_baseline_acc") == 1.0 and score(plain, "mcq_letter_tv") == 0.0
    assert score(circular, "mpr_acc_ri") == 0.0 and score(circular, "mpr_acc_si") == 0.0
    assert score(circular, "mcq_pred_share_a") == 1.0 and score(circular, "mcq_gold_share_a") == 0.25
    assert score(circular, "mcq_request_acc") == 0.25 and score(circular, "mcq_circular_questions") == len(plain)


def test_knowledge_rotation_relabels_option_marks_and_moves_option_actions():
    from gui_tasks.knowledge.lmms_task import CIRCULAR_LAYOUT

    marks = [{"kind": "point", "xy": [i, i], "label": "ABCD"[i]} for i in range(4)] + [{"kind": "box", "box": [0, 0, 1, 1]}]
    doc = {"id": "p", "question_type": "multiple_choice", "options": ["p0", "p1", "p2", "p3"], "answer": "A",
           "option_actions": ["click", "type", "drag", "scroll"], "option_images": [], "marks": json.dumps(marks)}
    r1 = rotate(doc, 1, CIRCULAR_LAYOUT)
    assert r1["answer"] == "D" and r1["option_actions"] == ["type", "drag", "scroll", "click"] and r1["option_images"] == []
    moved = json.loads(r1["marks"])
    assert [(m["xy"], m["label"]) for m in moved[:4]] == [([0, 0], "D"), ([1, 1], "A"), ([2, 2], "B"), ([3, 3], "C")]
    assert moved[4] == marks[4]
    assert len(expand([{**doc, "question_type": "yes_or_no", "options": ["yes", "no", "unknown"], "answer": "no"}],
                      CIRCULAR_LAYOUT)) == 1


def _images(body: dict) -> list[str]:
    return [p["image_url"]["url"] for m in body.get("messages", []) if isinstance(m.get("content"), list)
            for p in m["content"] if isinstance(p, dict) and p.get("type") == "image_url"]


def _text(body: dict) -> str:
    return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for m in body.get("messages", [])
                     for p in (m["content"] if isinstance(m.get("content"), list) else [m.get("content") or ""]))


@pytest.mark.slow
def test_lmms_eval_circular_run_of_an_always_a_model_scores_zero_on_every_dimension_and_reports_the_bias(
        tmp_path, subprocess_env, capsys):
    """lmms-eval's own openai backend against a model that always says "A": 8 questions (one per dimension) asked in
    4 rotations each, the same screenshots every time; no question survives, and the report shows A 100% vs 25%."""
    from fake_openai import FakeServer
    from lmms_helpers import results, run_openai

    from gui_metrics.mpr import DIMENSIONS
    from gui_tasks.mpr.report import main as report

    server = FakeServer(["ok"], text="A")
    out = tmp_path / "run"
    try:
        proc, log = run_openai(server.base_url, "mpr_gui_synth_en_circular", out, subprocess_env, "--limit", "32")
    finally:
        server.stop()
    raw = results(out)
    res = raw["results"]["mpr_gui_synth_en_circular"]
    assert server.hits == 32, log[-3000:]  # every rotation is a request
    # intervals (docs/statistics.md): a per-question metric is bootstrapped over whole questions (the rotations share
    # their screenshots, the cluster), a per-request one from its requests' scores
    intervals = raw["configs"]["mpr_gui_synth_en_circular"]["metadata"]["intervals"]
    assert (intervals["mcq_acc,none"]["method"], intervals["mcq_acc,none"]["n_clusters"]) == ("cluster_bootstrap", 8)
    assert intervals["mcq_request_acc,none"]["estimate"] == pytest.approx(0.25)
    assert {d: res[f"mpr_acc_{d.lower()},none"] for d in DIMENSIONS} == {d: 0.0 for d in DIMENSIONS}, log[-3000:]
    assert res["mcq_circular_questions,none"] == 8 and res["mcq_request_acc,none"] == pytest.approx(0.25)
    assert res["mcq_pred_share_a,none"] == 1.0 and res["mcq_gold_share_a,none"] == pytest.approx(0.25)
    assert res["mcq_letter_tv,none"] == pytest.approx(0.75) and res["mcq_letter_baseline_acc,none"] == 0.0
    # the rotations of one question: the same question line and screenshots, the options in four orders
    by_question: dict[str, list[dict]] = {}
    for body in server.bodies:
        lines = _text(body).splitlines()
        opts = frozenset(line[3:] for line in lines if line[:3] in ("A. ", "B. ", "C. ", "D. "))
        by_question.setdefault(f"{lines[0]}|{sorted(opts)}", []).append(body)
    assert len(by_question) == 8 and all(len(bs) == 4 for bs in by_question.values())
    for bodies in by_question.values():
        assert _images(bodies[0]) and all(_images(b) == _images(bodies[0]) for b in bodies)
        assert len({_text(b) for b in bodies}) == 4
    assert report([str(out)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "mpr_gui_synth_en_circular (circular)" in line)
    assert row.split("(circular)")[1].split() == ["0.0", "0.0", "75.0", "100.0/25.0", "0.0/25.0", "0.0/25.0", "0.0/25.0"]


def test_circular_variant_of_a_perfect_scripted_model_scores_full_marks(tmp_path):
    """The honest-run writer (the installed task's own process_results and aggregations) with a perfect model."""
    from submission_helpers import honest_run

    from gui_tasks.runs.results_io import load_results

    path = honest_run(tmp_path, ("en",), rule=lambda doc, i: f"Answer: {doc['answer']}", limit=64,
                      tasks=["mpr_gui_synth_en_circular"])
    m = load_results(path).tasks["mpr_gui_synth_en_circular"].metrics
    assert m["mcq_acc"] == 1.0 and m["fpr_acc"] == 1.0 and m["mcq_circular_questions"] == 16
    assert all(m[f"mpr_acc_{d}"] == 1.0 for d in ("au", "ap", "wf", "wi", "ael", "rel", "ri", "si"))
    assert m["mcq_letter_tv"] == 0.0 and m["mcq_pred_share_b"] == pytest.approx(0.25)


def _results_file(folder: Path, tasks: dict[str, tuple[dict, dict]]) -> Path:
    raw = {"results": {t: {f"{k},none": v for k, v in m.items()} for t, (_md, m) in tasks.items()},
           "configs": {t: {"task": t, "metadata": md} for t, (md, _m) in tasks.items()},
           "n-samples": {t: {"original": 8, "effective": 8} for t in tasks},
           "config": {"model": "gui_hf", "model_args": "pretrained=Org/M"}, "model_name": "Org/M"}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101_000000_results.json").write_text(json.dumps(raw), encoding="utf-8")
    return folder


def test_knowledge_and_sphinx_reports_print_the_letter_bias_beside_the_accuracy(tmp_path, capsys):
    from gui_tasks.knowledge.report import main as knowledge_report
    from gui_tasks.sphinx.report import main as sphinx_report

    gkb = {"benchmark": "gui_knowledge", "source": "synthetic", "variant": "official", "lang": "en", "subtasks": ["widget"]}
    run = _results_file(tmp_path / "gkb", {
        "gui_knowledge_synth_en_widget": (gkb, {"gkb_acc": 0.5, "gkb_widget_acc": 0.5, "gkb_letter_tv": 0.5,
                                                "gkb_letter_baseline_acc": 0.5, "gkb_pred_share_a": 1.0, "gkb_gold_share_a": 0.5,
                                                "gkb_pred_share_b": 0.0, "gkb_gold_share_b": 0.5}),
        "gui_knowledge_synth_en_widget_circular": ({**gkb, "circular": True}, {
            "gkb_acc": 0.0, "gkb_widget_acc": 0.0, "gkb_letter_tv": 0.75, "gkb_letter_baseline_acc": 0.0,
            "gkb_circular_questions": 2, "gkb_pred_share_a": 1.0, "gkb_gold_share_a": 0.25})})
    assert knowledge_report([str(run), "--out", str(tmp_path / "gkb_out")]) == 0
    out = capsys.readouterr().out
    assert [line.split()[2:] for line in out.splitlines() if line.startswith("M ") and "widget" in line and "/" in line] == [
        ["50.0", "50.0", "50.0", "100.0/50.0", "0.0/50.0"], ["(circular)", "0.0", "0.0", "75.0", "100.0/25.0", "-/-"]]
    assert (tmp_path / "gkb_out" / "letter_bias.png").is_file()
    # the circular task is its own Table 2 row, not merged into the plain one
    assert "official+circular" in out

    sph = {"benchmark": "sphinx", "kind": "knowledge", "source": "synthetic", "observation": "full_text"}
    run = _results_file(tmp_path / "sphinx", {"sphinx_knowledge_synth": (sph, {
        "sphinx_goal_acc_original": 0.6, "sphinx_probe_acc": 0.6, "sphinx_probe_letter_tv": 0.4,
        "sphinx_probe_letter_baseline_acc": 0.6, "sphinx_probe_pred_share_f": 1.0, "sphinx_probe_gold_share_f": 0.6,
        "sphinx_probe_pred_share_t": 0.0, "sphinx_probe_gold_share_t": 0.4})})
    assert sphinx_report([str(run)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("M ") and "sphinx_knowledge_synth" in x)
    assert line.split()[2:] == ["60.0", "60.0", "40.0", "100.0/60.0", "0.0/40.0"]


def test_completion_circular_asks_each_step_with_its_two_answers_in_both_orders():
    from gui_tasks.sphinx import prompts as P
    from gui_tasks.sphinx.static_tasks import process_docs_completion_circular

    docs = list(process_docs_completion_circular(datasets.Dataset.from_list(
        [{"id": "t/app/0", "task": "t/app", "answer": "continue"}, {"id": "t/app/1", "task": "t/app", "answer": "stop"}])))
    assert [(d["id"], d["answer"], d["answer_order"]) for d in docs] == [
        ("t/app/0@r0", "continue", ["stop", "continue"]), ("t/app/0@r1", "continue", ["continue", "stop"]),
        ("t/app/1@r0", "stop", ["stop", "continue"]), ("t/app/1@r1", "stop", ["continue", "stop"])]
    swapped = P.order_completion_answers(P.COMPLETION_USER_TREE, "official", ("continue", "stop"))
    assert swapped.endswith("If we have not finished, say NO, else say YES.") and "say YES, else" not in swapped
    prose = P.order_completion_answers(P.COMPLETION_PROMPT, "paper-prose", ("continue", "stop"))
    assert prose.endswith('one word only: "continue" if more actions are needed, "stop" if the goal is achieved.')
    assert P.order_completion_answers(P.COMPLETION_PROMPT, "paper-prose", ("stop", "continue")) == P.COMPLETION_PROMPT
    with pytest.raises(ValueError):
        P.order_completion_answers("no answer sentence", "official", ("continue", "stop"))
