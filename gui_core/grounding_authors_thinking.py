"""The thinking-era families' own grounding parsers, reproduced: their ``official`` reading (issue 51, item 5).

Same contract as ``gui_core.grounding_authors`` (whose ``Official`` they return): each reader does what its authors'
evaluation code does with the raw answer, their fallbacks included, and receives the whole text; where the authors
read the answer after the reasoning (the family record's ``answer_after_reasoning``), the reader makes the cut where
their code makes it. ``tests/test_grounding_differential.py`` checks every reader against the authors' code on a
hostile corpus (tests/fixtures/differential/grounding/<family>.json names repository, commit and path). Never raises
on model output; linear time in the answer's length.
"""

from __future__ import annotations

import re
from typing import Any

from gui_core.grounding_authors import _ORIGIN, Official

# Tongyi-MAI/MAI-UI evaluation/grounding/models/MAI_UI.py ``parse_coordinates``: re.findall(r'\[(\d+),(\d+)\]'), the
# first match. Each match starts at a "[" and its digit runs are disjoint: linear time.
_MAI_PAIR = re.compile(r"\[(\d+),(\d+)\]")
# X-PLUG/MobileAgent Mobile-Agent-v3.5/grounding_and_kb/eval_grounding_benchmarks.py ``ScreenSpotv2.evaluate``:
# "(x, y)" with any whitespace after the comma, else "[x, y]" with exactly one space; the LAST match.
_OWL_PAREN = re.compile(r"\((\d+),\s*(\d+)\)")
_OWL_SQUARE = re.compile(r"\[(\d+), (\d+)\]")


def _digits(a: str, b: str) -> tuple[float, float]:
    """Two runs of decimal digits (any script ``\\d`` matches, as ``int()`` reads them) as floats; a run too long for
    a float is infinite (a miss: ``int()`` there raises or the division overflows, so no point is scored)."""
    return float(a), float(b)


def read_mai_ui(text: str) -> Official:
    """MAI-UI as its grounding evaluation reads it (evaluation/grounding/models/MAI_UI.py
    ``batch_ground_only_positive``, the eval_local.py path the README runs): the stripped answer is cut after its last
    ``}``; the first ``[x,y]`` of unsigned integers without spaces in what is left, on the 0-1000 grid, reasoning
    (``<grounding_think>``) included. None found: its ``(-1, -1)``, outside every box (no point here)."""
    body = text.strip()
    cut = body.rfind("}")
    if cut != -1:
        body = body[:cut + 1]
    m = _MAI_PAIR.search(body)
    if m is None:
        return Official(None, "malformed", "no [x,y] before the last '}': the runner's (-1, -1), outside every box")
    p = _digits(m.group(1), m.group(2))
    return Official(p, "parsed", "first [x,y] on the 0-1000 grid", p)


def read_gui_owl_1_5(text: str) -> Official:
    """GUI-Owl-1.5 as its grounding evaluation reads it (eval_grounding_benchmarks.py ``ScreenSpotv2.evaluate`` with
    ``use_qwen3vl``): the last ``(x, y)`` of the whole answer (reasoning included), else the last ``[x, y]`` written
    with one space (the tool call's ``"coordinate": [x, y]``), unsigned integers on the 0-1000 grid; neither found:
    the script's click (0, 0) (status ``malformed``, point (0, 0))."""
    last = None
    for last in _OWL_PAREN.finditer(text):
        pass
    if last is None:
        for last in _OWL_SQUARE.finditer(text):
            pass
    if last is None:
        return Official(_ORIGIN, "malformed", "no (x, y) or [x, y]: the script's click (0, 0)")
    p = _digits(last.group(1), last.group(2))
    return Official(p, "parsed", "last (x, y) / [x, y] on the 0-1000 grid", p)


_SCHEMAS: dict[str, Any] = {}


def _click_schema(title: str):
    """The authors' pydantic model: ``x`` and ``y`` integers with ``ge=0, le=1000`` (validated with pydantic as
    there). Holo2: ``ClickCoordinates`` (hcompai/hai-cookbook holo2/); Holo3: ``VisualLocalizerOutput``
    (hub.hcompany.ai element localization)."""
    if title not in _SCHEMAS:
        from pydantic import Field, create_model

        bounded = (int, Field(ge=0, le=1000))
        _SCHEMAS[title] = create_model(title, x=bounded, y=bounded)
    return _SCHEMAS[title]


def _validated(content: str, title: str, what: str) -> Official:
    from pydantic import ValidationError

    try:
        point = _click_schema(title).model_validate_json(content)
    except (ValidationError, ValueError, RecursionError):
        return Official(None, "malformed", f"not a {title} JSON (x, y integers in [0, 1000]): {what}")
    p = (float(point.x), float(point.y))
    return Official(p, "parsed", f"{title} on the 0-1000 grid", p)


def read_holo2(text: str) -> Official:
    """Holo2 as its cookbook reads it (holo2/holo_2_localization_huggingface.ipynb ``parse_reasoning``, then
    ``ClickCoordinates.model_validate_json``): the content after the FIRST ``</think>`` with its newlines stripped,
    validated as JSON ``{"x": int, "y": int}`` within [0, 1000]. An answer without ``</think>`` (thinking off: the chat
    template closes the block in the prompt) is all content, as the hosted-API notebook's server hands it back."""
    at = text.find("</think>")
    content = text[at + len("</think>"):] if at != -1 else text
    return _validated(content.strip("\n"), "ClickCoordinates", "the cookbook's parse fails")


def read_holo3(text: str) -> Official:
    """Holo3 / Holo3.1 as H Company's element-localization guide reads it (``VisualLocalizerOutput
    .model_validate_json(message.content)``, thinking off): the text after the last ``</think>`` (the content a server
    returns without the reasoning; with thinking off, the whole answer) validated as JSON ``{"x": int, "y": int}``
    within [0, 1000]."""
    at = text.rfind("</think>")
    return _validated(text[at + len("</think>"):] if at != -1 else text, "VisualLocalizerOutput",
                      "the guide's validation fails")
