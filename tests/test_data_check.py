"""``gui-eval data check``: counts per task against the published ones, every unreadable row, the exit status."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gui_core.benchmark import benchmark
from gui_tasks.commands import cli
from gui_tasks.harness import data_check
from gui_tasks.knowledge import release as gkb
from gui_tasks.mpr import release as mpr
from gui_tasks.star import release as star

FIXTURES = Path(__file__).parent / "fixtures"


def check(capsys, *argv):
    status = cli.main(["data", "check", *map(str, argv)])
    return status, capsys.readouterr().out


def test_mpr_fixture_counts_against_the_release(capsys):
    status, out = check(capsys, "mpr_gui", FIXTURES / "mpr_official")
    assert status == 1 and "FAILED" in out  # 14 of 2,245 per language: a partial copy is not the release
    assert "mpr_gui_zh           14     2,245  DIFFERS: -2,231 (release: 2,245 per language (paper: 2,156))" in out
    assert "mpr_gui_th_ri         1        25  DIFFERS: -24" in out
    status, out = check(capsys, "mpr_gui", FIXTURES / "mpr_official", "--partial")
    assert status == 0 and out.rstrip().endswith("result: OK (partial copy: counts not compared)")


def test_a_complete_copy_passes(capsys, monkeypatch):
    monkeypatch.setitem(benchmark("mpr_gui").published_docs, "per_language", 14)  # the fixture as if it were the whole release
    monkeypatch.setattr(mpr, "RELEASE_DIMENSION_ROWS", {"RI": 1, "SI": 1})
    status, out = check(capsys, "mpr_gui", FIXTURES / "mpr_official")
    assert status == 0 and "result: OK" in out and "DIFFERS" not in out
    monkeypatch.setitem(benchmark("star").published_docs, "state_control_benchmark_sample.json", 4)
    monkeypatch.setitem(benchmark("star").published_docs, "state_control_benchmark_test.json", 6)
    assert check(capsys, "star", FIXTURES / "star_official")[0] == 0


def test_a_broken_mpr_copy_fails_and_lists_every_bad_row(capsys, tmp_path):
    root = tmp_path / "mpr"
    shutil.copytree(FIXTURES / "mpr_official", root)
    (root / "qas" / "au_ja.jsonl").write_text(json.dumps({"question": "Q? A: x B: y C: z D: w", "answer": "E",
                                                          "image_path": "../images/1/ja/camera_ja_8.jpg"}) + "\n")
    (root / "qas" / "knowledge_rich_th.jsonl").unlink()
    shutil.rmtree(root / "images" / "sparse" / "fr")
    status, out = check(capsys, "mpr_gui", root, "--partial")
    # 3 unreadable: the bad answer, the missing file, the missing episode folder; 4 items missing in one language
    assert status == 1 and "7 problem(s)" in out and "result: FAILED (7 problem(s))" in out
    assert "au_ja.jsonl, row 0, field 'answer'" in out
    assert "knowledge_rich_th.jsonl not found" in out
    assert "knowledge_sparse_fr.jsonl, row 0, field 'image_folder_path'" in out
    assert "mpr_gui_ja_au         0" in out and "mpr_gui_ja_ap         2" in out  # the other rows are still counted
    # alike problems are listed once with their count (issue 44): the two items missing in ja are one line
    ja = [line for line in out.splitlines() if "exists in other languages but not in ja" in line]
    assert len(ja) == 1 and ja[0].endswith("(and 1 more like it)"), ja
    assert "item 'ri-rich/clock_episode_0' exists in other languages but not in th" in out


def test_gui_knowledge_counts_per_subtask_and_fails_on_a_row_without_question_text(capsys, tmp_path):
    status, out = check(capsys, "gui_knowledge", FIXTURES / "gui_knowledge", "--partial")
    assert status == 0 and "gui_knowledge                  9     3,483" in out and "gui_knowledge_type             2" in out
    root = tmp_path / "gkb"
    shutil.copytree(FIXTURES / "gui_knowledge", root)
    (path,) = root.rglob("*-pl-001.json")
    row = json.loads(path.read_text())
    del row["question_text"]
    path.write_text(json.dumps(row))
    status, out = check(capsys, "gui_knowledge", root, "--partial")
    assert status == 1 and "TaskPlanning-pl-001.json, row 0, field 'question_text': missing or empty question_text" in out
    assert "gui_knowledge_plan             0" in out


def test_star_counts_every_split_file_in_documents(capsys, tmp_path):
    status, out = check(capsys, "star", FIXTURES / "star_official", "--partial")
    assert status == 0
    assert "star_state_control[state_control_benchmark_sample.json]        4        46" in out
    assert "star_state_control[state_control_benchmark_test.json]          6     8,184" in out
    status, out = check(capsys, "star", tmp_path, "--partial")
    assert status == 1 and "no state_control_benchmark_*.json split file found" in out


def test_a_checker_that_is_not_installed_is_named(capsys, monkeypatch):
    known = data_check.checkers()
    monkeypatch.setattr(data_check, "checkers", lambda: {**known, "sphinx": "gui_tasks.sphinx.check:no_such_checker"})
    assert cli.main(["data", "check", "sphinx", str(FIXTURES / "sphinx")]) == 2
    err = capsys.readouterr().err
    assert "no checker for 'sphinx'" in err and "no_such_checker" in err


def test_default_root_comes_from_the_environment(capsys, monkeypatch):
    monkeypatch.setenv(benchmark("gui_knowledge").data.env, str(FIXTURES / "gui_knowledge"))
    status, out = check(capsys, "gui_knowledge", "--partial")
    assert status == 0 and out.startswith(f"gui_knowledge: {FIXTURES / 'gui_knowledge'}")


@pytest.mark.parametrize("benchmark", sorted(data_check.checkers()))
def test_every_benchmark_is_a_choice(benchmark):
    args = cli.build_parser().parse_args(["data", "check", benchmark, "/some/copy"])
    assert (args.benchmark, args.dir, args.partial) == (benchmark, "/some/copy", False)


def test_sphinx_fixture_counts_and_a_broken_grounding_row_fails(capsys, tmp_path):
    status, out = check(capsys, "sphinx", FIXTURES / "sphinx", "--partial")
    assert status == 0 and "result: OK (partial copy: counts not compared)" in out
    assert "sphinx_completion                                         6     1,434" in out
    assert "sphinx_grounding                                          4       457" in out
    status, out = check(capsys, "sphinx", FIXTURES / "sphinx")
    assert status == 1 and "sphinx_knowledge                                         10       890  DIFFERS: -880" in out
    root = tmp_path / "sphinx"
    shutil.copytree(FIXTURES / "sphinx", root)
    tasks = json.loads((root / "lowlevel_tasks.json").read_text(encoding="utf-8"))
    del tasks[1]["instruction"]
    (root / "lowlevel_tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    status, out = check(capsys, "sphinx", root, "--partial")
    assert status == 1 and "lowlevel_tasks.json, row 1, field 'instruction'" in out
    assert "sphinx_grounding                                          3" in out  # the other rows still count


# --- issue 21, item 3: images decoded, files read with bounds ------------------------------------------------------

def test_a_truncated_screenshot_fails_the_check_naming_it(capsys, tmp_path):
    root = tmp_path / "mpr"
    shutil.copytree(FIXTURES / "mpr_official", root)
    shot = root / "images" / "3" / "en" / "clock_en_3.jpg"
    shot.write_bytes(shot.read_bytes()[: shot.stat().st_size // 2])
    status, out = check(capsys, "mpr_gui", root, "--partial")
    assert status == 1 and "result: FAILED (1 problem(s))" in out
    assert f"{shot}, row -, field 'images': image cannot be fully decoded (document wf-3/clock_3.jpg)" in out
    assert "screenshots fully decoded: 101 of 102" in out
    status, out = check(capsys, "mpr_gui", root, "--partial", "--no-images")  # what the check did before
    assert status == 0 and "screenshots decoded" not in out


def test_every_screenshot_of_an_intact_copy_is_decoded(capsys):
    for bench, root in (("mpr_gui", "mpr_official"), ("gui_knowledge", "gui_knowledge"), ("star", "star_official")):
        status, out = check(capsys, bench, FIXTURES / root, "--partial")
        assert status == 0, out
        line = next(x for x in out.splitlines() if "screenshots fully decoded" in x).split()
        assert line[-3] == line[-1] and int(line[-1].replace(",", "")) > 0, line


@pytest.mark.parametrize("bench, fixture, victim", [("mpr_gui", "mpr_official", "qas/au_en.jsonl"),
                                                    ("gui_knowledge", "gui_knowledge", None),
                                                    ("star", "star_official", None)])
def test_a_question_file_linked_to_dev_zero_is_refused_not_read(capsys, tmp_path, bench, fixture, victim):
    import os

    root = tmp_path / "copy"
    shutil.copytree(FIXTURES / fixture, root)
    if victim is None:
        pattern = "state_control_benchmark_*.json" if bench == "star" else "*-pl-001.json"
        victim = str(next(iter(sorted(root.rglob(pattern)))).relative_to(root))
    (root / victim).unlink()
    os.symlink("/dev/zero", root / victim)
    status, out = check(capsys, bench, root, "--partial")
    assert status == 1
    assert f"{root / victim}, row -, field -: not a regular file (a device, pipe or socket); refused" in out


def test_a_line_over_the_bound_is_refused_naming_the_file(capsys, tmp_path, monkeypatch):
    from gui_tasks.runs import input_files

    root = tmp_path / "mpr"
    shutil.copytree(FIXTURES / "mpr_official", root)
    path = root / "qas" / "au_en.jsonl"
    monkeypatch.setattr(input_files, "MAX_LINE_BYTES", 64)
    status, out = check(capsys, "mpr_gui", root, "--partial")
    assert status == 1 and f"{path}, row 0, field -: line 1 is longer than the 64 bytes bound; refused" in out
