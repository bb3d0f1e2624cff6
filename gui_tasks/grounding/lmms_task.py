"""lmms-eval glue for grounding tasks: icon boards (``icon_localization_synth``) and ScreenSpot / -v2 / -Pro.

``GroundingTask`` is a YAML ``class:`` task. Its ``download`` gathers the rows named by the
YAML ``metadata`` (``source``: synthetic | screenspot | screenspot_v2 | screenspot_pro) into
one JSONL for lmms-eval's own loader. It overrides ``process_results`` because lmms-eval's
default strips every response into a new ``str`` before calling a YAML ``process_results``,
which would drop the logit capture that ``gui_hf`` attaches (``gui_core.logit_capture``);
the scoring parameters (prompt family, tau, PSS form, key digits) come from the same metadata.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import datasets
from PIL import Image

from gui_core.logit_capture import SIDE_KEY, response_side
from gui_metrics.lmms_bridge import sample_values
from gui_core.errors import ConfigError, DataError
from gui_core import grounding_prompts as prompts
from gui_core.family import FAMILIES
from gui_core.benchmark import resolve
from gui_tasks.grounding import screenspot
from gui_tasks.grounding.benchmark import by_source, sources
from gui_tasks.grounding.schema import validate_doc
from gui_tasks.grounding.score import REFUSAL_PROMPT, ScoreParams, score_response
from gui_tasks.harness.lmms_rows import RowsTask, load_image, read_jsonl, task_metadata

RECORD_KINDS = ("grounding", "crop")
SOURCES = sources()  # one per grounding benchmark record (gui_tasks.grounding.benchmark)


# Point-in-box rule per source when the task metadata names none (each record's inside_rule): the official ScreenSpot
# scorers count a point on the box edge as inside (ScreenSpot-Pro eval_screenspot_pro.py::eval_sample_positive_gt); icon
# boards follow the PSS paper's Algorithm 1 (strictly inside).
DEFAULT_INSIDE_RULE = {s: by_source(s).inside_rule for s in SOURCES}  # type: ignore[union-attr]


def score_params(meta: Mapping[str, Any]) -> ScoreParams:
    """Scoring parameters from task metadata; the answer family follows the prompt family (or ``answer_family``)."""
    prompt = str(meta.get("prompt", prompts.DEFAULT_PROMPT))
    if prompt not in prompts.PROMPTS:
        raise ConfigError("metadata.prompt", prompt, page="docs/grounding_families.md", message=prompts.PROMPTS.unknown_message(prompt))
    family = str(meta.get("answer_family") or prompts.answer_family(prompt))
    if family not in FAMILIES:
        raise ConfigError("metadata.answer_family", family, page="docs/grounding_families.md",
                          message=FAMILIES.unknown_message(family))
    # the frame is the family's (its record); a task naming another one is a configuration mistake, not a choice
    frame = meta.get("coordinate_frame")
    if frame is not None and frame != FAMILIES.get(family).frame:
        raise ConfigError("metadata.coordinate_frame", frame, page="docs/grounding_families.md",
                          message=f"coordinate_frame {frame!r} differs from family {family!r}'s frame "
                                  f"{FAMILIES.get(family).frame!r} (gui_core/families.py); remove the key or pick the "
                                  "family that answers in that frame")
    rule = meta.get("inside_rule") or DEFAULT_INSIDE_RULE.get(str(meta.get("source")), "strict")
    return ScoreParams.from_mapping({**meta, "family": family, "inside_rule": rule, "reading": reading_of(meta)})


def reading_of(meta: Mapping[str, Any]) -> str:
    """The task's ``reading`` (default ``official``): one of its benchmark record's ``readings`` (a record without any
    has only ``official``); the record's ``check_reading`` also judges the old keys it folds in (``polygon_rule``)."""
    reading = str(meta.get("reading") or "official")
    rec = by_source(str(meta.get("source")))
    extra = rec.extra if rec is not None else {}
    known = tuple(extra.get("readings") or ("official",))
    try:
        if extra.get("check_reading"):
            resolve(str(extra["check_reading"]))(reading, meta.get("polygon_rule"))
        elif reading not in known:
            raise ValueError(f"reading {reading!r}: this benchmark has only {', '.join(known)}")
    except ValueError as exc:
        raise ConfigError("metadata.reading", reading, page=(rec.docs if rec is not None and rec.docs else None)
                          or "docs/grounding_families.md", message=str(exc)) from None
    return reading


def check_prompt_agrees(meta: Mapping[str, Any], kwargs: Mapping[str, Any] | None) -> None:
    """The prompt a task sends (``lmms_eval_specific_kwargs.prompt``) and the one its scoring reads answers for
    (``metadata.prompt``) are two YAML fields: they must name the same prompt, or answers are read in another family's
    syntax and frame."""
    sent = prompts.prompt_family(kwargs)
    scored = str(meta.get("prompt", prompts.DEFAULT_PROMPT))
    if sent != scored and not meta.get("answer_family"):
        raise DataError(f"the task sends prompt {sent!r} (lmms_eval_specific_kwargs) but scores answers for prompt "
                        f"{scored!r} (metadata.prompt): set both to the same prompt", file="<task yaml>",
                        field="metadata.prompt")


class GroundingTask(RowsTask):
    """A grounding task whose rows come from ``metadata`` and whose samples keep their logit captures."""

    KIND = "grounding"
    # score_params / ScoreParams read these (coordinate_frame: checked against the family's); prompt_protocol is a
    # record that conflicts() checks
    METADATA_KEYS = frozenset({"source", "seed", "n", "prompt", "answer_family", "tau", "tau_frame", "pss_form", "pss_c",
                               "key_digits", "min_pixels", "max_pixels", "resize_budget", "inside_rule", "strictness",
                               "coordinate_frame", "prompt_protocol", "parser_protocol", "boxes_clipped",  # protocol tags: submissions
                               # task_rows (ScreenSpot-Pro, MMBench-GUI, UI-Vision, OSWorld-G)
                               "language", "gt_type", "level", "setting", "instructions", "polygon_rule", "refusal_phrase",
                               "reading"})
    KWARGS_KEYS = frozenset({"prompt", "resize_budget", "refusal"})  # doc_to_text

    @classmethod
    def conflicts(cls, meta: Mapping[str, Any], kwargs: Mapping[str, Any]) -> list[str]:
        """The prompt the model gets (``lmms_eval_specific_kwargs``) and the one scoring reads (``metadata``) agree
        (:func:`check_prompt_agrees`), the records say what the code does, and a prompt that states the image size
        states the one scoring maps answers back with."""
        from gui_core.family import budget_of, grounding_prompt

        prompt = prompts.prompt_family(kwargs)
        check_prompt_agrees(meta, kwargs)  # a DataError: config_problems reports it as this task's
        asked, scored = prompts.answer_family(prompt), score_params(meta).family  # score_params: coordinate_frame
        out = []
        if meta.get("prompt_protocol") not in (None, prompts.protocol(prompt)):
            out.append(f"metadata prompt_protocol {meta['prompt_protocol']!r} is not the prompt's {prompts.protocol(prompt)!r}")
        if "{resized_width}" in grounding_prompt(prompt).template:
            said = kwargs.get("resize_budget") or budget_of(asked)
            read = meta.get("resize_budget") or budget_of(scored)
            if said != read:
                out.append(f"the prompt states the {said!r} resize budget's size but scoring maps answers back with "
                           f"{read!r} (metadata resize_budget): set both")
        return out

    @classmethod
    def record_of(cls, meta: Mapping[str, Any]) -> Any:
        """The record of the task's ``metadata.source`` (a grounding YAML may name only its source)."""
        return by_source(str(meta.get("source")))

    def __init__(self, *args: Any, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, config=config, **kwargs)
        meta = task_metadata(self.config)
        if self.not_run:  # a configuration error (RowsTask, conflicts): reported; this task sends nothing to score
            self._params = ScoreParams()
            return
        self._params = score_params(meta)
        check_prompt_agrees(meta, getattr(self, "lmms_eval_specific_kwargs", None))

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        return task_rows(meta)

    def download(self, dataset_kwargs: dict | None = None) -> None:
        super().download(dataset_kwargs)
        meta = getattr(self.config, "metadata", None)
        rec = by_source(str(meta.get("source"))) if isinstance(meta, dict) else None
        if rec is not None and rec.extra.get("clips_boxes"):  # the loader clips published boxes to their image
            rows = self.dataset[self.config.test_split or "test"]
            meta["boxes_clipped"] = screenspot.boxes_clipped([{"meta": m} for m in rows["meta"]])  # lands in the results

    def answer_family(self, doc):
        """The family whose reading scores the answers: its record says whether they are read after the reasoning."""
        return self._params.family

    def process_results(self, doc, results, full_docs=None):  # noqa: D401 - lmms-eval hook
        response = results[0] if results else None
        if isinstance(response, list):  # repeats: lmms-eval nests the responses
            response = response[0] if response else None
        return logged_values(response, sample_values(RECORD_KINDS, score_response(doc, response, self._params)))


def logged_values(response: Any, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` plus, when the response carries what scoring reads beyond its text (digit capture, image sizes, crop),
    that side channel under ``SIDE_KEY``: logged once per sample (never aggregated), so that ``gui-eval submit`` and
    ``validate`` re-score the logged response with it and ``verify`` compares a re-capture with it."""
    side = response_side(response)
    return {**values, SIDE_KEY: side} if side else values


def task_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The documents of the grounding benchmark the metadata's ``source`` names (its record's loader)."""
    source = meta.get("source")
    rec = by_source(str(source))
    if rec is None:
        raise DataError(f"task metadata source {source!r} must be one of {SOURCES}", file="<task yaml>",
                        field="metadata.source")
    return resolve(rec.loader)(meta)


def synthetic_rows(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The PSS icon boards (built once per seed and size, then cached)."""
    from gui_tasks.synth.icon_board import load_or_build

    return read_jsonl(load_or_build(seed=int(meta.get("seed", 0)), n=int(meta.get("n", 40))))


def process_docs(dataset: datasets.Dataset) -> datasets.Dataset:
    """Validate canonical documents (they are canonical already after ``download``)."""
    docs = [validate_doc(dict(r), file="<grounding rows>", row=i) for i, r in enumerate(dataset)]
    return datasets.Dataset.from_list(docs)


def doc_to_visual(doc: Mapping[str, Any]) -> list[Image.Image]:
    return [load_image(doc["image"], doc_id=doc.get("id"), field="image")]


def doc_to_visual_phi_ground(doc: Mapping[str, Any]) -> list[Image.Image]:
    """The screenshot as Phi-Ground sees it: scaled (LANCZOS) into its 1008x672 white canvas at the top left.

    microsoft/Phi-Ground README ``process_image`` (benchmark/test_screenspot_pro.py, ``--num_crops 7``); its answers are
    0-1000 of this canvas (``gui_core.grounding`` reads them back with the ``phi_ground`` budget).
    """
    from gui_core.coords import BUDGETS

    image = doc_to_visual(doc)[0].convert("RGB")
    b = BUDGETS["phi_ground"]
    assert b.canvas is not None
    canvas = Image.new("RGB", b.canvas, (255, 255, 255))
    canvas.paste(image.resize(b.resized(image.width, image.height), Image.LANCZOS), (0, 0))
    return [canvas]


def doc_to_visual_infigui_g1(doc: Mapping[str, Any]) -> list[Image.Image]:
    """The screenshot as InfiGUI-G1's evaluation feeds it: resized (bicubic, PIL's default there) to the ``infigui_g1``
    budget's size, at most 5600*28*28 pixels, then smart-resized (InfiXAI/InfiGUI-G1 eval/eval.py
    ``prepare_sample_data``: a 3840x2160 screenshot becomes 2800x1568)."""
    from gui_core.coords import BUDGETS

    image = doc_to_visual(doc)[0]
    return [image.resize(BUDGETS["infigui_g1"].resized(image.width, image.height), Image.BICUBIC)]


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    kw = lmms_eval_specific_kwargs or {}
    text = prompts.build_prompt(doc["instruction"], prompts.prompt_family(kw), doc.get("width"), doc.get("height"),
                                kw.get("resize_budget"))
    # ScreenSpot-Pro negative tasks: OS-Atlas-7B's ground_allow_negative sentence after the family's prompt
    return text + REFUSAL_PROMPT if kw.get("refusal") else text


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    """What the YAML names (lmms-eval needs one); ``GroundingTask.process_results`` replaces it with the task's parameters."""
    response = results[0] if results else None
    return sample_values(RECORD_KINDS, score_response(doc, response, ScoreParams()))


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc["target_box"])
