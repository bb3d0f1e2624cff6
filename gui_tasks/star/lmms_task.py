"""lmms-eval glue for the StaR state-control tasks (official data and the synthetic world).

YAML ``metadata`` names the source, language, agent family (whose prompt and parser are
used) and the matching rule; they are stamped on every document, so ``doc_to_text`` and
``process_results`` (which see only the document) use the same choices, and the logged
samples show them.
"""

from __future__ import annotations

from typing import Any, Mapping

import datasets

from gui_metrics.lmms_bridge import sample_values
from gui_core.action_match import RULES, STAR_STATE_CONTROL, match
from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_core.family import default_agent
from gui_core.errors import DataError
from gui_tasks.harness.bad_rows import BadRows, announce_skipped, skip_bad_rows
from gui_tasks.harness.lmms_rows import RowsTask, doc_to_visual, read_jsonl
from gui_core.languages import LANGS
from gui_tasks.star import release, synth
from gui_core.agents import build_prompt, family, format_action, parse, prompt_geometry, scoring_geometry
from gui_tasks.star.schema import action_from_json, official_pair, validate_doc

RECORD_KINDS = ("star",)
__all__ = ["StarStateControlTask", "doc_to_visual", "doc_to_text", "doc_to_target", "process_docs", "process_results",
           "score_response", "task_rows"]


class StarStateControlTask(RowsTask):
    """``star_state_control*``: rows from ``metadata`` (source, lang, agent_family, match_rule, data_split or data_file
    ($STAR_DATA_FILE overrides both), seed/pairs)."""

    KIND = "star"
    # task_rows / frame_options read these; scroll_semantics is the record of the family's (conflicts() checks it)
    METADATA_KEYS = frozenset({"source", "lang", "seed", "data_split", "agent_family", "match_rule", "coordinate_frame",
                               "resize_budget", "min_pixels", "max_pixels", "parser_reading", "scroll_semantics"}) | {"pairs", "prompt_protocol", "parser_protocol"}

    @classmethod
    def conflicts(cls, meta: Mapping[str, Any], kwargs: Mapping[str, Any]) -> list[str]:
        return scroll_record_conflicts(meta)

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        return task_rows(meta)

    def answer_family(self, doc):
        """The agent family whose parser reads the answers (stamped on each document): its record says whether they
        are read after the reasoning."""
        return doc.get("agent_family") if isinstance(doc, Mapping) else None

    def process_results(self, doc, results, full_docs=None):  # noqa: D401 - lmms-eval hook
        """Score the response as the backend returned it: its ``extras["model_image_sizes"]`` survive (the YAML
        function path would get a stripped copy)."""
        return process_results(doc, results)


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Canonical documents for one task's metadata, stamped with its agent family and matching rule."""
    fam = str(meta.get("agent_family", default_agent("star").name))
    family(fam)  # an unknown family: UnknownName with did-you-mean (a configuration error)
    rule = str(meta.get("match_rule", STAR_STATE_CONTROL.name))
    if rule not in RULES:
        raise DataError(f"unknown match rule {rule!r}; known: {sorted(RULES)}", file="<task yaml>", field="metadata.match_rule")
    source = meta.get("source")
    if source == "official":
        root, path = release.selected_file(meta)
        bad = BadRows(skip_bad_rows(meta))
        docs = []
        for file, i, raw, image in release.read_records(path, root, bad):
            try:
                docs += official_pair(raw, file=file, row=i, image_path=image, agent_family=fam, match_rule=rule)
            except DataError as exc:
                bad.add(exc)
        announce_skipped(bad, f"StaR records of {path.name}")
    elif source == "synthetic":
        lang = str(meta.get("lang", "en"))
        if lang not in LANGS:
            raise DataError(f"task metadata lang {lang!r} is not one of {LANGS}", file="<task yaml>", field="metadata.lang")
        files = synth.load_or_build(seed=int(meta.get("seed", 0)), pairs=int(meta.get("pairs", 32)))
        docs = [{**d, "agent_family": fam, "match_rule": rule} for d in read_jsonl(files[lang])]
    else:
        raise DataError(f"task metadata source {source!r} must be 'official' or 'synthetic'", file="<task yaml>",
                        field="metadata.source")
    options = frame_options(meta)
    return [{**d, **options} for d in docs]


# Task metadata keys stamped on every document: how a resized_px family's frame falls back when the backend does not
# report the size it fed the model, and which reading of the family's output is used ("" = the family default).
FRAME_OPTION_KEYS = ("coordinate_frame", "resize_budget", "min_pixels", "max_pixels", "parser_reading")


def scroll_record_conflicts(meta: Mapping[str, Any]) -> list[str]:
    """The ``scroll_semantics`` record of a StaR task is its agent family's (the parsers read the family's own)."""
    from gui_core.agents import family

    said, fam = meta.get("scroll_semantics"), meta.get("agent_family")
    if said is None or fam is None:
        return []
    real = family(str(fam)).scroll_semantics
    return [] if said == real else [f"metadata scroll_semantics {said!r} is not the {fam!r} family's {real!r}, which its "
                                    "parser uses"]


def frame_options(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The frame/parser options of task metadata, validated, as document fields (the same keys on every row)."""
    from gui_core.action_parsers import READINGS
    from gui_core.coords import BUDGETS, FRAMES

    frame = str(meta.get("coordinate_frame") or "")
    if frame and frame not in FRAMES:
        raise DataError(f"coordinate_frame {frame!r} unknown; known: {FRAMES}", file="<task yaml>",
                        field="metadata.coordinate_frame")
    name = str(meta.get("resize_budget") or "")
    if name and name not in BUDGETS:
        raise DataError(f"unknown resize budget {name!r}; known: {sorted(BUDGETS)}", file="<task yaml>",
                        field="metadata.resize_budget")
    out: dict[str, Any] = {"coordinate_frame": frame, "resize_budget": name}
    for key in ("min_pixels", "max_pixels"):
        value = meta.get(key)
        try:
            out[key] = int(value) if value not in (None, "") else 0
        except (TypeError, ValueError):
            raise DataError(f"{key} must be a positive integer number of pixels, got {value!r}", file="<task yaml>",
                            field=f"metadata.{key}") from None
        if out[key] < 0:
            raise DataError(f"{key} must be a positive integer number of pixels, got {value!r}", file="<task yaml>",
                            field=f"metadata.{key}")
    reading = str(meta.get("parser_reading") or "schema")
    if reading not in READINGS:
        raise DataError(f"parser_reading must be one of {READINGS}, got {reading!r}", file="<task yaml>",
                        field="metadata.parser_reading")
    out["parser_reading"] = reading
    return out


def budget_meta(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The budget overrides stamped on a document, in the form ``families.family_budget`` reads."""
    return {"coordinate_frame": doc.get("coordinate_frame") or None, "resize_budget": doc.get("resize_budget") or None,
            "min_pixels": doc.get("min_pixels") or None, "max_pixels": doc.get("max_pixels") or None}


def process_docs(dataset: datasets.Dataset) -> datasets.Dataset:
    """Validate the canonical documents (pairs stay adjacent, so a small ``--limit`` sees both polarities)."""
    docs = []
    for i, r in enumerate(dataset):
        doc = dict(r)
        validate_doc(doc, file="<star rows>", row=i)
        docs.append(doc)
    return datasets.Dataset.from_list(docs)


def geometry(doc: Mapping[str, Any]) -> Geometry:
    """The geometry the prompt and reference answer are written for: the original screenshot, or for a family
    answering in resized pixels the size its budget resizes it to (the backend resizes, the task sends the original)."""
    return prompt_geometry(doc["agent_family"], int(doc["image_width"]), int(doc["image_height"]), budget_meta(doc))


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    # the official benchmark: StaR's own state-control template for OS-Atlas (gui_core.agents); synthetic rows: Figure 8
    dataset = {"dataset": "state_control"} if doc.get("source") == "official" else {}
    return build_prompt(doc["agent_family"], doc["instruction"], geometry(doc), meta={**budget_meta(doc), **dataset})


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return format_action(action_from_json(doc["gold"]), doc["agent_family"], geometry(doc), budget_meta(doc))


def score_response(doc: Mapping[str, Any], response: str | None) -> dict[str, Any]:
    """The per-sample record the StaR metrics read (gui_metrics.star).

    The answer is read in the frame of the image the model saw: ``extras["model_image_sizes"]`` of the response
    when the backend reports it, else the family's resize budget; the record names which."""
    geo, frame = scoring_geometry(doc["agent_family"], int(doc["image_width"]), int(doc["image_height"]), response,
                                  meta=budget_meta(doc))
    rule = RULES[doc["match_rule"]]
    parsed = parse(response, doc["agent_family"], reading=doc.get("parser_reading") or "schema", meta=budget_meta(doc))
    gold = action_from_json(doc["gold"])
    boxes = [tuple(doc["toggle_box"])] if doc["toggle_box"] else []
    result = match(parsed.action, gold, geo, rule=rule, boxes=boxes)
    toggle = Action("CLICK", point=tuple(doc["toggle_point"]), frame="grid1000")
    hits = match(parsed.action, toggle, geo, rule=rule, boxes=boxes).exact if parsed.action is not None else False
    pred = parsed.action
    return {
        "id": doc["id"],
        "lang": doc["lang"],
        "polarity": doc["polarity"],
        "status": parsed.status,
        "detail": parsed.detail,
        "pred_type": pred.type if pred is not None else None,
        "pred_point": list(pred.point_in("grid1000", geo)) if pred is not None and pred.point is not None else None,
        "type_match": result.type_match,
        "exact": result.exact,
        "hits_toggle": hits,
        "rule": result.rule,
        "agent_family": doc["agent_family"],
        "scroll_semantics": family(doc["agent_family"]).scroll_semantics,
        "parser_reading": doc.get("parser_reading") or "schema",
        **frame,
    }


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    response = results[0] if results else None
    if isinstance(response, list):  # repeats: lmms-eval nests the responses
        response = response[0] if response else None
    if not isinstance(response, str):
        response = None if response is None else str(response)
    return sample_values(RECORD_KINDS, score_response(doc, response))
