"""Result times with their zone.

lmms-eval 0.7.3 stamps a run (``results["date"]``, the ``<date>_results.json`` / ``<date>_samples_<task>.jsonl`` file
names) with ``lmms_eval.utils.get_datetime_str(timezone=args.timezone)``: the time in ``--timezone``, default
``Asia/Singapore`` (UTC+8), written ``%Y%m%d_%H%M%S`` with no zone, so a run made at 01:00 UTC reads 09:00. The wrap
installed here keeps lmms-eval's zone and format and appends the UTC offset (``20261202_090000+0800``): the same
instant, said unambiguously, in the results and the file names alike.
"""

from __future__ import annotations

import datetime
import functools

_MARK = "__gui_eval_patched__"
FORMAT = "%Y%m%d_%H%M%S%z"


def zoned_datetime_str(timezone: str = "Asia/Singapore") -> str:
    """lmms-eval's run stamp (the time now in ``timezone``) with its UTC offset appended."""
    import pytz

    return datetime.datetime.now(datetime.timezone.utc).astimezone(pytz.timezone(timezone)).strftime(FORMAT)


def install_zoned_dates() -> None:
    """Replace ``lmms_eval.utils.get_datetime_str`` (looked up there by lmms-eval's CLI at each call), once."""
    from lmms_eval import utils

    original = utils.get_datetime_str
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def get_datetime_str(timezone="Asia/Singapore"):
        return zoned_datetime_str(timezone)

    setattr(get_datetime_str, _MARK, True)
    utils.get_datetime_str = get_datetime_str
