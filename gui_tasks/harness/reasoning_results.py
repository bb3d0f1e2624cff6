"""The answer read after the reasoning, and the per-sample reasoning facts, for every task's ``process_results``.

``gui_tasks.harness.lmms_rows.RowsTask`` calls :func:`read_results` before the task's own scoring. The backends keep
each generation's reading (``gui_core.reasoning.note``: where the answer begins, the reasoning's length in tokens,
whether the token budget cut it); here:

- a sample whose (last) reasoning never closed is scored as the empty answer it is (a format error of the task) and
  counted as ``thinking_truncated``, never read as a (wrong) answer from the digits or letters of its reasoning;
- the scorer gets the answer after the last closing reasoning tag (tags of the run's ``reasoning_tags``), its digit
  capture cut with it (``gui_core.reasoning.answer_part``: PSS never reads a digit inside the reasoning), unless the
  task's answer family says its authors read the whole text with their own parser
  (``Family.answer_after_reasoning`` False): then the whole text, as they do;
- per sample: the metrics ``thinking_truncated`` (0/1) and ``reasoning_tokens`` (the tokens of every generation of the
  document: rounds and re-runs), and the logged field ``reasoning`` (thinking switch, tokens, characters, truncated).

The reasoning text itself stays in the samples file: it is the start of the response lmms-eval logs (``resps``).
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_core.reasoning import (REASONING_KEY, REASONING_TOKENS, THINKING_TRUNCATED, answer_part, logged_record,
                                notes_of, split_reasoning)


def reads_after_reasoning(family: str | None) -> bool:
    """Whether answers of ``family`` are read after the reasoning (its record's ``answer_after_reasoning``; default yes)."""
    if not family:
        return True
    from gui_core.family import FAMILIES

    try:
        record = FAMILIES.get(family)
    except Exception:  # noqa: BLE001 - an unknown family is the task's own error to report
        return True
    return bool(getattr(record, "answer_after_reasoning", True))


def read_results(task: str, doc: Any, results: list[Any], family: str | None = None) -> tuple[list[Any], dict[str, Any]]:
    """(the results the scorer reads, the per-sample fields to add); unchanged and no fields without a reasoning note."""
    notes = notes_of(task, doc)
    if not notes or not isinstance(results, list):
        return results, {}
    last = notes[-1]
    after = reads_after_reasoning(family)
    read = []
    for response in results:
        if not isinstance(response, str):  # rounds (a list per request): each task reads its own
            read.append(response)
            continue
        # tags only: lmms-eval may have stripped the reasoning already (then the text is the answer)
        split = split_reasoning(str(response), last.tags)
        if last.truncated or (not last.closed and last.reasoning_chars > 0):
            read.append(answer_part(response, len(str(response))))  # no answer: the reasoning never ended
        elif after and split.closed:
            read.append(answer_part(response, split.answer_start))
        else:
            read.append(response)
    record = logged_record(notes, "after_reasoning" if after else "whole_text")
    fields: dict[str, Any] = {THINKING_TRUNCATED: int(last.truncated), REASONING_KEY: record}
    if record["tokens"] is not None:
        fields[REASONING_TOKENS] = record["tokens"]
    return read, fields


def reasoning_aggregations() -> Mapping[str, tuple[Any, bool]]:
    """The per-sample reasoning metrics: aggregation and higher-is-better (both means; fewer is better)."""
    from lmms_eval.api.metrics import mean

    return {THINKING_TRUNCATED: (mean, False), REASONING_TOKENS: (mean, False)}
