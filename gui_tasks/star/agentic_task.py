"""lmms-eval glue for the step-wise agentic benchmarks (StaR appendix A.3) and their synthetic counterpart.

YAML ``metadata``: ``dataset`` (androidcontrol | aitz | gui_odyssey | synthetic), ``data_split`` (not ``split``: lmms-eval
takes a metadata key of that name as the split to read),
``setting`` (``high``: the goal only; ``low``: the goal and the step's instruction, the two
AndroidControl settings), ``agent_family``, ``match_rule`` (default: A.2 with d <= 140),
``gesture_to_scroll`` (how finger gestures in the *data* name a SCROLL), ``output_gesture_to_scroll`` (how the
agent's own finger words are read; empty: the family's scroll semantics, ``action_parsers.SCROLL_SEMANTICS``),
``resize_budget`` / ``min_pixels`` / ``max_pixels`` / ``parser_reading`` (``lmms_task.frame_options``), ``judge``
(``gui_tasks.star.judges``: ``star`` by default on the official datasets, ``paper`` on the synthetic one; the
environment variable ``GUI_EVAL_STAR_JUDGE`` overrides it for one run), ``history`` (``ground_truth``: every step's
history is the gold trajectory, steps are independent documents; ``own``: UI-TARS's own previous predictions, StaR
A.5, ``gui_tasks.star.own_history``: one document per episode whose steps run in order as rounds, bounded by
``max_episode_steps``). They are stamped on each document, so prompting and scoring use the same choices; the task
config's metadata records the judge, the history protocol and the steps it left out.

Scroll words: AndroidControl names the scroll direction; AITZ and GUI-Odyssey gold (with ``gesture_to_scroll:
same``) names the finger's movement (``gold_scroll_space``). A family's words are compared as they are when they
name the same thing as the gold, and inverted otherwise (``output_gesture_to_scroll`` overrides).
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import datasets
from PIL import Image

from gui_metrics.lmms_bridge import sample_values
from gui_core.action_match import RULES, STAR_AGENTIC
from gui_core.coords import Geometry
from gui_core.family import default_agent
from gui_models.generation_core import cut_at_stops
from gui_core.errors import ConfigError, DataError
from gui_tasks.harness.lmms_layout import INTERACTION_KEY, UNTIL_KEY, agentic_rounds, pack_rounds, rounds_of
from gui_tasks.harness.lmms_rows import RowsTask, load_image, read_jsonl
from gui_core.languages import LANGS
from gui_tasks.star import agentic, judges, own_history, synth
from gui_core.agents import build_prompt, family, format_action, parse, prompt_geometry, scoring_geometry
from gui_tasks.star.lmms_task import budget_meta, frame_options
from gui_tasks.star.schema import action_from_json

RECORD_KINDS = ("step",)
SETTINGS = ("high", "low")
STEP_FIELDS = ("id", "dataset", "episode_id", "step", "goal", "low_level", "images", "image_width", "image_height",
               "history_images", "history_actions", "gold", "boxes", "action_category", "agent_family", "match_rule",
               "setting", "gesture_to_scroll", "lang", "judge", "gold_scroll_space", "target_box", "judge_data")
EPISODE_FIELDS = ("id", "dataset", "episode_id", "n_steps", "history", "agent_family", "setting", "steps")
JUDGE_ENV = "GUI_EVAL_STAR_JUDGE"
# what each task's rows left out, by the metadata that built them (read back into the task config by ``download``)
_DROPPED: dict[str, dict[str, int]] = {}


class StarAgenticTask(RowsTask):
    """``star_<dataset>*``: step documents from ``metadata``."""

    KIND = "star_agentic"
    # task_rows / frame_options / effective_judge read these; scroll_semantics is the family's record (conflicts())
    METADATA_KEYS = frozenset({"source", "lang", "seed", "data_split", "agent_family", "match_rule", "coordinate_frame",
                               "resize_budget", "min_pixels", "max_pixels", "parser_reading", "scroll_semantics", "prompt_protocol", "parser_protocol"}) | {
        "dataset", "setting", "episodes", "judge", "gesture_to_scroll", "output_gesture_to_scroll", "history",
        "max_episode_steps", "steps_dropped", "history_steps", "history_layout"}

    @classmethod
    def conflicts(cls, meta: Mapping[str, Any], kwargs: Mapping[str, Any]) -> list[str]:
        from gui_tasks.star.lmms_task import scroll_record_conflicts

        return scroll_record_conflicts(meta)

    CLUSTER_KEY = "episode"  # the steps of one episode share its goal and screens

    def cluster_of(self, doc: Mapping[str, Any]) -> Any:
        return f"{doc.get('dataset', '')}/{doc.get('episode_id', '')}"

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        return task_rows(meta)

    @classmethod
    def agentic_rounds(cls, meta: Mapping[str, Any]) -> int | None:
        """Own history: an episode's steps are its rounds (at most ``max_episode_steps``); gold history: no rounds."""
        return max_episode_steps(meta) if history_protocol(meta) == "own" else None

    def download(self, dataset_kwargs=None) -> None:
        super().download(dataset_kwargs)
        meta = getattr(self.config, "metadata", None)
        if isinstance(meta, dict):  # lands in the results' task config and in submissions
            meta["judge"] = effective_judge(meta)
            meta["steps_dropped"] = _DROPPED.get(_key(meta), {})
            meta["history"] = history_protocol(meta)
            if meta["history"] == "own":
                meta.update(history_steps=own_history.HISTORY_STEPS, history_layout=own_history.HISTORY_LAYOUT)

    def process_results(self, doc, results, full_docs=None):  # noqa: D401 - lmms-eval hook
        """Score the response as the backend returned it (its ``extras["model_image_sizes"]`` survive)."""
        return process_results(doc, results)


def _key(meta: Mapping[str, Any]) -> str:
    skip = ("judge", "steps_dropped", "history", "history_steps", "history_layout", "interaction", "interaction_reason")
    return json.dumps({k: v for k, v in meta.items() if k not in skip}, sort_keys=True, default=str)


def history_protocol(meta: Mapping[str, Any]) -> str:
    """``ground_truth`` (the gold trajectory as every step's history) or ``own`` (the model's own predictions)."""
    value = str(meta.get("history") or "ground_truth")
    if value not in own_history.HISTORY_PROTOCOLS:
        raise DataError(f"history must be one of {own_history.HISTORY_PROTOCOLS}, got {value!r}", file="<task yaml>",
                        field="metadata.history")
    return value


def max_episode_steps(meta: Mapping[str, Any]) -> int:
    value = meta.get("max_episode_steps", own_history.MAX_EPISODE_STEPS)
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise DataError(f"max_episode_steps must be a positive integer, got {value!r}", file="<task yaml>",
                        field="metadata.max_episode_steps")
    return n


def effective_judge(meta: Mapping[str, Any]) -> str:
    """The run's judge: ``$GUI_EVAL_STAR_JUDGE``, else the task's ``judge``, else the dataset's default."""
    return str(os.environ.get(JUDGE_ENV) or meta.get("judge") or judges.DEFAULT_JUDGE.get(str(meta.get("dataset", "")), "paper"))


def gold_scroll_space(dataset: str, gesture_to_scroll: str) -> str:
    """What a gold SCROLL direction names: ``finger`` (AITZ / GUI-Odyssey touch-to-lift, kept as is) or ``scroll``."""
    return "finger" if agentic.dataset_facts(dataset).get("gold_scroll") == "finger" and gesture_to_scroll == "same" else "scroll"


def output_gesture(doc: Mapping[str, Any]) -> str:
    """How the agent's scroll words are read: the override, else as is when the family's words name what the gold
    names (``action_parsers.SCROLL_SEMANTICS``), else inverted."""
    if doc.get("output_gesture_to_scroll"):
        return str(doc["output_gesture_to_scroll"])
    words = family(doc["agent_family"]).scroll_semantics
    return "same" if words == "scroll" or doc.get("gold_scroll_space") == "finger" else "inverse"


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    fam = str(meta.get("agent_family", default_agent("star").name))
    family(fam)  # an unknown family: UnknownName with did-you-mean (a configuration error)
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
    if why:  # a configuration mistake (the task's judge or $GUI_EVAL_STAR_JUDGE), never bad data
        setting = f"${JUDGE_ENV}" if os.environ.get(JUDGE_ENV) else "metadata.judge"
        accepted = judges.JUDGES if judge not in judges.JUDGE_DATASETS else \
            [j for j, covered in judges.JUDGE_DATASETS.items() if dataset in covered]
        unknown = judge not in judges.JUDGE_DATASETS
        raise ConfigError(setting, judge, accepted, "docs/star_judges.md",
                          message=f"{setting}: unknown judge {judge!r}" if unknown else f"{setting}: {why}")
    if gesture != "same" and not judges.JUDGE_REGISTRY[judge].takes_match_rule:
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
        if judge not in judges.RECENT_APPS_JUDGES:
            doc = _without_recent_apps(doc)
        out.append(doc)
    _DROPPED[_key(meta)] = dropped
    if history_protocol(meta) == "own":
        if fam not in own_history.own_history_families():
            raise DataError(f"history 'own' is StaR's UI-TARS protocol (A.5; its evaluator builds it for UI-TARS only): "
                            f"agent_family {fam!r} is not one of {own_history.own_history_families()}", file="<task yaml>",
                            field="metadata.history")
        eps = own_history.episodes(out)
        bound = max_episode_steps(meta)
        longest = max((e["n_steps"] for e in eps), default=0)
        if longest > bound:
            raise DataError(f"an episode has {longest} steps, more than max_episode_steps {bound}; raise it in the task "
                            f"metadata", file="<task yaml>", field="metadata.max_episode_steps")
        return eps
    return out


def _without_recent_apps(doc: dict[str, Any]) -> dict[str, Any]:
    """The history without GUI-Odyssey's recent-apps steps, for judges that leave those steps out of the episode (as
    StaR's preprocessed test files have no such step)."""
    keep = [i for i, a in enumerate(doc.get("history_actions") or []) if action_from_json(a).type != "PRESS_RECENT"]
    if len(keep) == len(doc.get("history_actions") or []):
        return doc
    return {**doc, "history_actions": [doc["history_actions"][i] for i in keep],
            "history_images": [doc["history_images"][i] for i in keep]}


def process_docs(dataset: datasets.Dataset) -> datasets.Dataset:
    docs = []
    for i, r in enumerate(dataset):
        doc = dict(r)
        missing = [f for f in (EPISODE_FIELDS if _is_episode(doc) else STEP_FIELDS) if f not in doc]
        if missing:
            raise DataError(f"missing field(s) {missing}", file="<star agentic rows>", row=i, field=missing[0])
        docs.append(doc)
    return datasets.Dataset.from_list(docs)


def geometry(doc: Mapping[str, Any]) -> Geometry:
    """The geometry prompts and history lines are written for (``families.prompt_geometry``)."""
    return prompt_geometry(doc["agent_family"], int(doc["image_width"]), int(doc["image_height"]), budget_meta(doc))


def _is_episode(doc: Mapping[str, Any]) -> bool:
    return doc.get("history") == "own"


def _images(paths: list[str], doc_id: Any) -> list[Image.Image]:
    return [load_image(p, doc_id=doc_id) for p in paths]


def doc_to_visual(doc: Mapping[str, Any]) -> list[Image.Image]:
    """The family's history screenshots (UI-TARS: the last four, A.5), then the current one (an episode: its first step's)."""
    if _is_episode(doc):
        return _images(list(own_history.steps_of(doc)[0]["images"]), doc["id"])
    keep = family(doc["agent_family"]).history_images
    paths = (list(doc["history_images"])[-keep:] if keep else []) + list(doc["images"])
    return _images(paths, doc.get("id"))


def own_step_prompt(step: Mapping[str, Any], steps: list[dict[str, Any]], outputs: list[str], k: int) -> tuple[str, list[str]]:
    """Step ``k`` of an episode under its own history: the prompt text and the screenshot paths (history, then current)."""
    lines, shots = own_history.history_lines(steps, outputs, k)
    low = step["low_level"] if step["setting"] == "low" and step["low_level"] else None
    text = build_prompt(step["agent_family"], step["goal"], geometry(step), (), low,
                        meta={**budget_meta(step), "dataset": step["dataset"]}, history_lines=lines)
    return text, [*shots, *step["images"]]


def _episode_text(doc: Mapping[str, Any], kwargs: Mapping[str, Any], previous_output: Any, round_idx: int | None):
    """Round 0: step 1's prompt. Round k: ``(visuals, text, terminal, outputs, info)`` for step k + 1, its history the
    model's own answers; after the last step, terminal (lmms-eval's agentic loop: with every round, ``pack_rounds``)."""
    steps = own_history.steps_of(doc)
    outs = [str(o) for o in (previous_output or [])]
    agentic = kwargs.get(INTERACTION_KEY) == "agentic"
    if agentic:  # lmms-eval's backends may drop ``until``; ours cut at it (the same rounds either way)
        outs = [cut_at_stops(o, kwargs.get(UNTIL_KEY)) for o in outs]
    if round_idx is None:
        return own_step_prompt(steps[0], steps, [], 0)[0]
    k = len(outs)
    if k >= len(steps):
        return [], "", True, ([*outs, pack_rounds(outs)] if agentic else list(previous_output or [])), None
    text, paths = own_step_prompt(steps[k], steps, outs, k)
    return _images(paths, doc["id"]), text, False, (outs if agentic else list(previous_output or [])), None


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None,
                previous_output: Any = None, round_idx: int | None = None, **_: Any):
    if _is_episode(doc):
        kwargs = lmms_eval_specific_kwargs if isinstance(lmms_eval_specific_kwargs, Mapping) else {}
        return _episode_text(doc, kwargs, previous_output, round_idx)
    geo = geometry(doc)
    meta = budget_meta(doc)
    finger = doc.get("gold_scroll_space") == "finger"
    history = [format_action(action_from_json(a), doc["agent_family"], geo, meta, finger_words=finger)
               for a in doc["history_actions"]]
    # "" in the low setting stays: StaR's OS-Atlas template then says "Current step instruction: " (the other families'
    # prompts leave an empty instruction out either way)
    low = str(doc["low_level"] or "") if doc["setting"] == "low" else None
    return build_prompt(doc["agent_family"], doc["goal"], geo, history, low, meta={**meta, "dataset": doc["dataset"]},
                        instructions=doc.get("history_low_level"))


def doc_to_target(doc: Mapping[str, Any]) -> str:
    if _is_episode(doc):  # every step's reference answer, one a line
        return "\n".join(doc_to_target(st) for st in own_history.steps_of(doc))
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
    rec = judges.JUDGE_REGISTRY.get(judge)
    v = judges.judge_step(judge, doc, response, parsed.action, geo)
    data = judges.raw(doc)
    return {"id": doc["id"], "dataset": doc["dataset"], "episode_id": str(doc["episode_id"]), "category": doc["action_category"],
            "status": parsed.status, "detail": parsed.detail, "pred_type": parsed.action.type if parsed.action is not None else None,
            "type_match": v.type_match, "exact": v.exact, "judge": judge,
            "rule": rec.rule_label(doc), "judge_pred": v.pred, "judge_gold": v.gold,
            "judge_type": v.gold_type, "judge_type_names": rec.type_names, "episode_category": data.get("category"),
            "agent_family": doc["agent_family"], "scroll_semantics": family(doc["agent_family"]).scroll_semantics,
            "output_gesture_to_scroll": output_gesture(doc), **frame}


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    if _is_episode(doc):
        return sample_values(RECORD_KINDS, score_episode(doc, results))
    response = results[0] if results else None
    if isinstance(response, list):  # repeats: lmms-eval nests the responses
        response = response[0] if response else None
    if not isinstance(response, str):
        response = None if response is None else str(response)
    return sample_values(RECORD_KINDS, {**score_response(doc, response), "history": "ground_truth"})


def score_episode(doc: Mapping[str, Any], results: Any) -> dict[str, Any]:
    """An episode's rounds scored step by step by the task's judge: ``{"steps": [step records]}`` (the step metrics
    read each step, ``gui_metrics.agentic.step_records``). A step with no round (the loop stopped early) is empty."""
    outs = rounds_of(results)
    interaction = "agentic" if agentic_rounds(results) is not None else "multi_round"
    steps = own_history.steps_of(doc)
    records = []
    for k, st in enumerate(steps):
        rec = score_response(st, outs[k] if k < len(outs) else None)
        records.append({**rec, "history": "own", "step_index": k, "interaction": interaction})
    return {"id": doc["id"], "episode_id": str(doc["episode_id"]), "dataset": doc["dataset"], "history": "own",
            "interaction": interaction, "rounds": len(outs), "steps": records}
