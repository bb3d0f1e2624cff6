"""Thinking models (issue 51): the thinking switch, the reasoning budget, the answer read after the reasoning and the
``thinking_truncated`` outcome, on ``gui_openai`` (a local server that reasons before it answers) and the reading
shared by every task (gui_core.reasoning, gui_tasks.harness.reasoning_results)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fake_openai import FakeServer
from gui_core import reasoning
from gui_core.logit_capture import Capture, CapturedResponse, Step
from gui_interventions import RequestContext
from gui_models.openai_backend import GuiOpenAI
from gui_models.thinking import Thinking
from gui_tasks.harness.reasoning_results import read_results

REASONING = "The settings icon is the gear 1 2 3 at the top right so the answer is"


def _req(doc_id=0, task="t_think", text="Which option?", **gen) -> RequestContext:
    gen = {"max_new_tokens": 16, "until": ["\n\n"], **gen}
    return RequestContext(text=text, images=(), doc_id=doc_id, task=task, gen_kwargs=gen, doc={"id": f"d{doc_id}"},
                          metadata={})


def _backend(url: str, **kw) -> GuiOpenAI:
    oa = GuiOpenAI(base_url=url, model="m", response_cache="none", **kw)
    oa.pool.policy.base_s = 0.01
    return oa


# --- the reading ------------------------------------------------------------------------------------------------


def test_answer_is_read_after_the_last_closing_tag():
    split = reasoning.split_reasoning("<think>a</think> mid <think>b</think>\n\nC")
    assert split.closed and "<think>b</think>" in split.reasoning and "<think>b</think>\n\nC"[16:] == "\n\nC"
    assert "<think>a</think> mid <think>b</think>\n\nC"[split.answer_start:] == "C"


def test_a_prefilled_opening_tag_still_splits_at_the_closing_one():
    text = "reasoning only here</think>B"
    assert text[reasoning.split_reasoning(text).answer_start:] == "B"


def test_configured_tags_are_used():
    tags = reasoning.reasoning_tags('[["<reason>", "</reason>"]]', "t")
    split = reasoning.split_reasoning("<reason>x</reason>A", tags)
    assert split.closed and split.answer_start == len("<reason>x</reason>")


def test_no_tags_is_all_answer_unless_the_budget_cut_a_reasoning_the_template_opened():
    assert reasoning.split_reasoning("B").answer_start == 0
    assert reasoning.split_reasoning("<think>I think") == reasoning.Split(14, "<think>I think", False)
    answered = reasoning.read_generation("B", reasoning.DEFAULT_TAGS, "on", hit_budget=False)
    assert answered.answer_start == 0 and answered.reasoning_chars == 0 and not answered.truncated
    cut = reasoning.read_generation("so the gear", reasoning.DEFAULT_TAGS, "on", hit_budget=True)
    assert cut.truncated and cut.reasoning_chars == len("so the gear")
    assert reasoning.read_generation("B", reasoning.DEFAULT_TAGS, None, hit_budget=True) is None


@given(st.text(max_size=200))
def test_split_never_raises_and_the_answer_never_holds_a_closing_tag(text):
    split = reasoning.split_reasoning(text)
    assert 0 <= split.answer_start <= len(text)
    if split.closed:
        assert "</think>" not in text[split.answer_start:]


def test_bad_thinking_args_are_refused_naming_the_arg():
    with pytest.raises(ValueError, match="thinking="):
        Thinking.from_args({"thinking": "maybe"}, "gui_hf")
    with pytest.raises(ValueError, match="think_budget"):
        Thinking.from_args({"think_budget": "0"}, "gui_hf")
    with pytest.raises(ValueError, match="reasoning_tags"):
        Thinking.from_args({"reasoning_tags": "[1]"}, "gui_hf")
    with pytest.raises(ValueError, match="unknown model args"):
        from gui_models.model_args import check_gui_hf_args

        check_gui_hf_args({"thinkng": "on"})


def test_stops_apply_only_to_the_answer_after_the_reasoning():
    on = Thinking.from_args({"thinking": "on"}, "t")
    assert on.cut("<think>a\n\nb</think>\n\nB\n\nmore", ["\n\n"]) == "<think>a\n\nb</think>\n\nB"
    assert Thinking().cut("B\n\nmore", ["\n\n"]) == "B"


def test_the_digit_capture_is_cut_to_the_answer():
    text = "<think>0.9 0.9</think>[0.12, 0.34]"
    at = text.index("[")
    steps = (Step(1, "0", -0.1, 0.0, (0.0,) * 10, 7, 8), Step(2, "[", -0.1, 0.0, (0.0,) * 10, at, at + 1),
             Step(3, "0", -0.1, 0.0, (0.0,) * 10, at + 1, at + 2))
    out = reasoning.answer_part(CapturedResponse(text, Capture(steps)), at)
    assert str(out) == "[0.12, 0.34]" and [(s.start, s.end) for s in out.capture.steps] == [(0, 1), (1, 2)]


def test_the_harness_scores_the_answer_after_the_reasoning_and_counts_a_truncated_one():
    reasoning.note("t_h", {"id": "a"}, reasoning.read_generation("<think>x y</think>B", reasoning.DEFAULT_TAGS, "on",
                                                                False, reported_tokens=4))
    read, fields = read_results("t_h", {"id": "a"}, ["<think>x y</think>B"])
    assert read == ["B"] and fields["thinking_truncated"] == 0 and fields["reasoning_tokens"] == 4
    reasoning.note("t_h", {"id": "b"}, reasoning.read_generation("<think>x y", reasoning.DEFAULT_TAGS, "on", True,
                                                                reported_tokens=3))
    read, fields = read_results("t_h", {"id": "b"}, ["<think>x y"])
    assert read == [""] and fields["thinking_truncated"] == 1 and fields["reasoning"]["truncated"] is True
    assert read_results("t_h", {"id": "c"}, ["B"]) == (["B"], {})  # no note: nothing changes


def test_a_family_that_reads_the_whole_text_gets_it(monkeypatch):
    from gui_tasks.harness import reasoning_results

    monkeypatch.setattr(reasoning_results, "reads_after_reasoning", lambda family: family != "whole")
    reasoning.note("t_f", {"id": "a"}, reasoning.read_generation("<think>1</think>B", reasoning.DEFAULT_TAGS, "on", False))
    assert read_results("t_f", {"id": "a"}, ["<think>1</think>B"], "whole")[0] == ["<think>1</think>B"]


# --- gui_openai against a server that reasons before it answers -------------------------------------------------


def test_thinking_on_asks_the_template_for_thinking_with_a_budget_and_no_blank_line_stop():
    server = FakeServer(["ok"], text="B")
    server.reasoning = REASONING
    try:
        oa = _backend(server.base_url, thinking="on")
        out = oa._generate_sync(_req())
        body = server.bodies[-1]
        assert body["chat_template_kwargs"] == {"enable_thinking": True}
        assert body["max_tokens"] == 16 + reasoning.DEFAULT_THINK_BUDGET and body["max_tokens"] >= 1024
        assert "stop" not in body
        assert out.text.startswith("<think>") and out.text.endswith("</think>\n\nB")
        note = reasoning.note_from_extras(out.extras)
        assert note.closed and not note.truncated and note.reasoning_tokens == len(REASONING.split()) + 2
    finally:
        server.stop()


def test_thinking_off_asks_for_none_and_keeps_the_task_budget_and_stops():
    server = FakeServer(["ok"], text="B")
    server.reasoning = REASONING
    try:
        out = _backend(server.base_url, thinking="off")._generate_sync(_req())
        body = server.bodies[-1]
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
        assert body["max_tokens"] == 16 and body["stop"] == ["\n\n"] and out.text == "B"
        assert reasoning.note_from_extras(out.extras).reasoning_tokens == 0
    finally:
        server.stop()


def test_unset_thinking_sends_nothing_and_another_template_key_can_be_named():
    server = FakeServer(["ok"], text="B")
    try:
        _backend(server.base_url)._generate_sync(_req())
        assert "chat_template_kwargs" not in server.bodies[-1]
        _backend(server.base_url, thinking="on", thinking_key="thinking")._generate_sync(_req())
        assert server.bodies[-1]["chat_template_kwargs"] == {"thinking": True}
    finally:
        server.stop()


def test_a_reasoning_cut_by_its_budget_is_thinking_truncated():
    server = FakeServer(["ok"], text="B")
    server.reasoning = REASONING
    try:
        out = _backend(server.base_url, thinking="on", think_budget="1")._generate_sync(_req())
        assert server.bodies[-1]["max_tokens"] == 17
        note = reasoning.note_from_extras(out.extras)
        assert note.truncated and not note.closed and "</think>" not in out.text
    finally:
        server.stop()


def test_a_reasoning_returned_apart_is_joined_back_in_its_tags():
    from gui_models.served_answers import joined_reasoning

    assert joined_reasoning({"reasoning_content": "r"}, "B", reasoning.DEFAULT_TAGS) == "<think>r</think>B"
    assert joined_reasoning({"reasoning": "r"}, "", reasoning.DEFAULT_TAGS, cut=True) == "<think>r"
    assert joined_reasoning({}, "B", reasoning.DEFAULT_TAGS) == "B"


def test_rescoring_the_logged_sample_reads_what_the_live_run_read():
    """The samples file logs the whole response, the side channel (capture spans moved back to it) and the reasoning
    record; re-scoring (submit, validate) rebuilds the note from the record and reads the same answer and digits."""
    from gui_core.logit_capture import capture_of, key_digits_json, response_side, with_side

    text = "<think>0.9</think> [0.12, 0.34]"
    at = text.index("[")
    steps = tuple(Step(k, text[k], -0.5, 0.0, tuple(float(d == k % 10) for d in range(10)), k, k + 1)
                  for k in range(len(text)))
    live = CapturedResponse(text, Capture(steps))
    reasoning.note("t_r", {"id": "x"}, reasoning.read_generation(text, reasoning.DEFAULT_TAGS, "on", False))
    (answer,), fields = read_results("t_r", {"id": "x"}, [live])
    side = reasoning.side_in_full_text(response_side(answer), len(text) - len(str(answer)))
    assert str(answer) == text[at:] and all(s["start"] >= at for s in side["capture"]["steps"])
    reasoning.note("t_r", {"id": "x"}, reasoning.note_from_logged(fields["reasoning"]))
    (again,), fields_again = read_results("t_r", {"id": "x"}, [with_side(text, side)])
    assert str(again) == str(answer) and fields_again == fields
    assert key_digits_json(capture_of(again)) == response_side(answer)["capture"]


def test_gui_wrap_hands_enable_thinking_only_to_a_backend_that_takes_it():
    from gui_models.model_args import check_model_args
    from gui_models.wrap_backend import thinking_arg

    class Takes:
        def __init__(self, pretrained=None, enable_thinking=None):
            pass

    class Refuses:
        def __init__(self, pretrained=None):
            pass

    on = Thinking.from_args({"thinking": "on"}, "gui_wrap")
    assert thinking_arg(Takes, "qwen3_vl", on) is True
    assert thinking_arg(Takes, "qwen3_vl", Thinking.from_args({"thinking": "off"}, "gui_wrap")) is False
    with pytest.raises(ValueError, match="takes no 'enable_thinking'"):
        thinking_arg(Refuses, "qwen2_5_vl", on)
    with pytest.raises(ValueError, match="thinking="):
        check_model_args("gui_wrap", "backend=qwen3_vl,thinking=sometimes")


def test_validate_refuses_a_thinking_setting_the_leaderboard_rules_forbid(monkeypatch):
    from gui_core.benchmark import Submission
    from gui_tasks.submit import submission_rules

    assert submission_rules.thinking_of("pretrained=x,thinking=on") == "on"
    assert submission_rules.thinking_of("pretrained=x") == "default"
    monkeypatch.setattr(submission_rules, "_rules", lambda meta: Submission(thinking=("default", "off")))
    assert submission_rules._thinking_problem({}, "pretrained=x,thinking=off") is None
    assert "thinking=on is not accepted" in submission_rules._thinking_problem({}, "pretrained=x,thinking=on")
    with pytest.raises(ValueError, match="submission thinking"):
        Submission(thinking=("sometimes",))


def test_the_viewer_shows_the_reasoning_folded_with_its_length():
    from gui_tasks.viewer.sample_pages import _reasoning

    record = reasoning.logged_record([reasoning.read_generation("<think>gear <b></think>B", reasoning.DEFAULT_TAGS,
                                                                "on", False, reported_tokens=5)], "after_reasoning")
    html = _reasoning({"resps": [["<think>gear <b></think>B"]], "filtered_resps": ["B"], "reasoning": record})
    assert html.startswith("<details class='reasoning'><summary>") and "5 tokens" in html
    assert "gear &lt;b&gt;" in html and "</details>" in html  # escaped, folded
    cut = reasoning.logged_record([reasoning.read_generation("<think>gear", reasoning.DEFAULT_TAGS, "on", True)], "x")
    assert "cut by its budget" in _reasoning({"resps": [["<think>gear"]], "reasoning": cut})
    assert _reasoning({"resps": [["B"]]}) == ""


def test_the_summary_gives_the_mean_reasoning_length_and_truncated_share_beside_accuracy():
    from types import SimpleNamespace

    from gui_tasks.reports.summary import headline_metrics

    res = SimpleNamespace(config={"metric_list": [{"metric": "mcq_acc"}, {"metric": "format_error_rate"}]},
                          metrics={"mcq_acc": 0.5, "format_error_rate": 0.1, "reasoning_tokens": 812.0,
                                   "thinking_truncated": 0.05})
    assert headline_metrics(res) == ["mcq_acc", "format_error_rate", "reasoning_tokens", "thinking_truncated"]
