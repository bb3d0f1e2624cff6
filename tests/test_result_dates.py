"""Result times carry their zone (issue 53): lmms-eval's run stamp, in its ``--timezone`` (default UTC+8), gets the
UTC offset, in ``results["date"]`` and the file names alike."""

from __future__ import annotations

import datetime
import re

from gui_tasks.harness import lmms_dates


def test_the_run_stamp_names_its_offset_and_is_the_same_instant(monkeypatch):
    from lmms_eval import utils

    monkeypatch.setattr(utils, "get_datetime_str", utils.get_datetime_str)  # undone after the test
    lmms_dates.install_zoned_dates()
    lmms_dates.install_zoned_dates()  # once
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    stamps = {tz: utils.get_datetime_str(timezone=tz) for tz in ("Asia/Singapore", "UTC", "America/New_York")}
    after = datetime.datetime.now(datetime.timezone.utc)
    assert re.fullmatch(r"\d{8}_\d{6}\+0800", stamps["Asia/Singapore"]) and stamps["UTC"].endswith("+0000")
    for stamp in stamps.values():
        assert before <= datetime.datetime.strptime(stamp, lmms_dates.FORMAT) <= after
    assert getattr(utils.get_datetime_str, "__wrapped__", None) is not None
