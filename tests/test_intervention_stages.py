"""Intervention plugins: selection by name, stage order, hooks always removed, entry-point loading."""

from __future__ import annotations

import sys
from contextlib import contextmanager

import pytest

from gui_interventions import available, build_run, hookimpl
from gui_interventions.payloads import RequestContext
from gui_models.hf_backend import GuiHF
from gui_models.layers import decoder_layers

from test_backend import make_requests


class Recorder:
    """Records every stage call into a shared log."""

    def __init__(self, tag: str, log: list) -> None:
        self.tag, self.log = tag, log

    @hookimpl
    def gui_intervention_request(self, request):
        self.log.append(("request", self.tag))
        return request.with_(text=request.text + f" [{self.tag}]")

    @hookimpl
    def gui_intervention_forward(self, forward):
        self.log.append(("forward", self.tag, [r.text for r in forward.requests]))
        return None

    @hookimpl
    def gui_intervention_response(self, response):
        self.log.append(("response", self.tag))
        return response.text + self.tag


class LayerCounter:
    """Attaches a forward hook on decoder layer ``layer`` for the duration of generation."""

    def __init__(self, layer: int = 1, fail: bool = False) -> None:
        self.layer, self.fail, self.calls, self.module = layer, fail, 0, None

    @hookimpl
    def gui_intervention_forward(self, forward):
        @contextmanager
        def attached():
            self.module = decoder_layers(forward.model)[self.layer]

            def hook(module, args, output):
                self.calls += 1
                if self.fail:
                    raise RuntimeError("boom inside the forward pass")

            handle = self.module.register_forward_hook(hook)
            try:
                yield
            finally:
                handle.remove()

        return attached()


@pytest.fixture(scope="module")
def lm(tiny_checkpoint):
    return GuiHF(pretrained=str(tiny_checkpoint), device="cpu")


def test_stages_run_in_selection_order(lm):
    log: list = []
    lm.interventions = build_run("a+b", factories={"a": lambda: Recorder("a", log), "b": lambda: Recorder("b", log)})
    try:
        out = lm.generate_until(make_requests(lm, n=1))
    finally:
        lm.interventions = build_run(None)
    assert [e[:2] for e in log] == [("request", "a"), ("request", "b"), ("forward", "a"), ("forward", "b"), ("response", "a"), ("response", "b")]
    assert log[2][2] == [make_requests(lm, n=1)[0].args[0] + " [a] [b]"]
    assert out[0].endswith("ab")


def test_forward_hook_runs_and_is_removed_after_each_request(lm):
    counter = LayerCounter(layer=2)
    lm.interventions = build_run("count", factories={"count": lambda: counter})
    try:
        lm.generate_until(make_requests(lm, n=2))
    finally:
        lm.interventions = build_run(None)
    assert counter.calls >= 2  # prompt pass plus decoding steps, for each request
    assert not counter.module._forward_hooks


def test_hook_is_removed_when_generation_raises(lm):
    from gui_core.sample_faults import fault_of

    counter = LayerCounter(layer=0, fail=True)
    lm.interventions = build_run("count", factories={"count": lambda: counter})
    try:
        reqs = make_requests(lm, n=2)
        with pytest.raises(RuntimeError, match="boom"):  # direct use raises
            lm._generate([lm._request_context(reqs[0])])
        assert not counter.module._forward_hooks
        # in a run the fault is each document's named error (retried alone first), and the run goes on
        assert lm.generate_until(reqs) == ["", ""]
        docs = lm.task_dict["t"]["test"]
    finally:
        lm.interventions = build_run(None)
    assert all("its generation (gui_hf): RuntimeError: boom" in (fault_of("t", d) or "") for d in docs[:2])
    assert not counter.module._forward_hooks
    # and a run without the intervention afterwards is unaffected
    assert lm.generate_until(make_requests(lm, n=2)) == lm.generate_until(make_requests(lm, n=2))


def test_builtin_prompt_affix_is_found_through_its_entry_point():
    assert "prompt_affix" in available()
    run = build_run("prompt_affix", {"prompt_affix.suffix": "Think in English."})
    req = RequestContext(text="Q?", images=(), doc_id=0, task="t", gen_kwargs={})
    assert run.request(req).text == "Q?\nThink in English."


def test_unknown_intervention_suggests_names():
    with pytest.raises(ValueError, match="prompt_affix"):
        build_run("prompt_afix")


def test_parameters_for_unselected_plugins_are_rejected():
    with pytest.raises(ValueError, match="names no selected intervention"):
        build_run("prompt_affix", {"prompt_affix.suffix": "x", "crop.alpha": 0.8})


def test_third_party_intervention_registered_only_by_entry_point(tmp_path, monkeypatch):
    (tmp_path / "acme_steer.py").write_text(
        "from gui_interventions import hookimpl\n"
        "class Shout:\n"
        "    def __init__(self, times=1):\n"
        "        self.times = int(times)\n"
        "    @hookimpl\n"
        "    def gui_intervention_response(self, response):\n"
        "        return response.text.upper() + '!' * self.times\n",
        encoding="utf-8",
    )
    info = tmp_path / "acme_steer-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-steer\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[gui_interventions]\nshout = acme_steer:Shout\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "shout" in available()
    from gui_interventions.payloads import ResponseContext

    run = build_run("shout", {"shout.times": 2})
    req = RequestContext(text="Q", images=(), doc_id=0, task="t", gen_kwargs={})
    assert run.response(ResponseContext(text="b", request=req, rerun=lambda r: "")) == "B!!"
    sys.modules.pop("acme_steer", None)
