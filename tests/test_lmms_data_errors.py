"""Bad data met while lmms-eval builds a task: not retried by its tenacity wrapper, named plainly at exit."""

from __future__ import annotations

import pytest
from tenacity import RetryError, Retrying, stop_after_attempt

from gui_tasks import lmms_integration
from gui_tasks.errors import DataError


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
    monkeypatch.setattr(lmms_integration, "_DATA_ERRORS", [f"task mpr_gui_zh: {why}"])
    monkeypatch.setattr(lmms_integration, "_FAILURES", [f"task mpr_gui_zh did not run: {why}"] * 2)
    lmms_integration._print_failures()
    err = capsys.readouterr().err
    assert "bad benchmark data" in err and "the tasks below did not run" in err
    assert err.count(why) == 1 and "gui-eval: task mpr_gui_zh did not run: qas/au_zh.jsonl, row 3, field 'answer'" in err


def test_an_unset_data_variable_is_a_configuration_error_naming_the_fetch_command(capsys, monkeypatch):
    from gui_tasks.errors import ConfigError
    from gui_tasks.grounding.screenspot import env_root

    monkeypatch.delenv("SCREENSPOT_V2_DATA_DIR", raising=False)
    monkeypatch.setattr(lmms_integration, "_DATA_ERRORS", [])
    monkeypatch.setattr(lmms_integration, "_FAILURES", [])
    with pytest.raises(ConfigError) as info:
        env_root("SCREENSPOT_V2_DATA_DIR", "screenspot_v2")
    assert "`gui-eval data fetch screenspot_v2`" in str(info.value)
    lmms_integration.note_stopped("gui_screenspot_v2", f"its rows could not be built: {info.value}", info.value)
    lmms_integration._print_failures()
    err = capsys.readouterr().err
    assert "bad benchmark data" not in err and err.count("gui_screenspot_v2 did not run: configuration error") == 1
