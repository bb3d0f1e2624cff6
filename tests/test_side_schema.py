"""Issue 54: a logged side channel has one schema, checked by validate before anything scores from it; verify's
comparison reads every field scoring reads (kind, version, missing digits, floors, a null log-prob sum)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_core.logit_capture import Capture, CapturedResponse, Step, response_side, side_difference
from gui_core.side_schema import capture_kinds, side_problem
from gui_models.model_args import capture_kinds_of
from gui_tasks.submit.leaderboard import SubmissionError, _check_side

TEXT = "[0.71, 0.23]"
TOKENS = ["[", "0", ".", "7", "1", ",", " 0", ".", "23", "]"]


def _side(kind: str = "exact", values=None) -> dict:
    steps, pos = [], 0
    for i, t in enumerate(TOKENS):
        digits = tuple(values[i] if values else math.sin(i * 10 + d) * 3 for d in range(10))
        missing, floor = (), None
        if kind == "top_logprobs":  # a server's log-probabilities: <= 0, the absent digits at the lowest returned
            digits = tuple(-abs(v) for v in digits)
            floor = min(digits) - 1.0
            missing = (0, 1)
            digits = (floor, floor, *digits[2:])
        steps.append(Step(i, t, -0.1 * (i + 1), 1.0, digits, pos, pos + len(t), 0.0, missing, floor))
        pos += len(t)
    resp = CapturedResponse(TEXT, Capture(tuple(steps), kind=kind), {"model_image_sizes": [[28, 28]]})
    return json.loads(json.dumps(response_side(resp)))


@pytest.mark.parametrize("kind", ["exact", "top_logprobs"])
def test_a_logged_side_channel_has_the_schema(kind):
    assert side_problem(_side(kind)) is None
    assert capture_kinds(_side(kind)) == {kind}


@given(st.lists(st.floats(-30, 30), min_size=10, max_size=10), st.sampled_from(["exact", "top_logprobs"]))
@settings(max_examples=60, deadline=None)
def test_every_side_channel_the_capture_writes_passes(values, kind):
    assert side_problem(_side(kind, [v for v in values])) is None


FORGED = {
    "a changed capture version": (lambda c: c.update(version="digits-v0"), "side.capture.version"),
    "an unknown kind": (lambda c: c.update(kind="sampled"), "side.capture.kind"),
    "a null log-prob sum": (lambda c: c.update(logprob_sum=None), "logprob_sum: null"),
    "a positive log-prob sum": (lambda c: c.update(logprob_sum=3.0), "logprob_sum: 3.0"),
    "two million digit values": (lambda c: c["steps"][0].update(digits=[0.0] * 2_000_000), "got 2000000"),
    "nine digit values": (lambda c: c["steps"][0].update(digits=[0.0] * 9), "got 9"),
    "a NaN digit": (lambda c: c["steps"][1]["digits"].__setitem__(4, float("nan")), r"steps\[1\].digits"),
    "a string digit": (lambda c: c["steps"][1]["digits"].__setitem__(4, "1.0"), r"steps\[1\].digits"),
    "missing digits on an exact capture": (lambda c: c["steps"][0].update(missing=[3], floor=-2.0), "exact capture"),
    "more steps than n_steps": (lambda c: c.update(n_steps=1), "at most n_steps"),
    "overlapping spans": (lambda c: c["steps"][1].update(start=0), "span"),
    "a negative span": (lambda c: c["steps"][0].update(start=-1), "span"),
    "an unknown step field": (lambda c: c["steps"][0].update(logz=1.0), "unknown field"),
    "an unknown capture field": (lambda c: c.update(pss=1.0), "unknown field"),
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_a_forged_capture_is_refused_by_its_form(name):
    forge, said = FORGED[name]
    side = _side()
    forge(side["capture"])
    problem = side_problem(side)
    assert problem is not None and __import__("re").search(said, problem), problem


TOP_K_FORGED = {
    "missing digits with no floor": (lambda s: s.update(floor=None), "without the floor"),
    "a floor above 0": (lambda s: s.update(floor=5.0), "floor: 5.0"),
    "a missing digit off the floor": (lambda s: s["digits"].__setitem__(0, 9.0), "not the step's floor"),
    "a missing digit named twice": (lambda s: s.update(missing=[0, 0]), "distinct digits"),
    "a missing digit 10": (lambda s: s.update(missing=[10]), "distinct digits"),
}


@pytest.mark.parametrize("name", sorted(TOP_K_FORGED))
def test_a_forged_top_k_step_is_refused(name):
    forge, said = TOP_K_FORGED[name]
    side = _side("top_logprobs")
    forge(side["capture"]["steps"][0])
    assert said in (side_problem(side) or "")


def test_a_forged_crop_capture_and_unknown_extras_are_refused():
    side = _side()
    side["extras"]["crop"] = {"first_text": TEXT, "first_capture": {**side["capture"], "kind": "exactish"}}
    assert "side.extras.crop.first_capture.kind" in side_problem(side)
    assert "unknown field(s) ['pss']" in side_problem({**_side(), "extras": {"pss": 1.0}})
    assert side_problem([1, 2]) == "side: not an object"


def test_validate_refuses_a_capture_kind_the_backend_does_not_produce():
    assert capture_kinds_of("gui_hf") == ("exact",) and capture_kinds_of("qwen2_5_vl") == ()
    _check_side("t", {"side": _side()}, "gui_hf")
    _check_side("t", {"side": _side("top_logprobs")}, "gui_openai")
    with pytest.raises(SubmissionError, match="top_logprobs digit capture, which backend 'gui_hf' does not produce"):
        _check_side("t", {"side": _side("top_logprobs")}, "gui_hf")
    with pytest.raises(SubmissionError, match="does not produce"):
        _check_side("t", {"side": _side()}, "qwen2_5_vl")
    with pytest.raises(SubmissionError, match="t: side.capture.logprob_sum"):
        bad = _side()
        bad["capture"]["logprob_sum"] = None
        _check_side("t", {"side": bad}, "gui_hf")


def test_verify_compares_every_field_scoring_reads():
    a = _side("top_logprobs")
    assert side_difference(a, json.loads(json.dumps(a))) is None
    for change, said in [(lambda c: c.update(kind="exact"), "kind differs"),
                         (lambda c: c.update(version="digits-v0"), "version differs"),
                         (lambda c: c["steps"][0].update(missing=[0]), "missing digits differ"),
                         (lambda c: c["steps"][0].update(floor=c["steps"][0]["floor"] - 1.0), "differs by 1 nats"),
                         (lambda c: c["steps"][0].pop("floor"), "floor logged but not re-captured"),
                         (lambda c: c.update(logprob_sum=None), "log-prob sum logged, null now"),
                         (lambda c: c["steps"][0].update(digits=c["steps"][0]["digits"] * 2), "20 now")]:
        b = json.loads(json.dumps(a))
        change(b["capture"])
        assert said in (side_difference(a, b) or ""), said
