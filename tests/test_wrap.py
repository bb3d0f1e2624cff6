"""gui_wrap on lmms-eval's own qwen2_5_vl backend equals gui_hf on the same checkpoint: text, digit captures, steering."""

from __future__ import annotations

import pytest
import torch
from lmms_eval.api.instance import Instance
from PIL import Image

from gui_interventions import build_run
from gui_models.hf_backend import GuiHF
from gui_core.logit_capture import capture_of, extras_of
from gui_models.wrap_backend import GuiWrap, GuiWrapChat
from tolerance import assert_close
from xli_helpers import hand_memory

# 224 x 224 is a multiple of 28 inside the tiny checkpoint's pixel budget (64 * 28 * 28): neither
# qwen_vl_utils (used by the qwen2_5_vl backend) nor the processor resizes it, so both backends feed equal pixels
SIDE = 224
PROMPTS = ["Where is the gear icon? Answer [x, y].", "齿轮图标在哪里？", "Где кнопка настроек?"]
COLORS = [(250, 250, 250), (20, 40, 200), (200, 30, 30)]
GEN = {"max_new_tokens": 6, "temperature": 0, "do_sample": False}


@pytest.fixture(scope="module")
def checkpoint(tiny_qwen2_5_vl):
    return tiny_qwen2_5_vl


def _docs(n):
    return [{"img": Image.new("RGB", (SIDE, SIDE), COLORS[i % 3]), "lang": "ja", "dimension": ("AU", "AP")[i % 2]}
            for i in range(n)]


def _messages(doc):
    return [{"role": "user", "content": [{"type": "image", "url": doc["img"]}, {"type": "text", "text": doc["q"]}]}]


def requests(lm, n=3):
    """Chat-layout requests, as lmms-eval builds them for a chat backend (ConfigurableMessagesTask)."""
    docs = _docs(n)
    for i, d in enumerate(docs):
        d["q"] = PROMPTS[i % 3]
    lm.task_dict = {"t": {"test": docs}}
    return [Instance("generate_until", (PROMPTS[i % 3], _messages, dict(GEN), i, "t", "test"), 0,
                     {"task": "t", "doc_id": i, "repeats": 1}) for i in range(n)]


@pytest.fixture(scope="module")
def hf(checkpoint):
    return GuiHF(pretrained=str(checkpoint), device="cpu", dtype="bfloat16", capture_logits="digits")


@pytest.fixture(scope="module")
def wrap(checkpoint):
    return GuiWrapChat(backend="qwen2_5_vl", pretrained=str(checkpoint), device="cpu", device_map="cpu",
                       max_pixels=SIDE * SIDE, min_pixels=4 * 28 * 28, capture_logits="digits")


def _with(lm, selection, params):
    lm.interventions = build_run(selection, params)
    lm.hooks = type(lm.hooks)(lm.interventions, lm.hooks.digit_groups, lm.hooks.tokenizer, lm.hooks.owner)


def test_wrapped_qwen2_5_vl_gives_gui_hf_text_and_digit_captures(hf, wrap):
    a = hf.generate_until(requests(hf))
    b = wrap.generate_until(requests(wrap))
    assert [str(x) for x in b] == [str(x) for x in a]
    for x, y in zip(a, b):
        cx, cy = capture_of(x), capture_of(y)
        assert cx is not None and cy is not None and len(cx.steps) == len(cy.steps) > 0
        assert [s.token_id for s in cy.steps] == [s.token_id for s in cx.steps]
        # floats within the shared tolerance (tests/tolerance.py), token ids exact
        assert_close([(s.digits, s.logprob) for s in cy.steps], [(s.digits, s.logprob) for s in cx.steps])
        # the image the model saw: 224 x 224 (image_grid_thw 16 x 16 patches of 14 pixels)
        assert extras_of(x)["model_image_sizes"] == extras_of(y)["model_image_sizes"] == [[SIDE, SIDE]]


def test_request_stage_rewrites_what_the_wrapped_backend_sees_and_the_log_shows_it(hf, wrap):
    params = {"prompt_affix.suffix": "Think in English."}
    try:
        _with(hf, "prompt_affix", params)
        _with(wrap, "prompt_affix", params)
        reqs_hf, reqs_wrap = requests(hf, 2), requests(wrap, 2)
        a, b = hf.generate_until(reqs_hf), wrap.generate_until(reqs_wrap)
    finally:
        _with(hf, None, {})
        _with(wrap, None, {})
    assert [str(x) for x in b] == [str(x) for x in a]
    assert [r.args[0] for r in reqs_wrap] == [p + "\nThink in English." for p in PROMPTS[:2]]
    assert [r.args[0] for r in reqs_hf] == [r.args[0] for r in reqs_wrap]
    plain = wrap.generate_until(requests(wrap, 2))
    assert [str(x) for x in plain] != [str(x) for x in b]  # the rewritten prompt reached the model


def _steered_states(lm, module, layer):
    """h^(layer) of the last prompt token as the next layer receives it (after any steering hook), per request."""
    from gui_models.layers import decoder_layers

    seen = []

    def pre(mod, args, kwargs):
        hidden = args[0] if args else kwargs["hidden_states"]
        if hidden.shape[1] > 1:  # the prompt pass
            seen.append(hidden[:, -1].detach().float().clone())

    handle = decoder_layers(module)[layer].register_forward_pre_hook(pre, with_kwargs=True)
    try:
        out = lm.generate_until(requests(lm, 2))
    finally:
        handle.remove()
    return out, torch.cat(seen)


def test_gui_xli_through_gui_wrap_steers_exactly_as_through_gui_hf(hf, wrap, tmp_path):
    torch.manual_seed(3)
    hidden = hf.model.config.text_config.hidden_size
    mem = hand_memory(torch.randn(4, hidden), 4 * torch.randn(4, hidden), ["AU", "AU", "AP", "AP"], layers=(1, 2, 3, 4))
    path = str(mem.save(tmp_path / "mem"))
    params = {"gui_xli.memory": path, "gui_xli.layer": 2, "gui_xli.alpha": 2.0, "gui_xli.k": 2}
    _, plain_states = _steered_states(hf, hf.model, 2)
    try:
        _with(hf, "gui_xli", params)
        _with(wrap, "gui_xli", params)
        out_hf, states_hf = _steered_states(hf, hf.model, 2)
        out_wrap, states_wrap = _steered_states(wrap, wrap.module, 2)
        picked_hf = [r.indices for r in hf.interventions.plugins[0][1].last_retrievals]
        picked_wrap = [r.indices for r in wrap.interventions.plugins[0][1].last_retrievals]
    finally:
        _with(hf, None, {})
        _with(wrap, None, {})
    assert not torch.equal(states_hf, plain_states)  # the steering changed the state
    torch.testing.assert_close(states_wrap, states_hf, rtol=0, atol=0)
    assert [str(x) for x in out_wrap] == [str(x) for x in out_hf]
    assert picked_wrap[-1] == picked_hf[-1]


def test_backend_without_a_module_refuses_forward_stage_and_capture_naming_it():
    with pytest.raises(ValueError, match="backend 'dummy'.*capture_logits=digits"):
        GuiWrap(backend="dummy", capture_logits="digits")


def test_unknown_backend_is_named():
    with pytest.raises(ValueError, match="not found"):
        GuiWrap(backend="no_such_backend")


@pytest.mark.slow
def test_cli_gui_wrap_logs_the_digit_captures_gui_hf_logs(tmp_path, tiny_checkpoint, subprocess_env):
    """Through lmms-eval end to end (chat requests, the samples log): gui_wrap around gui_hf == gui_hf, per sample."""
    import json
    import subprocess

    from gui_tasks.commands.cli import find_results, lmms_eval_command

    task = "icon_localization_synth"
    per_run = {}
    for name, model, args in (("hf", "gui_hf", f"pretrained={tiny_checkpoint},device=cpu,capture_logits=digits"),
                              ("wrap", "gui_wrap", f"backend=gui_hf,pretrained={tiny_checkpoint},device=cpu,capture_logits=digits")):
        out = tmp_path / name
        cmd = lmms_eval_command(args, [task], out, limit=3, model=model, extra=["--gen_kwargs", "max_new_tokens=10"])
        proc = subprocess.run(cmd, env=subprocess_env, capture_output=True, text=True, timeout=600)
        assert find_results(out), (proc.stdout + proc.stderr)[-3000:]
        rows = [json.loads(x) for x in sorted(out.rglob(f"*_samples_{task}.jsonl"))[-1].read_text(encoding="utf-8").splitlines()]
        per_run[name] = {r["doc_id"]: (r["filtered_resps"], r["pss_mean"]) for r in rows}
    assert len(per_run["hf"]) == 3
    assert_close(per_run["wrap"], per_run["hf"])  # responses exact, PSS floats within the shared tolerance
    assert all(rec["captured"] for _, rec in per_run["hf"].values())


def test_gui_wrap_resumes_from_its_journal_with_the_captures(checkpoint, tmp_path, capsys):
    """Issue 53: gui_wrap keeps every answer in its run journal; a second run asks the wrapped backend only what is
    missing, and the reused answers carry their digit captures."""
    def build():
        return GuiWrapChat(backend="qwen2_5_vl", pretrained=str(checkpoint), device="cpu", device_map="cpu",
                           max_pixels=SIDE * SIDE, min_pixels=4 * 28 * 28, capture_logits="digits",
                           resume=str(tmp_path / "journal"))

    first = build()
    a = first.generate_until(requests(first, 2))
    first.journal.close()
    second = build()
    asked = []
    inner = second.inner.generate_until
    second.inner.generate_until = lambda reqs: asked.append(len(reqs)) or inner(reqs)
    b = second.generate_until(requests(second, 3))
    assert sum(asked) == 1
    assert f"gui_wrap: resumed: 2 of 3 answers from {tmp_path / 'journal'}" in capsys.readouterr().err
    assert [str(x) for x in b[:2]] == [str(x) for x in a]
    from gui_core.logit_capture import response_side

    assert all(capture_of(y) is not None for y in b)
    assert [response_side(y) for y in b[:2]] == [response_side(x) for x in a]  # what scoring reads, bit for bit
