"""The gui-eval command: the demo's exit status reflects failure; small commands print what they should."""

from __future__ import annotations

import json

import pytest

from gui_tasks.cli import main


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
