"""Figure 4 of the seed (section 6.1): last-token states at the intervention layer, English vs target languages, before and after GUI-XLI.

States are h^(l) of the prompt's last token (direct prompt) for parallel documents. "After" is
read with the ``gui_xli`` intervention active (one memory per target language), so it is the
exact state the steering hook hands to layer l + 1. One embedding (t-SNE, or PCA without
scikit-learn) is fitted to all points so both panels share axes. The printed alignment figure
is the mean cosine similarity between each target state and its English counterpart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from gui_interventions import build_run
from gui_interventions.payloads import RequestContext
from gui_interventions.xli_memory import XLIMemory
from gui_tasks.mpr.lmms_task import doc_to_visual
from gui_tasks.mpr.prompts import DIRECT, build_prompt
from gui_tasks.mpr.xli.data import DataSpec, parallel_pairs

LANG_COLORS = {"en": "tab:blue", "zh": "tab:red", "fr": "tab:purple", "ru": "tab:green", "ja": "tab:orange", "th": "tab:brown"}


def _reqs(docs: Sequence[dict[str, Any]]) -> list[RequestContext]:
    return [RequestContext(text=build_prompt(d["question"], d["options"], DIRECT), images=tuple(doc_to_visual(d)), doc_id=i,
                           task="gui_xli_tsne", gen_kwargs={}, doc=d) for i, d in enumerate(docs)]


def collect_states(lm: Any, spec: DataSpec, memories: Sequence[str], *, layer: int, alpha: float, k: int = 3,
                   dimensions: Sequence[str] | None = None) -> dict[str, Any]:
    """``{"layer", "en": [n, d], "before": {lang: [n, d]}, "after": {lang: [n, d]}}`` (float32 numpy), rows aligned by id."""
    from gui_metrics.mpr import DIMENSIONS

    dims = tuple(dimensions or DIMENSIONS)
    out: dict[str, Any] = {"layer": int(layer), "alpha": float(alpha), "before": {}, "after": {}, "en": None}
    saved = lm.interventions
    for name in memories:
        lang = XLIMemory.load(name).lang
        if not lang or lang == "en":
            raise ValueError(f"memory {name!r} has no non-English target language")
        pairs = parallel_pairs(spec, lang, dims)
        if out["en"] is None:
            out["en"] = lm.last_token_states(_reqs([en for en, _ in pairs]), [layer])[layer].numpy()
        tgt = _reqs([t for _, t in pairs])
        out["before"][lang] = lm.last_token_states(tgt, [layer])[layer].numpy()
        lm.interventions = build_run("gui_xli", {"gui_xli.memory": name, "gui_xli.layer": layer, "gui_xli.alpha": alpha,
                                                 "gui_xli.k": k})
        try:
            out["after"][lang] = lm.last_token_states(tgt, [layer])[layer].numpy()
        finally:
            lm.interventions = saved
    return out


def embed(points: np.ndarray, method: str = "tsne", seed: int = 0) -> tuple[np.ndarray, str]:
    """2-D coordinates of ``points`` by t-SNE (scikit-learn) or PCA (numpy SVD); returns (coords, method used)."""
    x = np.asarray(points, dtype=np.float64)
    if method == "tsne":
        try:
            from sklearn.manifold import TSNE
        except ImportError:
            method = "pca"
        else:
            perplexity = float(max(2.0, min(30.0, (len(x) - 1) / 3)))
            return TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(x), "tsne"
    centred = x - x.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:2].T, "pca"


def alignment(en: np.ndarray, other: np.ndarray) -> float:
    """Mean cosine similarity between paired rows."""
    a, b = torch.as_tensor(en), torch.as_tensor(other)
    return float(torch.nn.functional.cosine_similarity(a, b, dim=-1).mean())


def draw_states(states: dict[str, Any], path: Path, method: str = "tsne", seed: int = 0) -> dict[str, Any]:
    """Two panels (before / after GUI-XLI) coloured by language; returns the method and alignment figures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    langs = list(states["before"])
    blocks = [("en", "before", states["en"])] + [(lang, "before", states["before"][lang]) for lang in langs] \
        + [(lang, "after", states["after"][lang]) for lang in langs]
    coords, used = embed(np.concatenate([b[2] for b in blocks]), method, seed)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), sharex=True, sharey=True)
    start = 0
    spans = []
    for lang, when, arr in blocks:
        spans.append((lang, when, coords[start:start + len(arr)]))
        start += len(arr)
    for ax, panel in zip(axes, ("before", "after")):
        for lang, when, xy in spans:
            if lang == "en" or when == panel:
                ax.scatter(xy[:, 0], xy[:, 1], s=18, alpha=0.8, color=LANG_COLORS.get(lang, "black"),
                           label=lang.upper(), marker="o" if lang == "en" else "^")
        ax.set_title(f"{'without' if panel == 'before' else 'with'} GUI-XLI (layer {states['layer']})", fontsize=10)
        ax.legend(fontsize=8)
    fig.suptitle(f"{ {'tsne': 't-SNE', 'pca': 'PCA'}[used]} of last-token hidden states, English vs target languages", fontsize=11)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return {"method": used, "layer": states["layer"], "alpha": states["alpha"],
            "alignment": {lang: {"before": alignment(states["en"], states["before"][lang]),
                                 "after": alignment(states["en"], states["after"][lang])} for lang in langs}}
