"""Bad data met while lmms-eval builds a task: not retried by its tenacity wrapper, named plainly at exit."""

from __future__ import annotations

import pytest
from tenacity import RetryError, Retrying, stop_after_attempt

from gui_tasks.harness import lmms_failures, lmms_integration  # the failure reports live in lmms_failures
from gui_core.errors import DataError


def test_download_retry_does_not_retry_data_errors():
    from lmms_eval.api.task import ConfigurableTask

    lmms_integration.install_data_error_report()
    calls = []

    @ConfigurableTask.download.retry.wraps
    def failing():
        calls.append(1)
        raise DataError("bad answer", file="qas/au_zh.jsonl", row=3, field="answer")

    with pytest.raises(DataError, match="row 3, field 'answer'"):
        failing()
    assert calls == [1]  # one attempt, the error itself (no RetryError after five)


def test_the_data_error_behind_a_retry_error_is_found():
    err = DataError("missing", file="f.json", row=0, field="question_text")

    def boom():
        raise err

    with pytest.raises(RetryError) as info:
        Retrying(stop=stop_after_attempt(2))(boom)
    assert lmms_integration._data_error_in(info.value, DataError) is err
    assert lmms_integration._data_error_in(ValueError("other"), DataError) is None


def test_the_message_is_printed_with_the_task_name_once(capsys, monkeypatch):
    why = "qas/au_zh.jsonl, row 3, field 'answer': bad"
    monkeypatch.setattr(lmms_failures, "_DATA_ERRORS", [f"task mpr_gui_zh: {why}"])
    monkeypatch.setattr(lmms_failures, "_FAILURES", [f"task mpr_gui_zh did not run: {why}"] * 2)
    lmms_failures._print_failures()
    err = capsys.readouterr().err
    assert "bad benchmark data" in err and "the tasks below did not run" in err
    assert err.count(why) == 1 and "gui-eval: task mpr_gui_zh did not run: qas/au_zh.jsonl, row 3, field 'answer'" in err


def test_a_stopped_task_with_a_configuration_error_is_said_once_not_as_bad_data(capsys, monkeypatch):
    from gui_core.errors import ConfigError

    monkeypatch.setattr(lmms_failures, "_DATA_ERRORS", [])
    monkeypatch.setattr(lmms_failures, "_FAILURES", [])
    exc = ConfigError("$SCREENSPOT_V2_DATA_DIR", None, message="$SCREENSPOT_V2_DATA_DIR is not set; `gui-eval data fetch screenspot_v2`")
    lmms_integration.note_stopped("gui_screenspot_v2", f"its rows could not be built: {exc}", exc)
    lmms_failures._print_failures()
    err = capsys.readouterr().err
    assert "bad benchmark data" not in err and err.count("gui_screenspot_v2 did not run: configuration error") == 1

