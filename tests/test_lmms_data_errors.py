"""Bad data met while lmms-eval builds a task: not retried by its tenacity wrapper, named plainly at exit."""

from __future__ import annotations

import pytest
from tenacity import RetryError, Retrying, stop_after_attempt

from gui_tasks import lmms_failures, lmms_integration  # the failure reports live in lmms_failures
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


def test_the_message_is_printed_with_the_task_name(capsys, monkeypatch):
    monkeypatch.setattr(lmms_failures, "_DATA_ERRORS", ["task mpr_gui_zh: qas/au_zh.jsonl, row 3, field 'answer': bad"])
    lmms_integration._print_data_errors()
    err = capsys.readouterr().err
    assert "these tasks did not run" in err and "task mpr_gui_zh: qas/au_zh.jsonl, row 3, field 'answer'" in err
