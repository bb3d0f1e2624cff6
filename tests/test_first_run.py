"""Issue 44, without a model: the logged key-digit capture re-scores exactly, results hold numbers only, the summary
says what did not run, and the README's first-try lines fit the tasks' answer budgets."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from gui_core.logit_capture import (
    CAPTURE_TOLERANCE,
    SIDE_KEY,
    Capture,
    CapturedResponse,
    Step,
    key_digit_capture,
    response_side,
    side_difference,
    with_side,
)
from gui_tasks.grounding.score import ScoreParams, score_response

ROOT = Path(__file__).resolve().parents[1]
DOC = {"id": "d0", "source": "synthetic", "width": 100, "height": 100, "target_box": [60, 10, 80, 30],
       "other_boxes": [[10, 60, 30, 80]], "split": "uncommon", "instruction": "x", "image": "/nonexistent", "meta": "{}"}
TOKENS = ["[", "0", ".", "7", "1", ",", " 0", ".", "23", "]"]


def _capture(kind: str = "exact") -> Capture:
    steps, pos = [], 0
    for i, t in enumerate(TOKENS):
        digits = tuple(math.sin(i * 10 + d) * 3 + (4.0 if d == 7 else 0.0) for d in range(10))
        missing, floor = ((0, 1), min(digits) - 1.0) if kind == "top_logprobs" else ((), None)
        steps.append(Step(i, t, -0.1 * (i + 1) / 3, 1.0, digits, pos, pos + len(t), 0.0, missing, floor))
        pos += len(t)
    return Capture(tuple(steps), kind=kind)


@pytest.mark.parametrize("kind", ["exact", "top_logprobs"])
def test_the_logged_key_digit_form_re_scores_bit_for_bit(kind):
    text = "[0.71, 0.23]"
    live = score_response(DOC, CapturedResponse(text, _capture(kind), {"model_image_sizes": [[28, 28]]}), ScoreParams())
    side = json.loads(json.dumps(response_side(CapturedResponse(text, _capture(kind), {"model_image_sizes": [[28, 28]]}))))
    kept = [s["start"] for s in side["capture"]["steps"]]
    assert kept == [1, 3, 4, 6, 9]  # the steps whose text starts with a digit; "[", ".", "," are not logged
    again = score_response(DOC, with_side(text, side), ScoreParams())
    assert again == live  # perplexity, PSS (or its range), entropy, key tokens: the same floats
    assert live["perplexity"] == pytest.approx(math.exp(sum(0.1 * (i + 1) / 3 for i in range(len(TOKENS))) / len(TOKENS)))
    assert key_digit_capture(key_digit_capture(_capture(kind), text), text) == key_digit_capture(_capture(kind), text)


def test_the_crop_first_prediction_is_logged_in_key_digit_form():
    text = "[0.71, 0.23]"
    crop = {"first_text": text, "first_capture": _capture().to_json(), "window": [0, 0, 80, 80], "alpha": 0.8}
    resp = CapturedResponse(text, _capture(), {"crop": crop})
    side = json.loads(json.dumps(response_side(resp)))
    assert side["extras"]["crop"]["first_capture"]["form"] == "key-digits-v1"
    assert score_response(DOC, with_side(text, side), ScoreParams()) == score_response(DOC, resp, ScoreParams())


def test_a_re_capture_matches_within_the_stated_tolerance():
    text = "[0.71, 0.23]"
    a = json.loads(json.dumps(response_side(CapturedResponse(text, _capture()))))
    b = json.loads(json.dumps(a))
    for s in b["capture"]["steps"]:
        s["digits"] = [v + 7.0 + CAPTURE_TOLERANCE / 10 * (d == 3) for d, v in enumerate(s["digits"])]  # a shift is no change
    assert side_difference(a, b) is None
    b["capture"]["steps"][0]["digits"][3] += 0.5
    assert "digit capture differs by" in side_difference(a, b)
    assert side_difference(a, None) == "digit capture logged but not re-captured"


def test_our_tasks_results_drop_what_no_metric_aggregates():
    from lmms_eval.api import registry as reg

    from gui_metrics.lmms_bridge import register_with_lmms_eval
    from gui_tasks.harness.lmms_stats import drop_unaggregated

    register_with_lmms_eval()

    class Task:
        def aggregation(self):
            return {"mcq_acc": reg.AGGREGATION_REGISTRY["mcq_acc"]}

    class Output:
        task = Task()
        sample_metrics = {("mcq_acc", "none"): [{}], ("score", "none"): [1.0], ("mcq_request_acc", "none"): [{}],
                          (SIDE_KEY, "none"): [{}]}

    out = Output()
    assert drop_unaggregated(out) == sorted(["mcq_request_acc", "score", SIDE_KEY])
    assert list(out.sample_metrics) == [("mcq_acc", "none")]

    class Theirs(Output):
        task = type("T", (), {"aggregation": lambda self: {"acc": lambda xs: 0.0}})()
        sample_metrics = {("acc", "none"): [1], ("extra", "none"): [2]}

    assert drop_unaggregated(Theirs()) == []  # another package's task is left as lmms-eval made it


def _task_configs() -> dict[str, dict]:
    """Every generated task YAML with its includes resolved (the generator's shared bases)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    out = {}
    for path in sorted((ROOT / "yaml_tasks").rglob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}
        merged: dict = {}
        for inc in data.get("include") or []:
            merged.update(yaml.load((path.parent / inc).read_text(encoding="utf-8"), Loader=Loader) or {})
        merged.update(data)
        if merged.get("task"):
            out[str(merged["task"])] = merged
    return out


def test_every_generated_tasks_metric_list_names_metrics_that_apply():
    """Each metric of each generated task's metric_list is registered (so lmms-eval aggregates it to a number), and a
    benchmark's own figures appear only on its tasks (ScreenSpot-Pro's official groups only on ScreenSpot-Pro, CircularEval's
    only on circular tasks)."""
    from lmms_eval.api import registry as reg

    from gui_metrics.lmms_bridge import register_with_lmms_eval

    register_with_lmms_eval()
    configs = _task_configs()
    assert len(configs) > 100
    for task, config in configs.items():
        names = [m["metric"] for m in config.get("metric_list") or [] if isinstance(m, dict)]
        for n in names:
            assert n in reg.AGGREGATION_REGISTRY or n in reg.METRIC_AGGREGATION_REGISTRY, (task, n)
        meta = config.get("metadata") or {}
        if any(n.startswith("sspro_") for n in names):
            assert meta.get("source") == "screenspot_pro", task
        if "mcq_circular_questions" in names:
            assert "circular" in task, task


def _results_file(tmp_path: Path, not_run: str | None) -> Path:
    intervals = {"mcq_acc,none": {"estimate": 0.5, "low": 0.25, "high": 0.75, "se": 0.1}}
    raw = {"results": {"mpr_gui_synth_en": {"alias": "mpr_gui_synth_en", "mcq_acc,none": 0.5, "format_error_rate,none": 0.0},
                       "gui_screenspot_v2": {"alias": "gui_screenspot_v2"}},
           "configs": {"mpr_gui_synth_en": {"metric_list": [{"metric": "mcq_acc"}, {"metric": "format_error_rate"}],
                                            "metadata": {"intervals": intervals}},
                       "gui_screenspot_v2": {"metadata": {"not_run": not_run} if not_run else {}}},
           "n-samples": {"mpr_gui_synth_en": {"original": 16, "effective": 16}},
           "config": {"model": "gui_hf", "model_args": "pretrained=/ckpt/tiny"}}
    path = tmp_path / "run" / "x" / "20260101_results.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_summary_prints_intervals_and_exits_1_naming_a_task_that_did_not_run(tmp_path, capsys):
    from gui_tasks.reports.summary import main

    _results_file(tmp_path, "configuration error: $SCREENSPOT_V2_DATA_DIR is not set")
    assert main([str(tmp_path / "run")]) == 1
    out, err = capsys.readouterr()
    assert "| tiny | mpr_gui_synth_en | mcq_acc | 0.5000 | [0.2500, 0.7500] | 16 |" in out
    assert "| tiny | mpr_gui_synth_en | format_error_rate | 0.0000 | n/a | 16 |" in out
    assert "- gui_screenspot_v2 (tiny): configuration error: $SCREENSPOT_V2_DATA_DIR is not set" in out
    assert "1 task(s) did not run: gui_screenspot_v2" in err
    assert main([str(tmp_path / "run"), "--format", "csv"]) == 1
    rows = capsys.readouterr().out.splitlines()
    assert rows[1] == "tiny,mpr_gui_synth_en,mcq_acc,0.5,0.25,0.75,16," and rows[-1].startswith("tiny,gui_screenspot_v2,,")
    assert main([str(tmp_path / "run"), "--format", "tex"]) == 1
    assert "mpr\\_gui\\_synth\\_en & mcq\\_acc & 0.5000 & [0.2500, 0.7500] & 16" in capsys.readouterr().out


@pytest.mark.parametrize("content", ['{"results": {"x": ', "[1, 2]", '{"results": 7}', ""])
def test_summary_names_a_broken_results_file_in_one_line(tmp_path, capsys, content):
    """Issue 54: a broken file is one line naming it (exit 2), never a traceback, as the other reports do."""
    from gui_tasks.reports.summary import main

    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "a_results.json").write_text(content, encoding="utf-8")
    assert main([str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gui-eval summary: ") and "a_results.json" in err[0]


def test_readme_first_try_lines_fit_the_tasks_answer_budgets():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "gui-eval make-tiny-model --grounding" in readme and "sphinx_sim_toggle" in readme
    assert "max_new_tokens=16" not in readme.split("## Documentation")[0]  # no budget that cuts real answers
    said = dict(re.findall(r"`([a-z0-9_]+)` (\d+)", readme.split("Budgets of the first-try tasks:")[1].split("\n\n")[0]))
    configs = _task_configs()
    assert len(said) >= 5
    for task, budget in said.items():
        assert configs[task]["generation_kwargs"]["max_new_tokens"] == int(budget), task
    first = re.search(r"--tasks ([a-z0-9_,]+) --limit 2 --log_samples --output_path runs/first", readme)
    assert first and set(first.group(1).split(",")) == set(said)


def test_the_printed_table_shows_our_tasks_headline_figures_only():
    from gui_tasks.harness.lmms_stats import TABLE_NOTE, headline_results, install_table_filter

    install_table_filter()
    from lmms_eval.utils import make_table

    res = {"results": {"ours": {"alias": "ours", "mcq_acc,none": 0.5, "mcq_acc_stderr,none": 0.1, "mcq_gold_share_a,none": 0.2,
                                "format_error_rate,none": 0.0, "sample_error,none": 0},
                       "theirs": {"alias": "theirs", "acc,none": 0.3, "acc_norm,none": 0.4}},
           "configs": {"ours": {"metric_list": [{"metric": "mcq_acc"}, {"metric": "mcq_gold_share_a"},
                                                {"metric": "format_error_rate"}]},
                       "theirs": {"metric_list": [{"metric": "acc"}, {"metric": "acc_norm"}]}},
           "n-shot": {}, "higher_is_better": {}}
    shown, hidden = headline_results(res)
    assert hidden and sorted(shown["results"]["ours"]) == ["alias", "format_error_rate,none", "mcq_acc,none",
                                                           "mcq_acc_stderr,none", "sample_error,none"]
    assert shown["results"]["theirs"] == res["results"]["theirs"] and "mcq_gold_share_a,none" in res["results"]["ours"]
    table = make_table(json.loads(json.dumps(res)))
    assert "mcq_gold_share_a" not in table and "acc_norm" in table and TABLE_NOTE in table


def test_data_check_problems_that_say_the_same_are_collapsed_with_counts():
    from gui_tasks.harness.data_check import error_groups
    from gui_core.errors import DataError

    errs = [DataError(f"screenshot not found: /data/ss/img_{i}.png", file="/data/ss/test.json", row=i, field="img_filename")
            for i in range(48)] + [DataError("bbox is empty", file="/data/ss/test.json", row=3, field="bbox")]
    groups = error_groups(errs)
    assert [(str(e), n) for e, n in groups] == [(str(errs[0]), 48), (str(errs[-1]), 1)]


def test_docs_quote_the_measured_figures_from_one_place():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_figures", ROOT / "benchmarks" / "docs_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.check() == []
    assert module.figures()["demo_setup"] == "207 s"


def test_the_readme_first_try_line_is_the_one_the_docs_give():
    """The README's first-try commands are quoted verbatim by docs/running.md (one text, two places, checked)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    running = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    block = readme.split("**First try, offline**")[1].split("\n\n", 2)[1]
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    assert lines[0] == "gui-eval make-tiny-model --grounding runs/tiny" and len(lines) == 4
    assert all(line in running for line in lines), [line for line in lines if line not in running]
