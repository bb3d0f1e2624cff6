"""The gui-eval command: the demo's exit status reflects failure; small commands print what they should."""

from __future__ import annotations

import json

import pytest

from gui_tasks.commands.cli import main


def test_demo_refuses_a_folder_that_is_not_a_checkpoint(tmp_path, capsys):
    assert main(["demo", "--checkpoint", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "not a checkpoint folder" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_fails_when_lmms_eval_fails(tmp_path, session_cache, capsys):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "qwen2_vl"}))  # no weights, no processor
    assert main(["demo", "--checkpoint", str(broken), "--out", str(tmp_path / "out"), "--limit", "2"]) == 1
    assert "lmms-eval failed" in capsys.readouterr().err


def test_metrics_and_tasks_path_commands(capsys):
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    assert "fpr_acc\thigher" in out and "format_error_rate\tlower" in out
    assert main(["tasks-path"]) == 0
    assert capsys.readouterr().out.strip().endswith("yaml_tasks")


def test_synth_command_writes_a_set(tmp_path, capsys):
    assert main(["synth", "--per-dimension", "4", "--langs", "en,th", "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["en", "th"]
    assert len((tmp_path / "th.jsonl").read_text(encoding="utf-8").splitlines()) == 32


def test_synth_command_builds_each_content_split(tmp_path, capsys):
    import json

    for split in ("eval", "train", "memory", "search"):
        assert main(["synth", "--split", split, "--seed", "0", "--per-dimension", "1", "--langs", "en", "--out", str(tmp_path / split)]) == 0
        rows = [json.loads(line) for line in (tmp_path / split / "en.jsonl").read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 8 and {json.loads(r["meta"])["split"] for r in rows} == {split}
    with pytest.raises(SystemExit):
        main(["synth", "--split", "test"])
    assert "invalid choice: 'test'" in capsys.readouterr().err
    # the synthetic GUI Knowledge Bench has the same splits (v3); its rows record theirs
    assert main(["synth", "--benchmark", "knowledge", "--split", "train", "--per-dimension", "1", "--langs", "en",
                 "--out", str(tmp_path / "k")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "k" / "en.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 8 and {json.loads(r["meta"])["split"] for r in rows} == {"train"}


def test_every_subcommand_help_shows_its_own_options(capsys):
    from gui_tasks.commands.cli import build_parser, pass_through

    from gui_core.benchmark import report_commands

    wrapped = pass_through(build_parser())
    assert {"submit", "view", "validate", "verify", "import", "report", "pss-report", "mpr-report",
            "grounding-report"} <= wrapped
    for command in sorted(wrapped):
        with pytest.raises(SystemExit) as stop:
            main([command, "--help"])
        out = capsys.readouterr().out
        shown = report_commands()[command].command if command in report_commands() else command  # an alias: its command
        assert stop.value.code == 0 and out.startswith(f"usage: gui-eval {shown}"), (command, out[:300])
        assert "\n  rest\n" not in out and "options:" in out, command
    with pytest.raises(SystemExit):
        main(["submit", "--help"])
    assert "--out OUT" in capsys.readouterr().out


def test_interventions_command_lists_the_installed_ones_with_their_source(capsys):
    assert main(["interventions"]) == 0
    rows = {line.split("\t")[0]: line.split("\t") for line in capsys.readouterr().out.splitlines()}
    assert rows["blind"][1] == "gui-eval: gui_interventions.blind:Blind"
    assert rows["crop"][1] == "gui-eval: gui_interventions.crop:Crop"
    assert {"gui_xli", "prompt_affix", "star_style"} <= set(rows)


def test_interventions_command_reports_broken_and_shadowing_plugins(tmp_path, monkeypatch, capsys):
    from fake_dist import write_dist

    write_dist(tmp_path, "acme-blind", {"acme_blind_iv": "class Blind:\n    pass\n"}, "[gui_interventions]\nblind = acme_blind_iv:Blind\n")
    write_dist(tmp_path, "acme-steer", {"acme_steer_iv": "raise ImportError('needs libfoo')\n"},
               "[gui_interventions]\nacme_steer = acme_steer_iv:Steer\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["interventions"]) == 1
    out, err = capsys.readouterr()
    assert "blind\tgui-eval: gui_interventions.blind:Blind\t" in out and "acme_steer" not in out
    assert ("gui-eval interventions: blind (acme-blind): intervention 'blind' of acme-blind: acme_blind_iv:Blind shadows "
            "the built-in gui-eval: gui_interventions.blind:Blind and is left out (the built-in runs); rename it") in err
    assert (f"gui-eval interventions: acme_steer: intervention plugin 'acme_steer' (acme-steer: acme_steer_iv:Steer) failed "
            f"to load: ImportError('needs libfoo') at {tmp_path / 'acme_steer_iv.py'}:1") in err
    assert "2 intervention(s) broken or left out: acme_steer, blind (acme-blind)" in err


def test_report_commands_come_from_the_records_named_after_their_benchmark_old_names_kept(capsys):
    from gui_core.benchmark import BENCHMARKS, report_commands

    reports = report_commands()
    assert {n: r.command for n, r in reports.items()} == {
        "mpr-report": "mpr-report", "report": "mpr-report", "knowledge-report": "knowledge-report",
        "star-report": "star-report", "sphinx-report": "sphinx-report", "grounding-report": "grounding-report",
        "pss-report": "grounding-report"}
    assert {b.report_command for b in BENCHMARKS.values()} == {r.command for r in reports.values()}
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert "mpr-report (report)" in listed and "grounding-report (pss-report)" in listed
