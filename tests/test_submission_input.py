"""Submissions as hostile input: any malformed file is a refusal with a reason; model args are re-checked as the
backend checks them (issue 21, item 5)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gui_tasks.commands.cli import main as cli_main
from gui_tasks.submit.leaderboard import (MAX_DEPTH, SubmissionError, nesting_depth, parse_submission,
                                   submission_hash, validate_submission)


def _rehash(sub):
    sub["submission_sha256"] = submission_hash(sub)
    return sub


def _refused_by_cli(tmp_path, capsys, data: bytes, reason: str) -> None:
    path = tmp_path / "sub.json"
    path.write_bytes(data)
    assert cli_main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "refused" in err and reason in err and "Traceback" not in err, err


@pytest.mark.parametrize("data, reason", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),  # a RecursionError traceback before
    (b'{"schema": "gui-eval-submission/3", "tasks": ' + b"[" * 80 + b"]" * 80 + b"}", f"nested deeper than {MAX_DEPTH} levels"),
    (b'{"schema": "gui-eval-submission/3", "tasks": [', "not valid JSON: Expecting value at line 1"),
    (b"", "not valid JSON"),
    (b'{"a": NaN}', "NaN is not JSON"),
    (b'{"a": 1, "a": 2}', "key 'a' appears twice"),
    (b'\xff\xfe{"a": 1}', "not UTF-8 text"),
    (b'["gui-eval-submission/3"]', "a submission is a JSON object, this file holds a list"),
    (b'{"schema": "gui-eval-submission/3", "model": [], "tasks": "x"}', "$.model: expected object, got list"),
])
def test_malformed_files_are_refused_with_a_reason(tmp_path, capsys, data, reason):
    _refused_by_cli(tmp_path, capsys, data, reason)


def test_truncated_and_retyped_submissions_are_refused(honest, tmp_path, capsys):
    text = json.dumps(honest).encode()
    _refused_by_cli(tmp_path, capsys, text[: len(text) // 2], "not valid JSON")
    sub = copy.deepcopy(honest)
    sub["tasks"][0]["samples"][3]["doc_id"] = "3"
    _refused_by_cli(tmp_path, capsys, json.dumps(_rehash(sub)).encode(), "$.tasks[0].samples[3].doc_id: expected integer")
    sub = copy.deepcopy(honest)
    sub["hashing"] = {"deep": json.loads("[" * 70 + "]" * 70)}  # the schema allows any object here
    _refused_by_cli(tmp_path, capsys, json.dumps(_rehash(sub)).encode(), "nested deeper than 64 levels")


def test_nesting_depth_counts_without_recursion():
    assert nesting_depth(1) == 0 and nesting_depth({"a": [1, {"b": []}]}) == 4  # object, list, object, list
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    assert nesting_depth(deep) == MAX_DEPTH + 1  # stops as soon as the limit is passed


@pytest.mark.parametrize("extra, reason", [
    (",prompt_affix.suffix=Think step by step.", "intervention parameter 'prompt_affix.suffix' names no selected intervention"),
    (",interventions=prompt_affix,prompt_affix.sufix=x", "bad parameters for intervention 'prompt_affix'"),
    (",interventions=no_such_plugin", "unknown intervention 'no_such_plugin'"),
    (",dtype=int3", "gui_hf: dtype=int3 is not a dtype"),
    (",temperature=0.7", "gui_hf: unknown model args ['temperature']"),
])
def test_model_args_the_backend_would_refuse_are_refused(honest, extra, reason):
    sub = copy.deepcopy(honest)
    sub["model"]["args"] += extra
    if "interventions=" in extra:
        sub["model"]["interventions"] = [extra.split("interventions=")[1].split(",")[0]]
        for t in sub["tasks"]:
            t["protocol"] = f"{t['prompt_protocol']}+{sub['model']['interventions'][0]}"
    with pytest.raises(SubmissionError, match="model args refused as backend 'gui_hf' would refuse them") as err:
        validate_submission(_rehash(sub), rescore=False)
    assert reason in str(err.value)


def test_model_args_check_is_the_backends_own(honest):
    """gui_hf itself refuses the same args with the same message, before it loads anything."""
    from gui_models.hf_backend import GuiHF

    with pytest.raises(ValueError, match="names no selected intervention"):
        GuiHF.create_from_arg_string("pretrained=Org/Nothing,prompt_affix.suffix=x")
    ok = copy.deepcopy(honest)
    ok["model"]["args"] += ",interventions=prompt_affix,prompt_affix.suffix=x"
    ok["model"]["interventions"] = ["prompt_affix"]
    for t in ok["tasks"]:
        t["protocol"] = t["prompt_protocol"] + "+prompt_affix"
    validate_submission(_rehash(ok), rescore=False)  # selected: accepted (labelled with its intervention)


def test_other_backends_get_no_intervention_args(honest):
    sub = copy.deepcopy(honest)
    sub["model"]["backend"] = "qwen2_5_vl"
    sub["model"]["args"] += ",crop.alpha=0.5"
    with pytest.raises(SubmissionError, match=r"backend 'qwen2_5_vl' applies no interventions but the model args set \['crop.alpha'\]"):
        validate_submission(_rehash(sub), rescore=False)


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                     max_leaves=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.lists(st.sampled_from(["tasks", 0, "samples", 1, "model", "args", "metadata", "response", "doc_id",
                                      "metrics", "target", "interventions", "schema", "n_samples"]), min_size=1, max_size=4),
       value=_json)
def test_any_replaced_part_is_a_refusal_or_accepted_never_a_crash(honest, path, value):
    sub = copy.deepcopy(honest)
    node = sub
    for key in path[:-1]:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
    last = path[-1]
    if isinstance(node, dict) and isinstance(last, str):
        node[last] = value
    elif isinstance(node, list) and isinstance(last, int) and last < len(node):
        node[last] = value
    text = json.dumps(_rehash(sub) if nesting_depth(sub) <= MAX_DEPTH else sub)
    try:
        validate_submission(parse_submission(text), rescore=False)
    except SubmissionError:
        pass
