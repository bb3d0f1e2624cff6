"""Peak Sharpness Score, digit entropy, perplexity and the Algorithm 1 response taxonomy (PSS seed, sections 3.4, 4.2).

Everything here works on plain numbers: the ten values of one key token (v_0 .. v_9, the
digits in numeric order), per-token log-probabilities, points and boxes. Which tokens are
key tokens, and how the ten values were captured, is decided by ``gui_core.logit_capture``.

Per-sample records (kind ``"grounding"``, written by the grounding tasks) carry:
``status`` (parsed | malformed | empty), ``correct`` (bool), ``response_type`` (one of
RESPONSE_TYPES, or "invalid" for an unparseable answer), ``split`` (e.g. "mobile_icon"),
``pss`` / ``digit_entropy`` / ``perplexity`` (floats or None when no logits were captured),
``capture_kind`` ("exact", "top_logprobs" or None) and, for top_logprobs captures, ``pss_range`` /
``digit_entropy_range`` ([low, high]) instead of ``pss`` / ``digit_entropy``: exact values and ranges are
aggregated separately, never averaged together
and, after context-aware cropping, the same fields of the first prediction under ``first``.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Literal, Mapping, Sequence

from gui_metrics import hookimpl
from gui_metrics.grounding_official import PRO_GROUP_NAMES
from gui_metrics.spec import MetricSpec

# Section 4.2: "C is a normalization constant (empirically set to C = 4.5)".
PSS_C = 4.5
ValueForm = Literal["probs", "logits"]
# The paper calls v "logits" but reports PSS in [0.25, 0.66]; C = 4.5 maps a one-hot interior
# peak of probabilities to exactly 1, so the default is the softmax over the ten digits
# (BENCHMARKS.md section 4). "logits" applies the formula to the raw values.
DEFAULT_FORM: ValueForm = "probs"

RESPONSE_TYPES: tuple[str, ...] = ("correct", "biased", "misleading", "confusion")
# ScreenSpot has only the target box: misleading and confusion merge into "other" (section 4.3).
SCREENSPOT_TYPES: tuple[str, ...] = ("correct", "biased", "other")
ALL_TYPES: tuple[str, ...] = ("correct", "biased", "misleading", "confusion", "other")


# --- PSS (section 4.2) --------------------------------------------------------------------


def _ten(values: Sequence[float]) -> list[float]:
    v = [float(x) for x in values]
    if len(v) != 10:
        raise ValueError(f"PSS needs the 10 digit values v_0..v_9, got {len(v)}")
    if not all(math.isfinite(x) for x in v):
        raise ValueError(f"PSS values must be finite, got {v}")
    return v


def softmax(values: Sequence[float]) -> list[float]:
    """Numerically stable softmax (natural base)."""
    top = max(values)
    exps = [math.exp(x - top) for x in values]
    total = sum(exps)
    return [e / total for e in exps]


def digit_values(logits: Sequence[float], form: ValueForm = DEFAULT_FORM) -> list[float]:
    """The vector V that PSS reads: softmax over the ten digit logits, or the raw logits."""
    if form == "probs":
        return softmax(_ten(logits))
    if form == "logits":
        return _ten(logits)
    raise ValueError(f"unknown PSS value form {form!r}; use 'probs' or 'logits'")


def peak_sharpness(values: Sequence[float], c: float = PSS_C) -> float:
    """PSS of V = [v_0..v_9] exactly as section 4.2 defines it.

    p = argmax V (the first one on ties), m = v_p. Boundary peak (p = 0 or 9):
    s = (1/9) sum_{i=0}^{8} (v_{i+1} - v_i), PSS = 2 |s| m. Interior peak: a_left and
    a_right are the mean slopes of v_0..v_p and v_p..v_9,
    w = (p |a_left| + (9 - p) |a_right|) / 9, PSS = C w m.

    The mean slopes telescope (a_left = (v_p - v_0) / p), so PSS depends only on v_0, v_p
    and v_9; the tests check this closed form against the sums.
    """
    v = _ten(values)
    p = max(range(10), key=lambda i: (v[i], -i))
    m = v[p]
    if p in (0, 9):
        s = sum(v[i + 1] - v[i] for i in range(9)) / 9
        return 2 * abs(s) * m
    a_left = sum(v[i + 1] - v[i] for i in range(p)) / p
    a_right = sum(v[i + 1] - v[i] for i in range(p, 9)) / (9 - p)
    w = (p * abs(a_left) + (9 - p) * abs(a_right)) / 9
    return c * w * m


def pss_from_logits(logits: Sequence[float], form: ValueForm = DEFAULT_FORM, c: float = PSS_C) -> float:
    """PSS of one key token from its ten digit logits."""
    return peak_sharpness(digit_values(logits, form), c)


def digit_entropy(logits: Sequence[float]) -> float:
    """Entropy (nats) of the softmax over the ten digit logits; ln 10 = 2.303 for a flat one (Table 4)."""
    probs = softmax(_ten(logits))
    return -sum(p * math.log(p) for p in probs if p > 0)


def perplexity(logprobs: Iterable[float]) -> float:
    """exp(-mean log p) of the chosen tokens (Table 8); NaN for no tokens."""
    lp = [float(x) for x in logprobs]
    return math.exp(-sum(lp) / len(lp)) if lp else math.nan


# --- Algorithm 1 (section 3.4) --------------------------------------------------------------


Box = Sequence[float]


def point_to_box_distance(point: Sequence[float], box: Box) -> float:
    """Euclidean distance from a point to an axis-aligned box [x1, y1, x2, y2] (0 inside or on it)."""
    x, y = float(point[0]), float(point[1])
    x1, y1, x2, y2 = (float(b) for b in box)
    dx = max(x1 - x, 0.0, x - x2)
    dy = max(y1 - y, 0.0, y - y2)
    return math.hypot(dx, dy)


def strictly_inside(point: Sequence[float], box: Box) -> bool:
    """x1 < x < x2 and y1 < y < y2: a point on an edge is outside (Algorithm 1, line 1)."""
    x, y = float(point[0]), float(point[1])
    return box[0] < x < box[2] and box[1] < y < box[3]


def inside_inclusive(point: Sequence[float], box: Box) -> bool:
    """x1 <= x <= x2 and y1 <= y <= y2: a point on an edge is inside (every official ScreenSpot scorer:
    ScreenSpot-Pro ``eval_screenspot_pro.py::eval_sample_positive_gt``, compared in relative coordinates)."""
    x, y = float(point[0]), float(point[1])
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


# Point-in-box rules, recorded with results as ``inside_rule``: ``strict`` (PSS paper, Algorithm 1 line 1) and
# ``inclusive`` (the official ScreenSpot / -v2 / -Pro scorers, the default of the ScreenSpot tasks).
def inside_half_open(point: Sequence[float], box: Box) -> bool:
    """x1 <= x < x2 and y1 <= y < y2 (YXB-NKU/SE-GUI src/eval/test_grounding_r1_nothink.py ``point_in_box``)."""
    x, y = float(point[0]), float(point[1])
    return box[0] <= x < box[2] and box[1] <= y < box[3]


INSIDE_RULES = {"strict": strictly_inside, "inclusive": inside_inclusive, "half_open": inside_half_open}


def classify_response(point: Sequence[float], target: Box, others: Sequence[Box] | None, tau: float,
                      inside_rule: str = "strict") -> str:
    """Algorithm 1: correct, biased (d < tau to the target), misleading (d < tau to another box), confusion.

    ``others`` is every other known element's box; None means only the target is known
    (ScreenSpot), so misleading and confusion merge into "other". All coordinates must be
    in one frame, the frame ``tau`` is measured in. ``inside_rule`` names the test for "correct" (``INSIDE_RULES``).
    """
    if inside_rule not in INSIDE_RULES:
        raise ValueError(f"unknown inside_rule {inside_rule!r}; known: {', '.join(INSIDE_RULES)}")
    if INSIDE_RULES[inside_rule](point, target):
        return "correct"
    if point_to_box_distance(point, target) < tau:
        return "biased"
    if others is None:
        return "other"
    for box in others:
        if point_to_box_distance(point, box) < tau:
            return "misleading"
    return "confusion"


# --- aggregations over per-sample records ------------------------------------------------------

Record = Mapping[str, Any]


def _mean(values: Iterable[Any]) -> float:
    xs = [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return sum(xs) / len(xs) if xs else math.nan


def _view(record: Record, stage: str) -> Record | None:
    return record if stage == "final" else record.get("first")


def scored(records: Sequence[Record]) -> list[Record]:
    """The records in the denominator: all but those the official reading drops (Phi-Ground's and UGround-V1's
    scripts leave an answer they cannot parse out of their results)."""
    return [r for r in records if not r.get("dropped")]


def accuracy(records: Sequence[Record], stage: str = "final") -> float:
    views = [v for v in (_view(r, stage) for r in scored(records)) if v is not None]
    return sum(bool(v["correct"]) for v in views) / len(views) if views else math.nan


# "other" is every error that is not biased: misleading + confusion on icon boards (Tables 2, 7).
OTHER_MEMBERS = frozenset({"misleading", "confusion", "other"})


def is_type(response_type: str | None, rtype: str) -> bool:
    """Whether a sample's type counts as ``rtype`` ("other" groups misleading and confusion)."""
    return response_type in OTHER_MEMBERS if rtype == "other" else response_type == rtype


def type_share(records: Sequence[Record], rtype: str) -> float:
    """Share of samples of one response type (Figure 3); unparseable answers count in the denominator (dropped ones not)."""
    records = scored(records)
    return sum(is_type(r["response_type"], rtype) for r in records) / len(records) if records else math.nan


def mean_of(records: Sequence[Record], field: str, rtype: str | None = None, stage: str = "final") -> float:
    """Mean of ``field`` over records (of one response type), skipping samples without the value."""
    views = [v for v in (_view(r, stage) for r in records) if v is not None]
    return _mean(v.get(field) for v in views if rtype is None or is_type(v.get("response_type"), rtype))


def split_accuracy(split: str):
    def agg(records: Sequence[Record]) -> float:
        return accuracy([r for r in records if r.get("split") == split])

    return agg


def format_error_rate(records: Sequence[Record]) -> float:
    return sum(r["status"] != "parsed" for r in records) / len(records) if records else math.nan


# Table 1: share of predictions within these relative distances of the ground-truth box.
DISTANCE_BANDS: tuple[float, ...] = (0.05, 0.10, 0.20, 0.30)


def within_distance(records: Sequence[Record], d: float) -> float:
    """Share of samples whose point lies closer than ``d`` (relative units) to the target box; unparsed answers count as far."""
    records = scored(records)
    return sum(r.get("distance") is not None and r["distance"] < d for r in records) / len(records) if records else math.nan


def no_capture_rate(records: Sequence[Record]) -> float:
    """Share of parsed answers for which no key-token logits exist (text-only backend, merged key digit)."""
    parsed = [r for r in records if r["status"] == "parsed"]
    return sum(r.get("pss") is None and r.get("pss_range") is None for r in parsed) / len(parsed) if parsed else math.nan


def range_mean(records: Sequence[Record], field: str, end: int) -> float:
    """Mean of the low (``end`` 0) or high (1) end of a top_logprobs ``field`` range; exact samples are not in it."""
    return _mean(r[field][end] for r in records if r.get("capture_kind") == "top_logprobs" and r.get(field))


# ScreenSpot / ScreenSpot-v2 splits (Table 6) and ScreenSpot-Pro groups x UI type.
SCREENSPOT_SPLITS: tuple[str, ...] = tuple(f"{p}_{t}" for p in ("desktop", "mobile", "web") for t in ("icon", "text"))
# ScreenSpot-Pro's six groups, written once (gui_metrics.grounding_official.PRO_GROUP_NAMES, as its script names them)
PRO_GROUPS: tuple[str, ...] = tuple(g.lower() for g in PRO_GROUP_NAMES)
PRO_SPLITS: tuple[str, ...] = tuple(f"{g}_{t}" for g in PRO_GROUPS for t in ("icon", "text"))
# Icon boards: targets from the common library vs rarely seen symbols (section 3.4, Figure 3).
ICON_SPLITS: tuple[str, ...] = ("common", "uncommon")


def _specs() -> list[MetricSpec]:
    g, crop = frozenset({"grounding"}), frozenset({"crop"})
    specs = [
        MetricSpec("grounding_acc", accuracy, True, g, "Share of points inside the target box (Algorithm 1 'correct'; edges per the task's inside_rule)."),
        MetricSpec("grounding_format_error_rate", format_error_rate, False, g, "Share of answers with no parseable point."),
        MetricSpec("pss_mean", lambda rs: mean_of(rs, "pss"), True, g, "Mean Peak Sharpness Score over samples (section 4.2).",
                   params={"C": PSS_C}),
        MetricSpec("token_entropy_mean", lambda rs: mean_of(rs, "digit_entropy"), False, g,
                   "Mean entropy of the ten digit probabilities at key tokens (Table 4)."),
        MetricSpec("perplexity_mean", lambda rs: mean_of(rs, "perplexity"), False, g, "Mean response perplexity (Table 8)."),
        MetricSpec("pss_no_capture_rate", no_capture_rate, False, g, "Parsed answers without key-token logits."),
        # top_logprobs captures (hosted APIs): ranges, kept apart from the exact aggregates above
        MetricSpec("pss_topk_low_mean", lambda rs: range_mean(rs, "pss_range", 0), True, g,
                   "Mean low end of PSS over samples captured through top_logprobs (missing digits at 0 / at the top-k floor)."),
        MetricSpec("pss_topk_high_mean", lambda rs: range_mean(rs, "pss_range", 1), True, g,
                   "Mean high end of PSS over samples captured through top_logprobs."),
    ]
    for t in ALL_TYPES:
        specs.append(MetricSpec(f"pss_{t}", lambda rs, t=t: mean_of(rs, "pss", t), True, g, f"Mean PSS of {t} responses (Table 2)."))
        specs.append(MetricSpec(f"share_{t}", lambda rs, t=t: type_share(rs, t), t == "correct", g,
                                f"Share of {t} responses (Figure 3)."))
    for t in ("correct", "biased", "other"):
        specs.append(MetricSpec(f"entropy_{t}", lambda rs, t=t: mean_of(rs, "digit_entropy", t), False, g,
                                f"Mean key-token digit entropy of {t} responses (Table 4)."))
    for s in SCREENSPOT_SPLITS + PRO_SPLITS + ICON_SPLITS:
        specs.append(MetricSpec(f"grounding_acc_{s}", split_accuracy(s), True, g, f"Accuracy on split {s} (Table 6)."))
    for d in DISTANCE_BANDS:
        specs.append(MetricSpec(f"within_dist_{round(d * 100):03d}", lambda rs, d=d: within_distance(rs, d), True, g,
                                f"Share of points closer than {d} (relative) to the target box (Table 1)."))
    # ScreenSpot-Pro's official report (eval_screenspot_pro.py): overall text / icon accuracy and each group's "Avg"
    from gui_metrics.grounding_official import group_figure, overall_figure

    for name in ("text_acc", "icon_acc"):
        specs.append(MetricSpec(f"sspro_{name}", overall_figure(name), True, g,
                                f"ScreenSpot-Pro official {name} over every sample (eval_screenspot_pro.py overall)."))
    for group in PRO_GROUP_NAMES:
        specs.append(MetricSpec(f"sspro_avg_{group.lower()}", group_figure(group), True, g,
                                f"ScreenSpot-Pro official accuracy of group {group} (leaderboard 'Avg')."))
    # Context-aware cropping (section 5, Tables 6-7): the first prediction, before the crop.
    specs.append(MetricSpec("crop_first_acc", lambda rs: accuracy(rs, "first"), True, crop, "Accuracy before cropping (Table 6)."))
    for t in ("correct", "biased", "other"):
        specs.append(MetricSpec(f"crop_first_pss_{t}", lambda rs, t=t: mean_of(rs, "pss", t, "first"), True, crop,
                                f"Mean PSS of {t} responses before cropping (Table 7)."))
    return specs


@hookimpl
def gui_metrics_register() -> list[MetricSpec]:
    return _specs()
