"""The ``blind`` intervention (issue 22): blank or removed screenshots at the request stage, and the reports that put
blind runs beside sighted ones."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from PIL import Image

from gui_interventions.blind import Blind
from gui_interventions.manager import build_run
from gui_interventions.payloads import RequestContext
from gui_tasks.submit.leaderboard import interventions_of, protocol_label
from gui_tasks.reports.vision_gain import pair, render_text, split_blind, write_all

FIXTURES = Path(__file__).parent / "fixtures"


def _request(*sizes) -> RequestContext:
    images = tuple(Image.new("RGB", s, (200, 10, 10)) for s in sizes)
    return RequestContext(text="Q?", images=images, doc_id=0, task="t", gen_kwargs={})


def test_blank_mode_keeps_count_size_and_text_and_blanks_every_pixel():
    out = Blind().gui_intervention_request(request=_request((360, 720), (20, 10)))
    assert [im.size for im in out.images] == [(360, 720), (20, 10)] and out.text == "Q?"
    assert all(im.getextrema() == ((255, 255), (255, 255), (255, 255)) for im in out.images)
    assert out.metadata["blind"] == {"mode": "blank", "images": 2, "color": "white"}
    black = Blind(color="black").gui_intervention_request(request=_request((4, 4))).images[0]
    assert black.getextrema() == ((0, 0), (0, 0), (0, 0))


def test_remove_mode_sends_no_image():
    out = Blind(mode="remove").gui_intervention_request(request=_request((360, 720)))
    assert out.images == () and out.metadata["blind"] == {"mode": "remove", "images": 1}


def test_bad_parameters_name_the_choices():
    with pytest.raises(ValueError, match="blind.mode='hide': choose one of blank, remove"):
        Blind(mode="hide")
    with pytest.raises(ValueError, match="blind.color='red'"):
        Blind(color="red")


def test_runs_as_a_registered_request_stage_plugin():
    run = build_run("blind", {"blind.mode": "remove"})
    assert run.names == ["blind"] and run.request(_request((8, 8))).images == ()


def test_split_blind_finds_the_sighted_twin_label():
    assert split_blind("tiny [interventions=blind]") == ("tiny", "blind")
    assert split_blind("tiny [dtype=float32,interventions=gui_xli+blind,blind.mode=remove,gui_xli.k=3]") == (
        "tiny [dtype=float32,interventions=gui_xli,gui_xli.k=3]", "blind[mode=remove]")
    assert split_blind("tiny [interventions=gui_xli]") == ("tiny [interventions=gui_xli]", None)
    assert split_blind("tiny") == ("tiny", None)
    assert protocol_label("mpr-direct-v1", interventions_of("pretrained=x,interventions=blind")) == "mpr-direct-v1+blind"


def test_gain_pairs_rows_of_the_same_model_context_and_language(tmp_path):
    class R:  # the fields pair() reads from report rows
        def __init__(self, model, lang, au, source="synthetic"):
            self.model, self.lang, self.values, self.source = model, lang, {"AU": au, "AP": math.nan}, source

    rows = [R("m", "en", 75.0), R("m [interventions=blind]", "en", 25.0), R("m [interventions=blind]", "zh", 30.0),
            R("m", "en", 90.0, source="official")]
    gains = pair(rows, lambda r: (r.source,))
    assert [(g.model, g.blind, g.context, g.lang) for g in gains] == [("m", "blind", ("synthetic",), "en")]
    assert gains[0].sighted["AU"] == 75.0 and gains[0].without["AU"] == 25.0 and gains[0].gain("AU") == 50.0 and math.isnan(gains[0].gain("AP"))
    text = render_text(gains, ("AU", "AP"))
    assert "75.0/25.0 (+50.0)" in text and "EN" in text and "ZH" not in text  # zh has no sighted run
    paths = write_all(gains, ("AU", "AP"), tmp_path)
    assert all(p.stat().st_size > 0 for p in paths) and Image.open(paths[2]).size[0] > 200


@pytest.mark.slow
def test_blind_through_the_lmms_eval_cli_on_synthetic_and_official_layout_tasks(tmp_path, tiny_checkpoint, subprocess_env):
    """``interventions=blind`` runs mpr_gui_synth_en and the official-layout fixture tasks (MPR zh, GUI-KB); the
    results say blind, and the reports pair the blind run with the sighted one."""
    from gui_tasks.commands.cli import find_results, lmms_eval_command
    from gui_tasks.knowledge.report import build_report
    from gui_tasks.knowledge.report import vision_gains as gkb_gains
    from gui_tasks.mpr.report import build_table, vision_gains
    from gui_tasks.runs.results_io import load_results
    from lmms_helpers import results, run, samples

    mpr = tmp_path / "mpr"
    shutil.copytree(FIXTURES / "mpr_official", mpr)
    env = {**subprocess_env, "MPR_GUI_DATA_DIR": str(mpr), "GUI_KNOWLEDGE_DATA_DIR": str(FIXTURES / "gui_knowledge")}
    tasks = ["mpr_gui_synth_en", "mpr_gui_zh_au", "gui_knowledge_widget"]
    outs = {}
    for name, extra in (("sighted", ""), ("blind", ",interventions=blind")):
        outs[name] = tmp_path / name
        proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu{extra}", tasks, outs[name], limit=4,
                                          extra=["--gen_kwargs", "max_new_tokens=4"]), env, timeout=1200)
        written = results(outs[name])
        assert set(tasks) <= set(written["results"]), log[-3000:]
        for task in tasks:
            assert samples(outs[name], task), (name, task)
    blind_run = load_results(find_results(outs["blind"])[-1])
    assert interventions_of(blind_run.model_args) == ["blind"] and blind_run.model_label.endswith("[interventions=blind]")
    assert protocol_label(blind_run.tasks["mpr_gui_zh_au"].metadata["prompt_protocol"], ["blind"]) == "mpr-direct-v1+blind"
    runs = [load_results(p) for o in outs.values() for p in find_results(o)]
    gains = vision_gains(build_table(runs))
    assert {(g.context[0], g.lang) for g in gains} == {("synthetic", "en"), ("official", "zh")}
    assert all(g.blind == "blind" and not g.model.endswith("]") for g in gains)
    assert {(g.context[0], g.lang) for g in gkb_gains(build_report(runs))} == {("official", "en")}
    # the model saw other pixels: some of its answers change (a random tiny model reads every pixel)
    answers = {name: [s["filtered_resps"] for t in tasks for s in samples(o, t)] for name, o in outs.items()}
    assert len(answers["blind"]) == len(answers["sighted"]) and answers["blind"] != answers["sighted"]
