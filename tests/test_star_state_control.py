"""StaR state-control tasks: official records, the synthetic set, per-family prompts and scoring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gui_core.benchmark import benchmark
from gui_metrics.star import star_rates
from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_core.registry import UnknownName
from gui_core.errors import DataError
from gui_tasks.star import lmms_task, release, synth
from gui_core.agents import agent_families, build_prompt, family, format_action, parse

FAMILIES = agent_families()
from gui_tasks.star.schema import action_from_json, official_pair

FIXTURES = Path(__file__).parent / "fixtures" / "star_official"


@pytest.fixture()
def star_data(monkeypatch):
    monkeypatch.setenv(benchmark("star").data.env, str(FIXTURES))
    return FIXTURES


def official_docs(fam="os_atlas"):
    return lmms_task.task_rows({"source": "official", "agent_family": fam})


# --- official records ------------------------------------------------------------------------------


def test_each_official_record_gives_a_positive_and_a_negative_document(star_data):
    docs = official_docs()
    assert [d["id"] for d in docs[:2]] == ["star-00000:pos", "star-00000:neg"] and len(docs) == 6
    pos, neg = docs[0], docs[1]
    assert pos["instruction"] == "turn off Visual Notification" and neg["instruction"] == "turn on Visual Notification"
    assert action_from_json(pos["gold"]) == Action("CLICK", point=(915.8, 252.2), frame="grid1000")
    assert action_from_json(neg["gold"]) == Action("COMPLETE")
    assert pos["toggle_box"] == [868.5, 227.6, 963.0, 276.9] and Path(pos["images"][0]).is_file()
    assert pos["annotation"]["state_before_action"] == "Enabled"


def test_gold_point_is_the_atlas_action_not_a_stale_click_coordinate(star_data):
    third = official_docs()[4]
    assert json.loads(third["gold"])["point"] == [478.1, 507.1]  # clickCoordinate says [911, 617]


def test_use_bbox_false_drops_the_box(star_data):
    assert official_docs()[2]["toggle_box"] == []


@pytest.mark.parametrize("field,value,match", [
    ("posAtlasAction", "TYPE [hello]", "not an OS-Atlas CLICK"),
    ("negAtlasAction", "CLICK <point>[[1, 2]]</point>", "not COMPLETE"),
    ("image_width", 0, "positive integer"),
    ("bbox", [1, 2, 3], r"not \[x1, y1, x2, y2\]"),
    ("annotation", None, "missing annotation"),
])
def test_bad_official_fields_name_file_row_and_field(field, value, match):
    raw = json.loads((FIXTURES / "data" / "state" / "state_control_benchmark_test.json").read_text())[0]
    raw[field] = value
    with pytest.raises(DataError, match=match) as err:
        official_pair(raw, file="x.json", row=7, image_path="/i.png", agent_family="os_atlas", match_rule="star-a2-d40")
    assert err.value.file == "x.json" and err.value.row == 7 and err.value.field == field


def test_missing_screenshot_is_a_data_error(tmp_path, monkeypatch):
    recs = json.loads((FIXTURES / "data" / "state" / "state_control_benchmark_test.json").read_text())
    recs[1]["images"] = ["GUIData/nope.png"]
    (tmp_path / "data" / "state").mkdir(parents=True)
    (tmp_path / "data" / "state" / "state_control_benchmark_test.json").write_text(json.dumps(recs))
    (tmp_path / "GUIData").symlink_to(FIXTURES / "GUIData")
    monkeypatch.setenv(benchmark("star").data.env, str(tmp_path))
    with pytest.raises(DataError, match="nope.png") as err:
        lmms_task.task_rows({"source": "official"})
    assert err.value.row == 1 and err.value.field == "images"


def test_star_data_file_selects_the_sample_split(star_data, monkeypatch):
    monkeypatch.setenv(release.DATA_FILE_ENV, "state_control_benchmark_sample.json")
    docs = official_docs()
    assert len(docs) == 4 and [d["polarity"] for d in docs] == ["positive", "negative"] * 2  # 2 records x 2 samples
    assert json.loads(docs[0]["meta"])["file"].endswith("data/state/state_control_benchmark_sample.json")
    assert docs[2]["toggle_box"] == [] and docs[2]["instruction"] == "uncheck Remember me"  # no bbox key at all


def test_star_data_file_may_be_an_absolute_path_without_a_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv(benchmark("star").data.env, raising=False)
    monkeypatch.setenv(release.DATA_FILE_ENV, str(FIXTURES / "data" / "state" / "state_control_benchmark_sample.json"))
    docs = official_docs()
    assert len(docs) == 4 and Path(docs[0]["images"][0]).name == "RICOSCA_sample_17.png"  # found from the file upwards


def test_metadata_data_split_sample_and_unknown_split(star_data):
    assert len(lmms_task.task_rows({"source": "official", "data_split": "sample"})) == 4
    with pytest.raises(DataError, match="unknown split"):
        lmms_task.task_rows({"source": "official", "data_split": "dev"})


def test_bad_records_can_be_skipped_on_request_and_are_counted(tmp_path, monkeypatch):
    from gui_tasks.harness.bad_rows import take_skipped

    recs = json.loads((FIXTURES / "data" / "state" / "state_control_benchmark_test.json").read_text())
    recs[1]["posAtlasAction"] = "TYPE [x]"
    (tmp_path / "data" / "state").mkdir(parents=True)
    (tmp_path / "data" / "state" / "state_control_benchmark_test.json").write_text(json.dumps(recs))
    (tmp_path / "GUIData").symlink_to(FIXTURES / "GUIData")
    monkeypatch.setenv(benchmark("star").data.env, str(tmp_path))
    with pytest.raises(DataError, match="posAtlasAction"):
        lmms_task.task_rows({"source": "official"})
    take_skipped()
    assert len(lmms_task.task_rows({"source": "official", "skip_bad_rows": True})) == 4 and take_skipped() == 1


def test_unknown_family_in_task_metadata_is_named():
    with pytest.raises(UnknownName, match=r"unknown agent family 'nope'; known: agentcpm_gui, "):
        lmms_task.task_rows({"source": "synthetic", "agent_family": "nope"})


# --- the synthetic counterpart ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def synth_set(tmp_path_factory):
    return synth.load_or_build(seed=0, pairs=8, root=tmp_path_factory.mktemp("star_synth"))


def _read(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def test_synthetic_pairs_are_balanced_and_aligned_across_languages(synth_set):
    en, th = _read(synth_set["en"]), _read(synth_set["th"])
    assert [d["id"] for d in en] == [d["id"] for d in th] and len(en) == 16
    assert [d["polarity"] for d in en] == ["positive", "negative"] * 8
    starts_on = [d["annotation"]["state_before_action"] in ("Enabled", "Checked") for d in en[::2]]
    assert sum(starts_on) == 4  # half the toggles start on
    assert all(d["gold"] == en[i]["gold"] for i, d in enumerate(th))
    assert en[0]["instruction"] != th[0]["instruction"]


def test_synthetic_gold_click_is_the_toggle_centre_in_the_scene(synth_set):
    for doc in _read(synth_set["en"])[::2]:
        meta = json.loads(doc["meta"])
        el = next(e for e in meta["scene"]["elements"] if e["id"] == meta["target"])
        x1, y1, x2, y2 = el["box"]
        w, h = meta["scene"]["size"]
        assert action_from_json(doc["gold"]).point == pytest.approx(((x1 + x2) / 2 / w * 1000, (y1 + y2) / 2 / h * 1000), abs=1e-3)
        want_on = doc["annotation"]["state_before_action"] in ("Disabled", "Unchecked")
        assert el["state"] is (not want_on)


def test_synthetic_set_is_deterministic(tmp_path):
    a = synth.load_or_build(seed=3, pairs=4, root=tmp_path / "a")
    b = synth.load_or_build(seed=3, pairs=4, root=tmp_path / "b")
    strip = lambda p: [{k: v for k, v in d.items() if k not in ("images", "meta")} for d in _read(p)]  # noqa: E731
    assert strip(a["ja"]) == strip(b["ja"])


# --- prompts and parsing per agent family -------------------------------------------------------


GEO = Geometry.identity(1080, 2400)


def test_each_family_prompt_is_the_appendix_c_template():
    assert "Final goal: turn on Wi-Fi\nPrevious actions: None" in build_prompt("os_atlas", "turn on Wi-Fi", GEO)
    assert build_prompt("ui_tars", "turn on Wi-Fi", GEO).startswith("\nYou are a GUI agent.")  # StaR's template
    assert build_prompt("ui_tars", "x", GEO).rstrip().endswith("x")
    assert "<Question>turn on Wi-Fi</Question>" in build_prompt("agentcpm_gui", "turn on Wi-Fi", GEO)
    owl = build_prompt("gui_owl", "turn on Wi-Fi", GEO)
    assert "The user query: turn on Wi-Fi" in owl and "resolution is 1080x2400" in owl  # original pixels (A.5)
    assert family("qwen2_vl") is FAMILIES["os_atlas"]


def test_history_is_rendered_in_the_family_syntax():
    hist = [format_action(Action("CLICK", point=(500, 250), frame="grid1000"), "os_atlas", GEO)]
    assert "Previous actions: Step 1: CLICK <point>[[500, 250]]</point>" in build_prompt("os_atlas", "g", GEO, hist)


def test_gui_owl_points_are_original_pixels_under_the_star_prompt():
    res = parse('<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [540, 600]}}</tool_call>', "gui_owl")
    assert res.action.frame == "original_px" and res.action.point_in("grid1000", GEO) == pytest.approx((500, 250))


actions = st.one_of(
    st.builds(lambda x, y, t: Action(t, point=(x, y), frame="grid1000"), st.integers(0, 1000), st.integers(0, 1000),
              st.sampled_from(["CLICK", "LONG_PRESS"])),
    st.builds(lambda d: Action("SCROLL", direction=d), st.sampled_from(["UP", "DOWN", "LEFT", "RIGHT"])),
    st.builds(lambda s: Action("TYPE", text=s), st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=12)),
    st.sampled_from([Action("PRESS_BACK"), Action("PRESS_HOME"), Action("WAIT"), Action("COMPLETE")]),
)


@given(actions, st.sampled_from(sorted(FAMILIES)))
def test_formatting_then_parsing_returns_the_action(action, fam):
    geo = Geometry.identity(1000, 2000)
    back = parse(format_action(action, fam, geo), fam).action
    assert back is not None and back.type == action.type
    if action.point is not None:
        assert back.point_in("grid1000", geo) == pytest.approx(action.point, abs=0.51)
    else:
        assert back == action


# --- scoring -------------------------------------------------------------------------------------


def test_scoring_positive_negative_and_false_positive_toggles(star_data):
    pos, neg = official_docs()[:2]
    click = "Thought: the switch.\nAction: CLICK <point>[[920, 250]]</point>"
    hit = lmms_task.score_response(pos, click)
    assert (hit["exact"], hit["type_match"], hit["hits_toggle"], hit["rule"]) == (True, True, True, "star-a2-d40")
    fp = lmms_task.score_response(neg, click)
    assert fp["type_match"] is False and fp["pred_type"] == "CLICK" and fp["hits_toggle"] is True
    done = lmms_task.score_response(neg, "Action: COMPLETE")
    assert done["exact"] and done["type_match"]
    miss = lmms_task.score_response(pos, "Action: CLICK <point>[[100, 900]]</point>")
    assert miss["type_match"] and not miss["exact"] and not miss["hits_toggle"]
    junk = lmms_task.score_response(pos, "I would like to help")
    assert junk["status"] == "malformed" and junk["pred_type"] is None and not junk["type_match"]
    r = star_rates([lmms_task.score_response(pos, click), fp, lmms_task.score_response(pos, "COMPLETE"), done])
    assert r["star_o_amr"] == 0.5 and r["star_p_fnr"] == 0.5 and r["star_n_fpr"] == 0.5 and r["star_n_amr"] == 0.5


def test_outside_the_box_within_40_counts_and_beyond_does_not(star_data):
    pos = official_docs()[2]  # no box (useBbox false): distance only, d <= 40 on the 0-1000 grid
    ok = lmms_task.score_response(pos, "CLICK <point>[[662.5, 572.7]]</point>")
    far = lmms_task.score_response(pos, "CLICK <point>[[662.5, 573.0]]</point>")
    assert ok["exact"] and not far["exact"]


def test_process_results_gives_every_star_metric_the_record(star_data):
    out = lmms_task.process_results(official_docs()[0], ["Action: COMPLETE"])
    assert {"star_o_amr", "star_p_fnr", "star_n_fpr", "star_format_error_rate"} <= set(out)
    assert out["star_o_amr"]["pred_type"] == "COMPLETE" and out["star_o_amr"]["polarity"] == "positive"


def test_reference_answer_is_written_in_the_family_format(star_data):
    pos = official_docs("ui_tars")[0]
    assert lmms_task.doc_to_target(pos) == "click(start_box='<|box_start|>(915.8,252.2)<|box_end|>')"
    assert lmms_task.doc_to_target(official_docs("agentcpm_gui")[1]) == '{"STATUS":"finish"}'
