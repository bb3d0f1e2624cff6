"""Chat and simple request layouts (lmms-eval 0.7.3), multi-round results as any sequence, gui_hf model-arg validation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lmms_eval.api.instance import unwrap_generation_output

from gui_models.generation_core import messages_to_text_images, request_layout
from gui_models.hf_backend import GuiHF, merge_cli_args
from gui_tasks.harness.lmms_layout import multi_round_layout, rounds_of


# --- multi-round results ------------------------------------------------------------------------------


def test_rounds_arrive_as_list_tuple_or_lmms_evals_text_of_a_tuple():
    assert rounds_of([["click [1]", "press [stop]"]]) == ["click [1]", "press [stop]"]
    assert rounds_of([("click [1]", "press [stop]")]) == ["click [1]", "press [stop]"]
    text, _ = unwrap_generation_output(("click [1]", "press [stop]"))  # what qwen2_vl's tuple becomes
    assert text == "('click [1]', 'press [stop]')"
    assert rounds_of([text]) == ["click [1]", "press [stop]"]
    assert rounds_of(["click [1]", "press [stop]"]) == ["click [1]", "press [stop]"]
    assert rounds_of(["press [stop]"]) == ["press [stop]"]
    assert rounds_of(["(not a tuple"]) == ["(not a tuple"]
    assert rounds_of(["(1, 2)"]) == ["(1, 2)"]  # a tuple of numbers is an answer text, not rounds


@given(st.lists(st.text(max_size=20), min_size=1, max_size=5))
def test_rounds_survive_every_shape_a_backend_returns(outs):
    for shape in (list(outs), tuple(outs)):
        text, _ = unwrap_generation_output(shape)
        assert rounds_of([text]) == list(outs)


# --- which layout ---------------------------------------------------------------------------------------


def test_multi_round_layout_follows_the_method_that_will_run():
    class Simple:
        is_simple = True

        def generate_until_multi_round(self, requests):  # consumes the simple layout
            return []

    class ChatInheriting(Simple):
        is_simple = False

    class ChatOwn(Simple):
        is_simple = False

        def generate_until_multi_round(self, requests):  # consumes doc_to_messages
            return []

    assert multi_round_layout("simple", None) == "simple"
    assert multi_round_layout("chat", ChatInheriting()) == "simple"
    assert multi_round_layout("chat", ChatOwn()) == "chat"
    assert multi_round_layout("chat", "qwen2_5_vl") == "simple"  # lmms-eval's chat Qwen2_5_VL inherits the simple loop
    assert multi_round_layout("chat", "no_such_model") == "chat"


def _task(name, task_type):
    from lmms_eval.tasks import TaskManager

    from gui_tasks.harness.lmms_integration import attach

    attach()
    tm = TaskManager("WARNING", model_name="qwen2_5_vl")
    task = tm.load_task_or_group([name], task_type)[name]
    task.build_all_requests(limit=2, rank=0, world_size=1)
    return task


def test_chat_and_simple_requests_carry_the_same_prompt_and_images(session_cache):
    simple, chat = _task("mpr_gui_synth_en", "simple"), _task("mpr_gui_synth_en", "chat")
    assert [request_layout(i.args) for i in simple.instances] == ["simple", "simple"]
    assert [request_layout(i.args) for i in chat.instances] == ["chat", "chat"]
    for s, c in zip(simple.instances, chat.instances):
        doc = simple.dataset["test"][s.doc_id]
        text, images = messages_to_text_images(c.args[1](doc))
        assert text == s.args[0] == c.args[0]
        visuals = s.args[2](doc)
        assert [im.tobytes() for im in images] == [im.tobytes() for im in visuals] and len(visuals) >= 1


def test_multi_round_task_sends_qwen2_5_vl_the_layout_its_loop_unpacks(session_cache):
    chat = _task("sphinx_sim_toggle", "chat")
    assert all(len(i.args) == 7 and isinstance(i.args[1], dict) for i in chat.instances)


# --- gui_hf model args (issue 16) ------------------------------------------------------------------------


def test_bad_dtype_names_the_parameter_value_and_choices():
    with pytest.raises(ValueError, match=r"dtype=float17 .*auto, float32, bfloat16, float16"):
        GuiHF(pretrained="/tmp", dtype="float17")


def test_missing_checkpoint_folder_is_named():
    with pytest.raises(ValueError, match=r"pretrained=/nonexistent: no such folder"):
        GuiHF(pretrained="/nonexistent")


def test_unknown_model_arg_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown model args \['temprature'\].*'max_new_tokens'"):
        GuiHF(pretrained="/tmp", temprature=0.1)


def test_batch_size_from_model_args_wins_over_the_cli_default_and_conflicts_are_named():
    assert merge_cli_args("gui_hf", {"batch_size": 4}, {"batch_size": 1, "device": None})["batch_size"] == 4
    assert merge_cli_args("gui_hf", {}, {"batch_size": 2})["batch_size"] == 2
    assert merge_cli_args("gui_hf", {"batch_size": 2}, {"batch_size": "2"})["batch_size"] == 2
    with pytest.raises(ValueError, match=r"batch_size given twice: model_args batch_size=4 and --batch_size 2"):
        merge_cli_args("gui_hf", {"batch_size": 4}, {"batch_size": 2})


def test_batch_size_in_model_args_through_lmms_evals_constructor(tiny_checkpoint):
    lm = GuiHF.create_from_arg_string(f"pretrained={tiny_checkpoint},device=cpu,batch_size=3",
                                      {"batch_size": 1, "max_batch_size": None, "device": None})
    assert lm.batch_size == 3


def test_multi_round_refusal_is_read_from_the_method_that_would_run():
    from gui_tasks.harness.lmms_layout import multi_round_refusal

    why = multi_round_refusal("openai")
    assert why is not None and "gui_openai" in why and "gui_wrap" in why and "NotImplementedError" in why
    assert multi_round_refusal("gui_openai") is None and multi_round_refusal("gui_wrap") is None
    assert multi_round_refusal("gui_hf") is None and multi_round_refusal(None) is None


@pytest.mark.slow
def test_multi_round_task_on_a_backend_without_rounds_runs_through_the_agentic_loop(tmp_path, subprocess_env):
    """lmms-eval's own ``openai`` raises on multi-round requests, which dropped every task of the run (exit 0, no
    results); now the SPHINX simulator task runs through lmms-eval's agentic loop (one request per round), says so,
    and the other task is scored as before."""
    from fake_openai import FakeServer
    from lmms_helpers import results, run_openai, samples

    server = FakeServer(["ok"], text="B")
    out = tmp_path / "run"
    try:
        env = {**subprocess_env, "GUI_EVAL_CACHE": str(tmp_path / "cache"), "OPENAI_API_KEY": "EMPTY"}
        proc, log = run_openai(server.base_url, "mpr_gui_synth_en,sphinx_sim_toggle", out, env, "--limit", "2")
    finally:
        server.stop()
    res = results(out)
    assert res["results"]["mpr_gui_synth_en"]["mcq_acc,none"] is not None, log[-3000:]
    assert [s["filtered_resps"] for s in samples(out, "mpr_gui_synth_en")] == ["B", "B"]
    # "B" is no action: each toggle episode ends at its first round (the official agent stops at a format error)
    assert server.hits == 2 + 2
    meta = res["configs"]["sphinx_sim_toggle"]["metadata"]
    assert "not_run" not in meta and meta["interaction"] == "agentic"
    assert "backend 'openai' has no multi-round generation" in meta["interaction_reason"]
    recs = [s["sphinx_sr"] for s in samples(out, "sphinx_sim_toggle")]
    assert [(r["format_errors"], r["n_actions"], r["interaction"]) for r in recs] == [(1, 0, "agentic")] * 2
    assert res["results"]["sphinx_sim_toggle"]["sphinx_format_error_rate,none"] == pytest.approx(1.0)
