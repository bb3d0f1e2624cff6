"""lmms-eval glue for the step-wise agentic benchmarks (StaR appendix A.3) and their synthetic counterpart.

YAML ``metadata``: ``dataset`` (androidcontrol | aitz | gui_odyssey | synthetic), ``data_split`` (not ``split``: lmms-eval
takes a metadata key of that name as the split to read),
``setting`` (``high``: the goal only; ``low``: the goal and the step's instruction, the two
AndroidControl settings), ``agent_family``, ``match_rule`` (default: A.2 with d <= 140),
``gesture_to_scroll`` (how finger gestures in the *data* name a SCROLL), ``output_gesture_to_scroll`` (how the
agent's own finger words are read; empty: the family's scroll semantics, ``action_parsers.SCROLL_SEMANTICS``),
``resize_budget`` / ``min_pixels`` / ``max_pixels`` / ``parser_reading`` (``lmms_task.frame_options``), ``judge``
(``gui_tasks.star.judges``: ``star`` by default on the official datasets, ``paper`` on the synthetic one; the
environment variable ``GUI_EVAL_STAR_JUDGE`` overrides it for one run). They are stamped on each document, so
prompting and scoring use the same choices; the task config's metadata records the judge and the steps it left out.

Scroll words: AndroidControl names the scroll direction; AITZ and GUI-Odyssey gold (with ``gesture_to_scroll:
same``) names the finger's movement (``gold_scroll_space``). A family's words are compared as they are when they
name the same thing as the gold, and inverted otherwise (``output_gesture_to_scroll`` overrides).
"""

from __future__ import annotations

from typing import Any, Mapping

import datasets
from PIL import Image

from gui_metrics.lmms_bridge import sample_values
import json
import os

from gui_models.action_match import RULES, STAR_AGENTIC
from gui_models.coords import Geometry
from gui_tasks.errors import DataError
from gui_tasks.lmms_rows import RowsTask, load_image, read_jsonl
from gui_tasks.mpr.schema import LANGS
from gui_tasks.star import agentic, judges, synth
from gui_tasks.star.families import build_prompt, family, format_action, parse, prompt_geometry, scoring_geometry
from gui_tasks.star.lmms_task import budget_meta, frame_options
from gui_tasks.star.schema import action_from_json

RECORD_KINDS = ("step",)
SETTINGS = ("high", "low")
STEP_FIELDS = ("id", "dataset", "episode_id", "step", "goal", "low_level", "images", "image_width", "image_height",
               "history_images", "history_actions", "gold", "boxes", "action_category", "agent_family", "match_rule",
               "setting", "gesture_to_scroll", "lang", "judge", "gold_scroll_space", "target_box", "judge_data")
JUDGE_ENV = "GUI_EVAL_STAR_JUDGE"
# what each task's rows left out, by the metadata that built them (read back into the task config by ``download``)
_DROPPED: dict[str, dict[str, int]] = {}


class StarAgenticTask(RowsTask):
    """``star_<dataset>*``: step documents from ``metadata``."""

    KIND = "star_agentic"

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        return task_rows(meta)

    def download(self, dataset_kwargs=None) -> None:
        super().download(dataset_kwargs)
        meta = getattr(self.config, "metadata", None)
        if isinstance(meta, dict):  # lands in the results' task config and in submissions
            meta["judge"] = effective_judge(meta)
            meta["steps_dropped"] = _DROPPED.get(_key(meta), {})

    def process_results(self, doc, results, full_docs=None):  # noqa: D401 - lmms-eval hook
        """Score the response as the backend returned it (its ``extras["model_image_sizes"]`` survive)."""
        return process_results(doc, results)


def _key(meta: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in meta.items() if k not in ("judge", "steps_dropped")}, sort_keys=True, default=str)


def effective_judge(meta: Mapping[str, Any]) -> str:
    """The run's judge: ``$GUI_EVAL_STAR_JUDGE``, else the task's ``judge``, else the dataset's default."""
    return str(os.environ.get(JUDGE_ENV) or meta.get("judge") or judges.DEFAULT_JUDGE.get(str(meta.get("dataset", "")), "paper"))


def gold_scroll_space(dataset: str, gesture_to_scroll: str) -> str:
    """What a gold SCROLL direction names: ``finger`` (AITZ / GUI-Odyssey touch-to-lift, kept as is) or ``scroll``."""
    return "finger" if dataset in ("aitz", "gui_odyssey") and gesture_to_scroll == "same" else "scroll"


def output_gesture(doc: Mapping[str, Any]) -> str:
    """How the agent's scroll words are read: the override, else as is when the family's words name what the gold
    names (``action_parsers.SCROLL_SEMANTICS``), else inverted."""
    if doc.get("output_gesture_to_scroll"):
        return str(doc["output_gesture_to_scroll"])
    words = family(doc["agent_family"]).scroll_semantics
    return "same" if words == "scroll" or doc.get("gold_scroll_space") == "finger" else "inverse"


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    fam = str(meta.get("agent_family", "os_atlas"))
    try:
        family(fam)
    except ValueError as exc:
        raise DataError(str(exc), file="<task yaml>", field="metadata.agent_family") from exc
    rule = str(meta.get("match_rule", STAR_AGENTIC.name))
    if rule not in RULES:
        raise DataError(f"unknown match rule {rule!r}; known: {sorted(RULES)}", file="<task yaml>", field="metadata.match_rule")
    setting = str(meta.get("setting", "high"))
    if setting not in SETTINGS:
        raise DataError(f"setting must be one of {SETTINGS}, got {setting!r}", file="<task yaml>", field="metadata.setting")
    gesture = str(meta.get("gesture_to_scroll", "same"))
    if gesture not in ("same", "inverse"):
        raise DataError(f"gesture_to_scroll must be 'same' or 'inverse', got {gesture!r}", file="<task yaml>",
                        field="metadata.gesture_to_scroll")
    dataset = str(meta.get("dataset", ""))
    if dataset not in (*agentic.DATASETS, "synthetic"):
        raise DataError(f"unknown dataset {dataset!r}; known: {(*agentic.DATASETS, 'synthetic')}", file="<task yaml>",
                        field="metadata.dataset")
    judge = effective_judge(meta)
    why = judges.check(judge, dataset)
    if why:
        raise DataError(why, file="<task yaml>" if not os.environ.get(JUDGE_ENV) else f"${JUDGE_ENV}", field="metadata.judge")
    if gesture != "same" and judge != "paper":
        raise DataError(f"judge {judge!r} reads the gold scroll words as the dataset writes them; gesture_to_scroll "
                        f"'inverse' is a choice of the 'paper' judge only", file="<task yaml>", field="metadata.gesture_to_scroll")
    if dataset == "synthetic":
        lang = str(meta.get("lang", "en"))
        if lang not in LANGS:
            raise DataError(f"task metadata lang {lang!r} is not one of {LANGS}", file="<task yaml>", field="metadata.lang")
        files = synth.load_or_build_agentic(seed=int(meta.get("seed", 0)), episodes=int(meta.get("episodes", 15)))
        docs = read_jsonl(files[lang])
    else:
        docs = [{**d, "lang": "en"} for d in agentic.read_steps(dataset, agentic.data_root(dataset), meta.get("data_split"),
                                                                 gesture_to_scroll=gesture)]  # type: ignore[arg-type]
    out_gesture = str(meta.get("output_gesture_to_scroll") or "")
    if out_gesture not in ("", "same", "inverse"):
        raise DataError(f"output_gesture_to_scroll must be 'same', 'inverse' or empty, got {out_gesture!r}",
                        file="<task yaml>", field="metadata.output_gesture_to_scroll")
    options = frame_options(meta)
    space = gold_scroll_space(dataset, gesture)
    out, dropped = [], {}
    for d in docs:
        doc = {"target_box": [], "judge_data": "{}", **d, "agent_family": fam, "match_rule": rule, "setting": setting,
               "gesture_to_scroll": gesture, "output_gesture_to_scroll": out_gesture, "judge": judge,
               "gold_scroll_space": space, **options}
        reason = judges.drop_reason(judge, doc)
        if reason:
            dropped[reason] = dropped.get(reason, 0) + 1
            continue
        out.append(doc)
    _DROPPED[_key(meta)] = dropped
    return out


def process_docs(dataset: datasets.Dataset) -> datasets.Dataset:
    docs = []
    for i, r in enumerate(dataset):
        doc = dict(r)
        missing = [f for f in STEP_FIELDS if f not in doc]
        if missing:
            raise DataError(f"missing field(s) {missing}", file="<star agentic rows>", row=i, field=missing[0])
        docs.append(doc)
    return datasets.Dataset.from_list(docs)


def geometry(doc: Mapping[str, Any]) -> Geometry:
    """The geometry prompts and history lines are written for (``families.prompt_geometry``)."""
    return prompt_geometry(doc["agent_family"], int(doc["image_width"]), int(doc["image_height"]), budget_meta(doc))


def doc_to_visual(doc: Mapping[str, Any]) -> list[Image.Image]:
    """The family's history screenshots (UI-TARS: the last four, A.5), then the current one."""
    keep = family(doc["agent_family"]).history_images
    paths = (list(doc["history_images"])[-keep:] if keep else []) + list(doc["images"])
    out = []
    for p in paths:
        out.append(load_image(p, doc_id=doc.get("id")))
    return out


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    geo = geometry(doc)
    meta = budget_meta(doc)
    finger = doc.get("gold_scroll_space") == "finger"
    history = [format_action(action_from_json(a), doc["agent_family"], geo, meta, finger_words=finger)
               for a in doc["history_actions"]]
    low = doc["low_level"] if doc["setting"] == "low" and doc["low_level"] else None
    return build_prompt(doc["agent_family"], doc["goal"], geo, history, low, meta=meta)


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return format_action(action_from_json(doc["gold"]), doc["agent_family"], geometry(doc), budget_meta(doc),
                         finger_words=doc.get("gold_scroll_space") == "finger")


def score_response(doc: Mapping[str, Any], response: str | None) -> dict[str, Any]:
    """The per-step record the step metrics read (gui_metrics.agentic); the current screenshot is the request's last
    image, so its reported size is ``model_image_sizes[-1]``."""
    geo, frame = scoring_geometry(doc["agent_family"], int(doc["image_width"]), int(doc["image_height"]), response,
                                  image_index=-1, meta=budget_meta(doc))
    parsed = parse(response, doc["agent_family"], gesture_to_scroll=output_gesture(doc),  # type: ignore[arg-type]
                   reading=doc.get("parser_reading") or "schema", meta=budget_meta(doc))
    judge = doc.get("judge") or "paper"
    v = judges.judge_step(judge, doc, response, parsed.action, geo)
    data = judges.raw(doc)
    return {"id": doc["id"], "dataset": doc["dataset"], "episode_id": str(doc["episode_id"]), "category": doc["action_category"],
            "status": parsed.status, "detail": parsed.detail, "pred_type": parsed.action.type if parsed.action is not None else None,
            "type_match": v.type_match, "exact": v.exact, "judge": judge,
            "rule": doc["match_rule"] if judge == "paper" else judge, "judge_pred": v.pred, "judge_gold": v.gold,
            "judge_type": v.gold_type, "episode_category": data.get("category"),
            "episode_steps_unscored": int(data.get("episode_steps_unscored") or 0),
            "agent_family": doc["agent_family"], "scroll_semantics": family(doc["agent_family"]).scroll_semantics,
            "output_gesture_to_scroll": output_gesture(doc), **frame}


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    response = results[0] if results else None
    if isinstance(response, list):  # repeats: lmms-eval nests the responses
        response = response[0] if response else None
    if not isinstance(response, str):
        response = None if response is None else str(response)
    return sample_values(RECORD_KINDS, score_response(doc, response))
