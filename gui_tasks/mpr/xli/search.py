"""The two-stage (layer, alpha) search of seed section 6.2 on a small validation split, and its Figure 5 landscape.

Stage 1 fixes alpha (0.1) and sweeps the layers (11-18); stage 2 sweeps alpha at the best
layer l*. Each configuration is scored by weighted accuracy (FPR-ACC weights over the
dimensions present, appendix A.7); the highest wins, ties going to the configuration
evaluated first. The baseline without steering is scored too. ``full_grid`` evaluates every
(layer, alpha) pair instead, for a full landscape.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from gui_interventions import build_run
from gui_interventions.payloads import RequestContext
from gui_metrics.mpr import DIMENSIONS, fpr_acc
from gui_tasks.mpr.lmms_task import doc_to_visual, score_response
from gui_tasks.mpr.prompts import DIRECT, build_prompt
from gui_tasks.mpr.xli.data import DataSpec, lang_files, read_docs

DEFAULT_ALPHAS = (0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.14, 0.16)


@dataclass(frozen=True)
class Point:
    """One evaluated configuration; ``layer``/``alpha`` None for the baseline."""

    stage: str  # "baseline" | "layer" | "alpha" | "grid"
    layer: int | None
    alpha: float | None
    score: float  # weighted accuracy, 0-1
    per_dimension: dict[str, float]


@dataclass
class SearchResult:
    lang: str
    memory: str
    k: int
    points: list[Point] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def baseline(self) -> Point:
        return next(p for p in self.points if p.stage == "baseline")

    @property
    def best(self) -> Point:
        steered = [p for p in self.points if p.stage != "baseline"]
        return max(steered, key=lambda p: p.score)  # max keeps the first of equal scores

    def render_text(self) -> str:
        dims = [d for d in DIMENSIONS if any(d in p.per_dimension for p in self.points)]
        head = ["stage", "layer", "alpha", "weighted acc", *dims]
        rows = [[p.stage, "-" if p.layer is None else str(p.layer), "-" if p.alpha is None else f"{p.alpha:g}",
                 f"{100 * p.score:.1f}", *(f"{100 * p.per_dimension[d]:.1f}" if d in p.per_dimension else "-" for d in dims)]
                for p in self.points]
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in [head, *rows]]
        best = self.best
        lines.append(f"best: layer {best.layer}, alpha {best.alpha:g}: {100 * best.score:.1f} "
                     f"({100 * (best.score - self.baseline.score):+.1f} vs no intervention)")
        return "\n".join(lines) + "\n"


def validation_docs(spec: DataSpec, lang: str, dimensions: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The target-language validation documents."""
    docs = read_docs(lang_files(spec, (lang,))[lang])
    return [d for d in docs if dimensions is None or d["dimension"] in dimensions]


def score_docs(lm: Any, docs: Sequence[dict[str, Any]], protocol: str = DIRECT, max_new_tokens: int = 16,
               images: dict[str, tuple] | None = None) -> tuple[float, dict[str, float]]:
    """Weighted accuracy (FPR-ACC weights over the dimensions present) and per-dimension accuracy of ``lm``'s answers."""
    reqs = [RequestContext(text=build_prompt(d["question"], d["options"], protocol),
                           images=images[d["id"]] if images else tuple(doc_to_visual(d)), doc_id=i, task="gui_xli_search",
                           gen_kwargs={"max_new_tokens": int(max_new_tokens), "do_sample": False}, doc=d)
            for i, d in enumerate(docs)]
    outs = lm.generate_texts(reqs)
    hits: dict[str, list[bool]] = {}
    for d, text in zip(docs, outs):
        hits.setdefault(d["dimension"], []).append(bool(score_response(d, text)["correct"]))
    per = {dim: sum(v) / len(v) for dim, v in hits.items()}
    return fpr_acc(per, allow_missing=True), per


def run_search(lm: Any, spec: DataSpec, lang: str, memory: str, *, layers: Sequence[int], alphas: Sequence[float] | None = None,
               stage1_alpha: float = 0.1, k: int = 3, full_grid: bool = False, dimensions: Sequence[str] | None = None,
               max_new_tokens: int = 16, protocol: str = DIRECT, extra: dict[str, Any] | None = None,
               log: Callable[[str], None] = lambda s: None) -> SearchResult:
    """Evaluate the baseline and the search configurations; ``lm.interventions`` is restored afterwards."""
    alphas = list(alphas or DEFAULT_ALPHAS)
    docs = validation_docs(spec, lang, dimensions)
    if not docs:
        raise ValueError(f"no validation documents for {lang} in {spec.describe()}")
    images = {d["id"]: tuple(doc_to_visual(d)) for d in docs}  # decoded once for every configuration
    result = SearchResult(lang=lang, memory=str(memory), k=int(k),
                          settings={"layers": list(layers), "alphas": alphas, "stage1_alpha": stage1_alpha, "full_grid": full_grid,
                                    "validation": spec.describe(), "n_docs": len(docs), "protocol": protocol,
                                    "max_new_tokens": max_new_tokens, **(extra or {})})
    saved = lm.interventions

    def evaluate(stage: str, layer: int | None, alpha: float | None) -> Point:
        params = {} if layer is None else {"gui_xli.memory": str(memory), "gui_xli.layer": layer, "gui_xli.alpha": alpha,
                                           "gui_xli.k": k, **{f"gui_xli.{a}": b for a, b in (extra or {}).items()}}
        lm.interventions = build_run("gui_xli" if params else None, params)
        try:
            score, per = score_docs(lm, docs, protocol, max_new_tokens, images)
        finally:
            lm.interventions = saved
        point = Point(stage, layer, alpha, score, per)
        result.points.append(point)
        log(f"{stage}: layer {layer}, alpha {alpha}: weighted accuracy {100 * score:.1f}")
        return point

    evaluate("baseline", None, None)
    if full_grid:
        for layer in layers:
            for alpha in alphas:
                evaluate("grid", layer, alpha)
        return result
    stage1 = [evaluate("layer", layer, stage1_alpha) for layer in layers]
    best_layer = max(stage1, key=lambda p: p.score).layer
    for alpha in alphas:
        if not math.isclose(alpha, stage1_alpha):
            evaluate("alpha", best_layer, alpha)
    return result


def write_outputs(result: SearchResult, out: Path) -> list[Path]:
    """``search.csv``, ``search.md``, ``best.json`` and the landscape ``landscape.png`` into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    dims = [d for d in DIMENSIONS if any(d in p.per_dimension for p in result.points)]
    with (out / "search.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["stage", "layer", "alpha", "weighted_acc", *dims])
        for p in result.points:
            w.writerow([p.stage, p.layer if p.layer is not None else "", p.alpha if p.alpha is not None else "", repr(p.score),
                        *(repr(p.per_dimension[d]) if d in p.per_dimension else "" for d in dims)])
    (out / "search.md").write_text("```\n" + result.render_text() + "```\n", encoding="utf-8")
    best = result.best
    (out / "best.json").write_text(json.dumps({"lang": result.lang, "memory": result.memory, "k": result.k, "layer": best.layer,
                                               "alpha": best.alpha, "weighted_acc": best.score,
                                               "baseline_weighted_acc": result.baseline.score, "settings": result.settings},
                                              indent=1, sort_keys=True) + "\n", encoding="utf-8")
    draw_landscape(result, out / "landscape.png")
    return [out / "search.csv", out / "search.md", out / "best.json", out / "landscape.png"]


def draw_landscape(result: SearchResult, path: Path) -> None:
    """Figure 5 style: weighted accuracy over (layer, alpha) in 3-D, the optimum as a red dot, the baseline as a plane."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    pts = [p for p in result.points if p.stage != "baseline"]
    xs = np.array([p.layer for p in pts], dtype=float)
    ys = np.array([p.alpha for p in pts], dtype=float)
    zs = np.array([100 * p.score for p in pts], dtype=float)
    base = 100 * result.baseline.score
    fig = plt.figure(figsize=(7.5, 5.5))
    ax = fig.add_subplot(projection="3d")
    layers, alphas = sorted(set(xs)), sorted(set(ys))
    if len(layers) > 1 and len(alphas) > 1 and len(pts) == len(layers) * len(alphas):
        grid = np.full((len(alphas), len(layers)), np.nan)
        for x, y, z in zip(xs, ys, zs):
            grid[alphas.index(y), layers.index(x)] = z
        gx, gy = np.meshgrid(layers, alphas)
        ax.plot_surface(gx, gy, grid, cmap="viridis", alpha=0.85, edgecolor="grey", linewidth=0.3)
    else:  # two-stage search: the evaluated points as stems from the baseline level
        colors = ["tab:blue" if p.stage == "layer" else "tab:orange" for p in pts]
        for x, y, z, c in zip(xs, ys, zs, colors):
            ax.plot([x, x], [y, y], [base, z], color=c, linewidth=1)
        ax.scatter(xs, ys, zs, c=colors, s=28, depthshade=False)
        ax.plot([], [], color="tab:blue", label="stage 1: layers at fixed alpha")
        ax.plot([], [], color="tab:orange", label="stage 2: alpha at best layer")
    lx = np.array([min(xs), max(xs)]) if len(xs) else np.array([0, 1])
    ly = np.array([min(ys), max(ys)]) if len(ys) else np.array([0, 1])
    px, py = np.meshgrid(lx, ly)
    ax.plot_surface(px, py, np.full_like(px, base, dtype=float), color="grey", alpha=0.15)
    best = result.best
    ax.scatter([best.layer], [best.alpha], [100 * best.score], color="red", s=70, depthshade=False,
               label=f"optimum: l={best.layer}, alpha={best.alpha:g} ({100 * best.score:.1f})")
    ax.set_xticks(layers)
    ax.set_xlabel("layer l")
    ax.set_ylabel("alpha")
    ax.set_zlabel("weighted accuracy (%)")
    ax.set_title(f"GUI-XLI landscape, {result.lang.upper()} (grey plane: no intervention, {base:.1f})", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
