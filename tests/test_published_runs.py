"""Published runs side by side: `gui-eval import` of result files in the ScreenSpot-Pro repository's results format
and SE-GUI's rec_results log (small fixtures in those shapes), our scorer's agreement with each file's own scoring, and the imported run read by the
viewer (its two-run diff in the browser) and the grounding report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_core.errors import DataError
from gui_tasks.grounding.published import import_run

FIX = Path(__file__).parent / "fixtures"
PUB = FIX / "published"
# Agreement goal of issue 26: our figure within 0.25 points of the file's own scorer on the samples both score.
AGREEMENT_POINTS = 0.25


@pytest.fixture
def pro_copy(monkeypatch):
    monkeypatch.setenv("SCREENSPOT_PRO_DATA_DIR", str(FIX / "screenspot_pro"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_qwen2_5_vl_run_agrees_with_its_official_scoring(tmp_path, pro_copy):
    got = import_run(PUB / "screenspot_pro_qwen2_5_vl.json", "gui_screenspot_pro", tmp_path, family="qwen2_5_vl",
                     overrides={"max_pixels": 99999999})  # the repository's runner: max_pixels=99999999
    assert (got.matched, got.skipped, got.unmatched) == (3, 1, [])  # the negative sample is not comparable
    assert got.published_accuracy == 0.5  # the file's overall figure counts the negative sample
    assert got.published_on_matched == pytest.approx(1 / 3) and got.ours == pytest.approx(1 / 3)
    assert abs(100 * (got.ours - got.published_on_matched)) <= AGREEMENT_POINTS and got.disagreements == 0
    lines = _lines(got.samples)
    assert [s["doc_id"] for s in lines] == [0, 1, 2]
    recs = [s["grounding_acc"] for s in lines]
    assert [r["status"] for r in recs] == ["parsed", "malformed", "parsed"]  # bare-list arguments: wrong_format
    assert [r["published"]["correctness"] for r in recs] == ["correct", "wrong_format", "wrong"]
    assert recs[0]["model_size"] == [392, 252]  # 400x250 smart-resized, as the runner fed the model
    res = json.loads(got.results.read_text(encoding="utf-8"))
    task = res["results"]["gui_screenspot_pro"]
    assert task["grounding_acc,none"] == pytest.approx(1 / 3)
    assert task["grounding_format_error_rate,none"] == pytest.approx(1 / 3)
    meta = res["configs"]["gui_screenspot_pro"]["metadata"]
    assert meta["answer_family"] == "qwen2_5_vl" and meta["inside_rule"] == "inclusive" and meta["strictness"] == "official"
    assert meta["published"]["accuracy"] == 0.5 and meta["published"]["disagreements"] == 0
    assert res["n-samples"]["gui_screenspot_pro"] == {"original": 3, "effective": 3}


def test_lenient_reading_disagrees_where_the_official_parser_says_wrong_format(tmp_path, pro_copy):
    got = import_run(PUB / "screenspot_pro_qwen2_5_vl.json", "gui_screenspot_pro", tmp_path, family="qwen2_5_vl",
                     overrides={"strictness": "lenient"})
    rec = _lines(got.samples)[1]["grounding_acc"]
    assert rec["status"] == "parsed"  # (140, 60) resized -> (142.9, 59.5) original: inside [110, 50, 170, 80]
    assert rec["correct"] and got.disagreements == 1 and got.ours == pytest.approx(2 / 3)


def test_aguvis_run_agrees_with_the_inclusive_rule_and_not_with_the_strict_one(tmp_path, pro_copy):
    got = import_run(PUB / "screenspot_pro_aguvis.json", "gui_screenspot_pro", tmp_path / "a", family="aguvis")
    assert got.ours == pytest.approx(2 / 3) == got.published_on_matched and got.disagreements == 0
    strict = import_run(PUB / "screenspot_pro_aguvis.json", "gui_screenspot_pro", tmp_path / "b", family="aguvis",
                        overrides={"inside_rule": "strict"})
    assert strict.disagreements == 1 and strict.ours == pytest.approx(1 / 3)  # the point on the box's left edge
    edge = _lines(strict.samples)[1]["grounding_acc"]
    assert edge["response_type"] == "biased" and edge["params"]["inside_rule"] == "strict"


def test_se_gui_rec_results_import_with_the_resized_size_the_file_records(tmp_path, pro_copy):
    # SE-GUI's evaluation log (src/eval/test_grounding_r1_nothink*.py): accuracy in percent over its own samples, the
    # size the model saw as resized_size [h, w]; a sample of a screenshot we do not hold is left unmatched
    got = import_run(PUB / "screenspot_pro_se_gui_rec_results.json", "gui_screenspot_pro", tmp_path, family="se_gui")
    assert got.matched == 3 and got.unmatched == ["vscode_macos/shot_9.png | click the text 9"] and got.skipped == 0
    assert got.published_accuracy == 0.25 and got.published_on_matched == pytest.approx(1 / 3)
    assert got.ours == pytest.approx(1 / 3) and got.disagreements == 0
    recs = [s["grounding_acc"] for s in _lines(got.samples)]
    assert recs[0]["frame_source"] == "model_image_sizes" and recs[0]["model_size"] == [392, 252]
    assert recs[0]["correct"] and recs[0]["point"] == pytest.approx([127 / 392, 65 / 252])
    # no tool call: SE-GUI's parser clicks (0, 0) (wrong), ours counts a format error
    assert recs[1]["status"] == "malformed" and recs[1]["published"]["correctness"] == "wrong"
    meta = json.loads(got.results.read_text(encoding="utf-8"))["configs"]["gui_screenspot_pro"]["metadata"]
    assert meta["published"]["format"] == "se_gui_rec_results" and meta["published"]["num_correct"] == 1
    assert meta["published"]["num_total"] == 4


def test_se_gui_rec_results_rows_are_checked(tmp_path, pro_copy):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"accuracy": 0.0, "results": [{"image": "vscode_macos/shot_0.png", "question": "q",
                                                             "model_output": "", "correct": 1, "resized_size": [252]}]}),
                   encoding="utf-8")
    with pytest.raises(DataError, match="resized_size") as err:
        import_run(bad, "gui_screenspot_pro", tmp_path / "out", family="se_gui")
    assert err.value.row == 0 and err.value.field == "resized_size" and err.value.file.endswith("bad.json")
    bad.write_text(json.dumps({"accuracy": 0.0, "results": [{"image": "x.png", "question": "q", "correct": 1}]}),
                   encoding="utf-8")
    with pytest.raises(DataError, match="model_output"):
        import_run(bad, "gui_screenspot_pro", tmp_path / "out", family="se_gui")


def test_import_refuses_files_it_cannot_read(tmp_path, pro_copy):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"metrics": {}}), encoding="utf-8")
    with pytest.raises(DataError, match="details"):
        import_run(bad, "gui_screenspot_pro", tmp_path / "out")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"details": [{"id": "nope", "raw_response": "(1, 2)", "img_path": "x.png",
                                              "prompt_to_evaluate": "?"}]}), encoding="utf-8")
    with pytest.raises(DataError, match="no detail matches"):
        import_run(other, "gui_screenspot_pro", tmp_path / "out")
    # Phi-Ground's script writes details without the answer text (pred: canvas pixels), GUI-Actor's a bare list of
    # hit flags: nothing our scorer could read
    phi = tmp_path / "phi.json"
    phi.write_text(json.dumps({"metrics": {}, "details": [{"img_path": "x.png", "prompt_to_evaluate": "q",
                                                            "pred": [1, 2, 1, 2], "correctness": "correct"}]}), encoding="utf-8")
    with pytest.raises(DataError, match="cannot be re-scored") as err:
        import_run(phi, "gui_screenspot_pro", tmp_path / "out")
    assert err.value.row == 0 and err.value.field == "raw_response"
    actor = tmp_path / "actor.json"
    actor.write_text(json.dumps([{"file_name": "x.png", "id": 0, "hit_top1": 1, "overlap_top1": 1}]), encoding="utf-8")
    with pytest.raises(DataError, match="not a published per-sample result file"):
        import_run(actor, "gui_screenspot_pro", tmp_path / "out")
    with pytest.raises(ValueError, match="not a ScreenSpot task"):
        import_run(PUB / "screenspot_pro_aguvis.json", "icon_localization_synth", tmp_path / "out")


def test_cli_import_prints_both_figures(tmp_path, pro_copy, capsys):
    from gui_tasks.commands.cli import main

    rc = main(["import", str(PUB / "screenspot_pro_aguvis.json"), "--task", "gui_screenspot_pro", "--family", "aguvis",
               "--label", "Aguvis-7B-published", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert ("matched 3 samples (0 unmatched, 0 not comparable); published figure 66.67, published on the matched samples "
            "66.67, ours 66.67 (0 samples disagree)") in out
    assert (tmp_path / "Aguvis-7B-published").is_dir()


def test_imported_run_reads_like_an_lmms_eval_run(tmp_path, pro_copy):
    from gui_tasks.grounding import report
    from gui_tasks.runs.results_io import find_result_files, load_results
    from gui_tasks.viewer.site import collect

    got = import_run(PUB / "screenspot_pro_aguvis.json", "gui_screenspot_pro", tmp_path, family="aguvis", label="aguvis")
    run = load_results(find_result_files(tmp_path)[0])
    assert run.model_label == "aguvis" and run.tasks["gui_screenspot_pro"].metadata["benchmark"] == "screenspot_pro"
    _, entries, notes = collect([tmp_path])
    assert [x.outcome for x in entries] == ["correct", "correct", "wrong"] and not notes
    assert entries[0].doc is not None and entries[0].doc["id"] == "screenspot_pro-vscode_macos_0"
    summary = report.summarise(report.collect([tmp_path])[0])
    assert summary["accuracy"] == pytest.approx(2 / 3) and summary["published"]["accuracy"] == pytest.approx(2 / 3)
    assert "Published figure (the file's own scorer): 0.667 (on the 3 matched samples 0.667); ours 0.667" in \
        report.markdown([summary])
    assert got.results.is_file()


@pytest.mark.slow
def test_view_diff_of_a_users_run_and_an_imported_published_run(tmp_path, tiny_grounding_checkpoint, subprocess_env,
                                                                 monkeypatch):
    """A real lmms-eval run (tiny checkpoint) on the ScreenSpot-Pro fixture against an imported published run."""
    import subprocess

    from browser import browser, missing

    from gui_tasks.commands.cli import find_results, lmms_eval_command

    why = missing()
    if why:
        pytest.skip(why)
    env = {**subprocess_env, "SCREENSPOT_PRO_DATA_DIR": str(FIX / "screenspot_pro")}
    monkeypatch.setenv("SCREENSPOT_PRO_DATA_DIR", str(FIX / "screenspot_pro"))
    mine = tmp_path / "mine"
    proc = subprocess.run(lmms_eval_command(f"pretrained={tiny_grounding_checkpoint},device=cpu", ["gui_screenspot_pro"], mine,
                                            limit=None), env=env, capture_output=True, text=True, timeout=900)
    files = find_results(mine)  # the CLI exits 0 on failure: the files are the proof
    assert files, (proc.stdout + proc.stderr)[-3000:]
    res = json.loads(files[-1].read_text(encoding="utf-8"))
    assert "gui_screenspot_pro" in res["results"], (proc.stdout + proc.stderr)[-3000:]
    assert res["configs"]["gui_screenspot_pro"]["metadata"]["boxes_clipped"] == 0
    imported = tmp_path / "imported"
    import_run(PUB / "screenspot_pro_aguvis.json", "gui_screenspot_pro", imported, family="aguvis", label="aguvis")

    from gui_tasks.viewer.site import collect, main

    _, entries, _ = collect([mine, imported])
    mine_out = {x.sample["doc_id"]: x.outcome for x in entries if x.side == 0}
    fixed = sum(1 for x in entries if x.side == 1 and x.outcome == "correct" and mine_out.get(x.sample["doc_id"]) != "correct")
    site = tmp_path / "site"
    assert main([str(mine), str(imported), "--out", str(site)]) == 0
    with browser() as d:
        d.get((site / "index.html").as_uri())
        body = d.find_element("css selector", "body").text
        assert "Differences: run 1 - run 2" in body
        assert f"outcomes: fixed {fixed}," in body
        from selenium.webdriver.support.ui import Select

        Select(d.find_element("id", "f-diff")).select_by_visible_text("fixed")
        assert d.find_element("id", "count").text == f"{2 * fixed} of {len(entries)} samples"


def test_pss_report_warns_loudly_about_a_mis_declared_family(tmp_path, pro_copy, capsys):
    """Aguvis's relative answers read as a 0-1000 family: the frame check names the frame that scores."""
    from gui_tasks.grounding.report import main

    got = import_run(PUB / "screenspot_pro_aguvis.json", "gui_screenspot_pro", tmp_path / "runs", family="qwen2_vl",
                     label="aguvis-as-qwen2-vl")
    assert got.ours == 0.0 and got.disagreements == 2  # (0.325, 0.26) on the 0-1000 grid lands in the top-left corner
    assert main([str(tmp_path / "runs"), "--out", str(tmp_path / "report")]) == 0
    err = capsys.readouterr().err
    assert ("gui_screenspot_pro: WARNING: answers read as relative score 66.7%, read as the declared grid1000 0.0%: "
            "the family (answer frame) is probably mis-declared") in err
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "**WARNING: answers read as relative score 66.7%" in text
