"""The run journal (gui_models.run_journal) and the replayed-answer side channel (gui_core.replayed_answers), in process:
answers kept whole (text, key-digit capture, extras, sample error, prompt sent), only the missing ones generated, a
journal of other settings refused by name, a torn last line skipped, a replayed answer restored or refused."""

from __future__ import annotations

import json

import pytest

from gui_core import replayed_answers
from gui_core.errors import ConfigError
from gui_core.logit_capture import Capture, CapturedResponse, Step, capture_of, extras_of, response_side
from gui_models.run_journal import RunJournal, decode_answer, encode_answer, journal_folder

SETTINGS = {"backend": "gui_hf", "checkpoint": "abc", "capture_logits": "digits", "max_new_tokens": 16, "thinking": None}


def _capture(text: str) -> Capture:
    steps = [Step(10 + i, ch, -0.1 * (i + 1), 0.5, tuple(float(d == i % 10) for d in range(10)), i, i + 1, 2.0)
             for i, ch in enumerate(text)]
    return Capture(tuple(steps))


def _answer(text: str) -> CapturedResponse:
    return CapturedResponse(text, _capture(text), {"model_image_sizes": [[56, 84]], "note": {"a": 1}})


class _Instance:
    def __init__(self, ctx: str, doc_id: int, task: str = "t") -> None:
        self.arguments = (ctx, {"max_new_tokens": 16}, None, doc_id, task, "test")

    @property
    def args(self):
        return self.arguments


def _fresh(calls: list):
    def fresh(reqs, done):
        calls.append([r.args[3] for r in reqs])
        out = []
        for j, r in enumerate(reqs):
            out.append(_answer(f"[{r.args[3]}, 7]"))
            r.arguments = ("SENT " + r.arguments[0],) + r.arguments[1:]
            done(j, out[-1])
        return out
    return fresh


def test_an_answer_comes_back_whole_with_what_scoring_reads():
    live = _answer("[12, 34]")
    again = decode_answer(json.loads(json.dumps(encode_answer(live))))
    assert str(again) == "[12, 34]" and extras_of(again) == extras_of(live)
    assert response_side(again) == response_side(live)  # the key-digit form scoring reads, bit for bit
    assert decode_answer(encode_answer("plain")) == "plain" and type(decode_answer(encode_answer("plain"))) is str
    assert [str(a) for a in decode_answer(encode_answer([live, "b"]))] == ["[12, 34]", "b"]


def test_a_second_run_generates_only_what_is_missing_and_says_so(tmp_path, capsys):
    calls: list = []
    first = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    out1 = first.run([_Instance(f"q{i}", i) for i in range(4)], _fresh(calls))
    first.close()
    assert calls == [[0, 1, 2, 3]]
    second = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    reqs = [_Instance(f"q{i}", i) for i in range(8)]
    out2 = second.run(reqs, _fresh(calls))
    assert calls[1] == [4, 5, 6, 7]
    assert f"gui_hf: resumed: 4 of 8 answers from {tmp_path / 'j'}" in capsys.readouterr().err
    assert [response_side(a) for a in out2[:4]] == [response_side(a) for a in out1]
    assert all(capture_of(a) is not None for a in out2)
    assert reqs[0].args[0] == "SENT q0"  # the samples log shows the prompt sent, as in the first run


def test_a_journal_of_other_settings_is_refused_by_name(tmp_path):
    RunJournal(tmp_path / "j", "gui_hf", SETTINGS).run([_Instance("q", 0)], _fresh([]))
    with pytest.raises(ConfigError) as err:
        RunJournal(tmp_path / "j", "gui_hf", {**SETTINGS, "capture_logits": "none", "thinking": True})
    assert "capture_logits (journal \"digits\", now \"none\")" in str(err.value)
    assert "thinking (journal null, now true)" in str(err.value) and "checkpoint" not in str(err.value)


def test_a_torn_last_line_is_made_again(tmp_path, capsys):
    j = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    j.run([_Instance(f"q{i}", i) for i in range(2)], _fresh([]))
    j.close()
    path = tmp_path / "j" / "rank0.jsonl"
    path.write_bytes(path.read_bytes()[:-20])  # killed in the middle of the last line
    calls: list = []
    again = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    again.run([_Instance(f"q{i}", i) for i in range(3)], _fresh(calls))
    assert calls == [[1, 2]] and again.torn == 1
    assert "resumed: 1 of 3 answers" in capsys.readouterr().err
    again.close()
    lines = path.read_text().splitlines()
    assert sum(1 for line in lines[1:] if _is_json(line)) == 3  # the torn line did not swallow the next one


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
        return True
    except ValueError:
        return False


def test_the_journal_folder_follows_the_command_line(tmp_path):
    cli = ["/x/bin/lmms-eval", "--model", "gui_hf", "--output_path", str(tmp_path / "out")]
    assert journal_folder("gui_hf", SETTINGS, None, cli) == tmp_path / "out" / "gui_hf-journal"
    cached = journal_folder("gui_hf", SETTINGS, None, cli + ["--use_cache", str(tmp_path / "c")])
    assert cached.parent == tmp_path / "c" / "gui-eval-journal" and cached.name.startswith("gui_hf-")
    assert journal_folder("gui_hf", SETTINGS, "none", cli) is None
    assert journal_folder("gui_hf", SETTINGS, str(tmp_path / "mine"), cli) == tmp_path / "mine"
    assert journal_folder("gui_hf", SETTINGS, None, ["python", "script.py"]) is None  # no command to run again


def test_a_replayed_answer_gets_its_side_channel_back_or_stops_the_run(tmp_path):
    j = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    live = j.run([_Instance("q", 3)], _fresh([]))[0]
    replayed_answers.clear()
    try:
        replayed_answers.register(replayed_answers.Source("gui_hf", j.lookup, str(j.folder), "PSS and perplexity_mean"))
        doc = {"id": 3}
        back = replayed_answers.restore("t", doc, [str(live)])[0]
        assert response_side(back) == response_side(live)
        assert replayed_answers.restore("t", doc, [live])[0] is live  # a live answer is left alone
        with pytest.raises(replayed_answers.LostSideChannel, match="PSS and perplexity_mean would be lost"):
            replayed_answers.restore("t", {"id": 4}, ["[1, 2]"])
    finally:
        replayed_answers.clear()
    assert replayed_answers.restore("t", {"id": 4}, ["[1, 2]"]) == ["[1, 2]"]  # no source: nothing changes


def test_a_sample_error_comes_back_with_its_answer(tmp_path):
    from gui_core.sample_faults import fault_of, record

    def fresh(reqs, done):
        record("t_fault", {"id": 9}, "its images: broken")
        done(0, "")
        return [""]

    j = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    j.run([_Instance("q", 9, task="t_fault")], fresh, {"t_fault": {"test": {9: {"id": 9}}}})
    entry = json.loads((tmp_path / "j" / "rank0.jsonl").read_text().splitlines()[1])
    assert entry["fault"] == "its images: broken"
    from gui_core import sample_faults

    sample_faults._FAULTS.pop(("t_fault", "9"))
    RunJournal(tmp_path / "j", "gui_hf", SETTINGS).run([_Instance("q", 9, task="t_fault")], fresh,
                                                       {"t_fault": {"test": {9: {"id": 9}}}})
    assert fault_of("t_fault", {"id": 9}) == "its images: broken"
    sample_faults._FAULTS.pop(("t_fault", "9"))


def test_a_rank_killed_while_writing_its_header_starts_its_file_again(tmp_path):
    (tmp_path / "j").mkdir()
    (tmp_path / "j" / "rank0.jsonl").write_bytes(b'{"format": "gui-eval-ru')
    j = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    j.run([_Instance("q", 0)], _fresh([]))
    j.close()
    again = RunJournal(tmp_path / "j", "gui_hf", SETTINGS)
    assert len(again.entries) == 1 and again.torn == 0
