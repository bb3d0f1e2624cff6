"""Per-sample scoring of a grounding answer: point, Algorithm 1 type, and the logit metrics of its key tokens.

Open choices are named parameters (``ScoreParams``), recorded in task metadata and in every
sample record: the distance threshold tau and the frame it is measured in (relative
coordinates, per axis; the paper's coordinates are relative and Table 1 uses relative
distances), the PSS value form, and which digits are key tokens.

Answers in pixels of the resized image (Qwen2.5-VL, UI-TARS-1.5) are mapped back with the size the model
really saw: ``extras["model_image_sizes"][0]`` of the response when the backend reports it, else the family's
resize budget (``resize_budget``, default the released checkpoints' one, its family record's ``budget``;
``min_pixels`` / ``max_pixels`` override it). Each record says which (``frame_source``) and the size used.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from gui_core.geometry import answer_geometry, map_back
from gui_core.coords import convert, reported_size
from gui_metrics.pss import DEFAULT_FORM, PSS_C, classify_response, digit_entropy, point_to_box_distance, pss_from_logits
from gui_core.grounding import PointAnswer, parse_point
from gui_core.grounding_wrappers import wrapper_for
from gui_core.logit_capture import (Capture, capture_from_json, capture_of, extras_of, key_digit_capture, key_tokens,
                                    mean_logprob)

# Not given by the paper; Table 1's smallest relative-distance band is 0.05.
DEFAULT_TAU = 0.05
# Our YAMLs keep lmms-eval from stripping reasoning (it would drop the capture), so the answer is read after it here.
REASONING_END = ("</think>", "</thinking>", "</analysis>")


def answer_start(text: str) -> int:
    """Offset where the answer begins: after the last closing reasoning tag, else 0."""
    ends = [text.rfind(tag) + len(tag) for tag in REASONING_END if tag in text]
    return max(ends) if ends else 0


@dataclass(frozen=True)
class ScoreParams:
    family: str = "relative"
    tau: float = DEFAULT_TAU
    tau_frame: str = "relative"
    pss_form: str = DEFAULT_FORM
    pss_c: float = PSS_C
    key_digits: str = "leading"
    min_pixels: int | None = None
    max_pixels: int | None = None
    resize_budget: str | None = None  # gui_core.coords.BUDGETS name; None: the family's own
    inside_rule: str = "strict"  # gui_metrics.pss.INSIDE_RULES; the ScreenSpot tasks use "inclusive" (official scorers)
    strictness: str = "official"  # gui_core.grounding.STRICTNESS: the authors' parser, the benchmark's rule, or lenient
    reading: str = "official"  # which harness's code reads and scores the answer (the benchmark record's readings)

    @classmethod
    def from_mapping(cls, meta: Mapping[str, Any]) -> "ScoreParams":
        known = {k: meta[k] for k in cls.__dataclass_fields__ if k in meta and meta[k] is not None}
        for k in ("tau", "pss_c"):
            if k in known:
                known[k] = float(known[k])
        for k in ("min_pixels", "max_pixels"):
            if k in known:
                known[k] = int(known[k])
        params = cls(**known)
        if params.tau_frame != "relative":
            raise ValueError(f"tau_frame {params.tau_frame!r}: only 'relative' is implemented")
        from gui_metrics.pss import INSIDE_RULES
        from gui_core.grounding import STRICTNESS

        if params.inside_rule not in INSIDE_RULES:
            raise ValueError(f"inside_rule {params.inside_rule!r} unknown; known: {', '.join(INSIDE_RULES)}")
        if params.strictness not in STRICTNESS:
            raise ValueError(f"strictness {params.strictness!r} unknown; known: {', '.join(STRICTNESS)}")
        if params.resize_budget is not None:
            from gui_core.coords import BUDGETS

            if params.resize_budget not in BUDGETS:
                raise ValueError(f"resize_budget {params.resize_budget!r} unknown; known: {', '.join(BUDGETS)}")
        return params


def _meta(doc: Mapping[str, Any]) -> dict[str, Any]:
    meta = doc.get("meta")
    try:
        out = json.loads(meta) if isinstance(meta, str) else meta
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


def _rel_box(box, width: int, height: int) -> list[float]:
    return [box[0] / width, box[1] / height, box[2] / width, box[3] / height]


# top_logprobs captures: a digit missing from the returned top-k is set to the step's floor (its highest
# possible log-probability) or to this far below it (probability ~0); PSS / entropy are reported over both.
MISSING_LOW = 50.0


def _bounded(values, missing, floor, fn) -> list[float]:
    """[min, max] of ``fn`` with every missing digit at probability ~0 and at the top-k floor (the two extremes)."""
    if not missing:
        v = fn(values)
        return [v, v]
    out = []
    for at in (floor, floor - MISSING_LOW):
        out.append(fn([at if d in missing else values[d] for d in range(10)]))
    return [min(out), max(out)]


def logit_summary(text: str, capture: Capture | None, literal, params: ScoreParams, start: int = 0) -> dict[str, Any]:
    """PSS and digit entropy (means over key tokens) and perplexity of one answer; None where not captured.

    ``capture_kind`` says how the digit values were obtained: ``exact`` fills ``pss`` / ``digit_entropy``;
    ``top_logprobs`` (hosted APIs) fills ``pss_range`` / ``digit_entropy_range`` instead (the values with
    missing digits at their two extremes) and lists the missing digits per key token.
    """
    if capture is None:
        return {"pss": None, "digit_entropy": None, "perplexity": None, "key_tokens": [], "captured": False,
                "capture_kind": None}
    capture = key_digit_capture(capture, text)  # what a run logs: live and re-scored responses read the same values
    keys = key_tokens(text, capture.steps, literal, params.key_digits, start)
    exact = capture.kind == "exact"
    pss = lambda v: pss_from_logits(v, params.pss_form, params.pss_c)  # noqa: E731
    rows = []
    for k in keys:
        if k.values is None:
            rows.append({"digit": k.digit, "char": k.char, "pss": None, "entropy": None, "merged": True})
            continue
        row = {"digit": k.digit, "char": k.char, "merged": False, "logits": [round(v, 5) for v in k.values]}
        if exact:
            row.update(pss=pss(k.values), entropy=digit_entropy(k.values))
        else:
            row.update(pss=None, entropy=None, missing_digits=list(k.missing), floor=k.floor,
                       pss_range=_bounded(k.values, k.missing, k.floor, pss),
                       entropy_range=_bounded(k.values, k.missing, k.floor, digit_entropy))
        rows.append(row)
    mean_lp = mean_logprob(capture)
    out: dict[str, Any] = {"perplexity": math.exp(-mean_lp) if mean_lp is not None else None, "key_tokens": rows,
                           "captured": True, "capture_kind": capture.kind}
    if exact:
        got = [r for r in rows if r["pss"] is not None]
        out.update(pss=sum(r["pss"] for r in got) / len(got) if got else None,
                   digit_entropy=sum(r["entropy"] for r in got) / len(got) if got else None)
    else:
        got = [r for r in rows if r.get("pss_range") is not None]
        mean = lambda xs: sum(xs) / len(xs) if xs else None  # noqa: E731
        out.update(pss=None, digit_entropy=None,
                   pss_range=[mean([r["pss_range"][0] for r in got]), mean([r["pss_range"][1] for r in got])] if got else None,
                   digit_entropy_range=[mean([r["entropy_range"][0] for r in got]),
                                        mean([r["entropy_range"][1] for r in got])] if got else None)
    return out


def frame_check(answer: Any, doc: Mapping[str, Any], params: ScoreParams, model_size: list[int] | None) -> dict[str, bool] | None:
    """Whether the answer's numbers would be correct if read in each frame (``gui_core.coords.FRAMES``).

    A mis-declared family (pixels read as 0-1000, 0-1000 read as pixels) scores far better in another frame: the
    reports compare these per-frame accuracies (``frame_check_summary``). ``resized_px`` uses the size the model
    saw when the backend reported it, else the resize budget of the task (or the family's own, else Qwen2.5-VL's).
    """
    from gui_metrics.pss import INSIDE_RULES
    from gui_core.coords import FRAMES, Geometry, budget
    from gui_core.family import budget_of

    if answer.point is None or not all(math.isfinite(v) for v in answer.point):
        return None
    width, height = int(doc["width"]), int(doc["height"])
    try:
        if model_size is not None:
            geometry = Geometry.seen(width, height, model_size)
        else:
            b = budget(params.resize_budget or budget_of(params.family),
                       min_pixels=params.min_pixels, max_pixels=params.max_pixels)
            geometry = Geometry.from_budget(width, height, b)
    except ValueError:
        return None
    target = _rel_box(doc["target_box"], width, height)
    inside = INSIDE_RULES[params.inside_rule]
    return {f: bool(inside(convert(answer.point, f, "relative", geometry), target)) for f in FRAMES}


def truncated(point: tuple[float, float], width: int, height: int) -> tuple[float, float]:
    """A relative point truncated to whole original pixels (``int(x * width)``), as JEDI's and UGround-V1's code do."""
    return int(point[0] * width) / width, int(point[1] * height) / height


def _judge(doc: Mapping[str, Any], text: str, capture: Capture | None, params: ScoreParams,
           window: list[int] | None = None, model_size: list[int] | None = None) -> dict[str, Any]:
    width, height = int(doc["width"]), int(doc["height"])
    meta = _meta(doc)
    published, relative = meta.get("bbox_published"), meta.get("target_relative")
    start = answer_start(text)
    # The whole answer: an official reader sees the reasoning as the authors' code does (lmms-eval hands it over
    # whole: reasoning_tags none); the benchmark and lenient readings read after it.
    answer = parse_point(text, params.family, strictness=params.strictness)
    wrapper = None
    if params.strictness == "official" and window is None:  # the benchmark repository's own wrapper for the family
        wrapper = wrapper_for(doc.get("source"), params.family, meta.get("gt_type") == "negative")
    own = answer  # the family's own reading: its numbers in its declared frame (the frame check reads these)
    if wrapper is not None:
        row = {k: meta[k] for k in wrapper.row_keys if k in meta}  # row fields the wrapper reads (MMBench's image_size)
        found = wrapper.reader(text, width, height, **row)  # a relative point, as the wrapper hands it to the scorer
        # the digits the family's own reading locates stay the key tokens of the logit metrics
        answer = PointAnswer(found.point, "relative", found.status, params.family, found.detail, answer.literal)
    out: dict[str, Any] = {"status": answer.status, "detail": answer.detail, "point": None, "correct": False,
                           "response_type": "invalid", "distance": None, "frame": answer.frame}
    if wrapper is not None:
        out["reading"] = f"{wrapper.repo}@{wrapper.commit[:7]} {wrapper.path}"
        out["family_frame"] = own.frame  # the frame the family's answers are declared in (the report's frame check)
    if answer.status == "dropped":  # the authors' script leaves it out of its results: not in the denominator
        out["dropped"] = True
    # A malformed answer with a point is the authors' fallback click (GTA1, SE-GUI, UI-Venus-Ground-7B: (0, 0)).
    if answer.status != "dropped" and answer.point is not None:
        kw = dict(min_pixels=params.min_pixels, max_pixels=params.max_pixels, model_size=model_size, budget=params.resize_budget)
        if window is not None:  # the answer is in the crop's frame
            cw, ch = window[2] - window[0], window[3] - window[1]
            rel, info = answer_geometry(answer, cw, ch, **kw)
            point = map_back(rel, tuple(window), width, height)
        else:
            point, info = answer_geometry(answer, width, height, **kw)
            if answer.truncate and all(math.isfinite(v) for v in point):
                point = truncated(point, width, height)
                out["truncated"] = True  # whole original pixels (OSWorld-G hands these to its scorer exactly)
        out.update(info)
        if window is None and own.point is not None:
            out["frame_check"] = frame_check(own, doc, params, model_size)
        if all(math.isfinite(v) for v in point):
            # the box as published when it pokes outside the image (ScreenSpot-Pro): the official scorers test the point
            # against it unclipped (eval_sample_positive_gt), so a point just outside the image edge can still hit
            target = _rel_box(published or doc["target_box"], width, height)
            if relative is not None:  # a release that publishes relative boxes (MMBench-GUI): tested as published
                target = [float(v) for v in relative]
            others = None if doc.get("other_boxes") is None else [_rel_box(b, width, height) for b in doc["other_boxes"]]
            rtype = classify_response(point, target, others, params.tau, params.inside_rule)
            out.update(point=[point[0], point[1]], correct=rtype == "correct", response_type=rtype,
                       distance=point_to_box_distance(point, target))
        else:  # read, but infinite or NaN: never inside a box; the official scorers count it wrong, not wrong_format
            out["point_not_finite"] = True
    out.update(logit_summary(text, capture, answer.literal, params, start))
    return out


# ScreenSpot-Pro's negative samples: OS-Atlas-7B's ground_allow_negative (likaixin2000/ScreenSpot-Pro-GUI-Grounding
# models/osatlas7b.py @ bd8bbbb) asks 'If the target does not exist, respond with "Target does not exist".' and reads
# an answer as positive when it holds a box or point, else negative when it holds that phrase (any case), else
# wrong_format; eval_sample_negative_gt counts only "negative" as correct. Our negative tasks ask and read the same.
REFUSAL_PROMPT = ' If the target does not exist, respond with "Target does not exist".'
REFUSAL_PHRASE = "target does not exist"


def negative_result(record: Mapping[str, Any], text: str) -> str:
    """The official ``result`` of an answer to a negative sample: positive (a point was read), negative, wrong_format.

    Read by the family's wrapper in the benchmark repository where one is registered (its ``detail`` names the result:
    OS-Atlas-7B's ``ground_allow_negative``), else by this rule."""
    if record.get("reading"):
        return str(record.get("detail", "")).split(":", 1)[0]
    if record.get("status") == "parsed" and record.get("point") is not None:
        return "positive"
    return "negative" if REFUSAL_PHRASE in text[answer_start(text):].lower() else "wrong_format"


def _negative(record: dict[str, Any], text: str) -> None:
    """Re-judge a negative sample (the target is taken to be absent): correct only when the model refuses."""
    result = negative_result(record, text)
    record.update(negative_result=result, correct=result == "negative",
                  response_type="correct" if result == "negative" else "other" if result == "positive" else "invalid")


def _handed(record: Mapping[str, Any], width: int, height: int) -> tuple[float, float] | None:
    """What an OSWorld-G authors' reader hands ``GroundingEval._eval`` for the family's parsed answer: a fraction
    family's numbers as written (the record's point is them), any other family's point in original pixels; None
    when no finite point was read (the readers' ``[0, 0, 0, 0]``)."""
    point = record.get("point")
    if point is None:
        return None
    if record.get("frame") == "relative":
        return float(point[0]), float(point[1])
    if record.get("truncated"):  # int(x * width) / width times width again: the whole pixel, without rounding error
        return float(round(point[0] * width)), float(round(point[1] * height))
    return point[0] * width, point[1] * height


def _osworld_g(record: dict[str, Any], doc: Mapping[str, Any], target: Mapping[str, Any], text: str,
               params: ScoreParams) -> None:
    """Re-judge an OSWorld-G sample as the selected ``reading`` (gui_metrics.osworld_g_readings): ``official``
    (``GroundingEval._eval`` on what the family's reader hands it: a fraction family's numbers as written, else
    original pixels; an unreadable answer is the readers' click at (0, 0); ``refusal_phrase``: the refusal sentence is
    the readers' ``[-1, -1, -1, -1]``), or the whole ``vlmevalkit`` / ``lmms_eval`` harness on the answer text."""
    from gui_metrics import osworld_g_readings as rd

    width, height = int(doc["width"]), int(doc["height"])
    row = {"box_type": target["box_type"], "box_coordinates": list(target["box_coordinates"]),
           "image_size": [width, height], "groups": [g for g in (_meta(doc).get("report") or {}).get("groups") or []
                                                     if g != rd.UNCLASSIFIED]}
    if params.reading == "official":
        refused = (record.get("point") is None and not record.get("point_not_finite") and bool(target.get("refusal_phrase"))
                   and REFUSAL_PHRASE in text[answer_start(text):].lower())
        verdict = rd.official_verdict(_handed(record, width, height), row, refused=refused)
    elif params.reading == "lmms_eval":
        verdict = rd.lmms_eval(rd.strip_reasoning(text), row)
    else:
        verdict = rd.vlmevalkit(text, row)
    rtype = record["response_type"]
    correct = verdict.correct
    tested = (list(verdict.point) if verdict.point is not None and all(math.isfinite(v) for v in verdict.point)
              else None)  # a nan / inf point (read by float()) is logged as none: the sample logs are strict JSON
    record.update(correct=bool(correct), osworld_g_answer=verdict.status, osworld_g_point=tested,
                  osworld_g_groups=list(verdict.groups), osworld_g_reading=f"{params.reading}: {rd.SOURCES[params.reading]}",
                  response_type="correct" if correct else ("other" if rtype == "correct" else rtype))
    if verdict.detail:
        record["osworld_g_detail"] = verdict.detail
    # the per-sample verdict of the harness's report: an answer it could not read (scored as its fallback, or skipped)
    # is a format error unless that fallback hit; a row the harness itself stops on is an error
    record["osworld_g_correctness"] = ("correct" if correct else "error" if verdict.status == "error" else
                                       "wrong" if verdict.status in ("parsed", "refusal") else "wrong_format")


def _harness_reading(record: dict[str, Any], doc: Mapping[str, Any], meta: Mapping[str, Any], text: str,
                     reading: str) -> None:
    """Re-judge a sample as the harness ``reading`` names: the benchmark record's ``reading_judge`` with its
    ``harness`` entry (ScreenSpot / -v2 / -Pro: gui_metrics.screenspot_readings)."""
    from gui_core.benchmark import resolve
    from gui_tasks.grounding.benchmark import by_source

    rec = by_source(str(doc.get("source")))
    judge = (rec.extra.get("reading_judge") if rec is not None else None)
    if not judge or reading not in (rec.extra.get("readings") or ()):
        raise ValueError(f"reading {reading!r} is not one of {doc.get('source')}'s readings")
    resolve(str(judge))(record, doc, meta, text, reading, rec.extra.get("harness") or {})


def official_correctness(record: Mapping[str, Any]) -> str:
    """The official scripts' per-sample verdict: correct, wrong, or wrong_format (no point / no readable answer)."""
    if "harness_correctness" in record:  # the selected harness's own verdict (error: it stops on the row)
        return str(record["harness_correctness"])
    if "osworld_g_correctness" in record:
        return str(record["osworld_g_correctness"])
    if "negative_result" in record:
        return {"negative": "correct", "positive": "wrong"}.get(record["negative_result"], "wrong_format")
    if record.get("correct"):
        return "correct"
    return "wrong" if record.get("point") is not None or record.get("point_not_finite") else "wrong_format"


def score_response(doc: Mapping[str, Any], response: Any, params: ScoreParams) -> dict[str, Any]:
    """The per-sample record read by the ``grounding`` and ``crop`` metrics (gui_metrics.pss)."""
    text = response if isinstance(response, str) else ("" if response is None else str(response))
    extras = extras_of(response)
    crop = extras.get("crop")
    window = crop.get("window") if crop else None
    size = reported_size(extras.get("model_image_sizes"), 0)  # grounding requests carry one image
    record = {"id": doc["id"], "split": doc["split"], "source": doc["source"],
              **_judge(doc, str(text), capture_of(response), params, window, size)}
    meta = _meta(doc)
    if meta.get("gt_type") == "negative":
        _negative(record, str(text))
    if isinstance(meta.get("osworld_g"), dict):  # OSWorld-G: bbox / polygon / refusal by its scorer's rule
        _osworld_g(record, doc, meta["osworld_g"], str(text), params)
    elif params.reading != "official":  # another harness's code, named by the benchmark's record (issue 52)
        _harness_reading(record, doc, meta, str(text), params.reading)
    # the keys an official report groups by (ScreenSpot-Pro layout); an answer the authors' script drops is not in it
    if isinstance(meta.get("report"), dict) and not record.get("dropped"):
        record["official"] = {**meta["report"], "correctness": official_correctness(record)}
        if "osworld_g_groups" in record:  # the categories as the selected harness names them
            record["official"].update(groups=record["osworld_g_groups"], reading=params.reading)
        elif params.reading != "official":
            record["official"]["reading"] = params.reading
    if extras.get("image_frame") is not None:  # served engines: the size sent and the declared resize (gui_openai)
        record["served_frame"] = extras["image_frame"]
    if crop is not None:
        first_capture = capture_from_json(crop["first_capture"], str(crop.get("first_text") or "")) if crop.get("first_capture") else None
        record["first"] = _judge(doc, crop["first_text"], first_capture, params, None,
                                 reported_size(crop.get("first_model_image_sizes"), 0))
        record["crop"] = {"window": window, "alpha": crop.get("alpha"), "skipped": crop.get("skipped")}
    record["params"] = asdict(params)
    return record
