"""How ``gui_openai`` declares the size each image reaches the served model in (``frame=``; see
``gui_models.openai_backend``'s docstring): Qwen2-VL's ``smart_resize`` from a budget or the served folder's processor,
a declared scale (hosted APIs), the size sent, or none."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

OWNER = "gui_openai"
FRAMES = ("auto", "smart_resize", "scale", "sent", "none")


def _qwen_processor(folder: str | None) -> Any | None:
    """The Qwen2-VL-family image processor of a checkpoint folder, or None (other families, no folder)."""
    if not folder or not Path(folder).is_dir():
        return None
    try:
        from transformers import AutoImageProcessor

        ip = AutoImageProcessor.from_pretrained(folder)
    except Exception:  # noqa: BLE001 - a folder without an image processor: no declared frame
        return None
    size = getattr(ip, "size", None)
    try:
        lo, hi = int(size["shortest_edge"]), int(size["longest_edge"])  # dict or transformers' SizeDict
    except (TypeError, KeyError, ValueError):
        return None
    return ip if type(ip).__name__.startswith("Qwen2VLImageProcessor") and lo > 0 and hi > 0 else None


class FramePolicy:
    """How ``gui_openai`` declares the size each image reaches the model in (see the module docstring)."""

    def __init__(self, frame: str, tokenizer: str | None, min_pixels: Any, max_pixels: Any, resize_budget: str | None,
                 image_scale: Any) -> None:
        from gui_core.coords import BUDGETS, QWEN_FACTOR, budget

        if frame not in FRAMES:
            raise ValueError(f"{OWNER}: frame={frame!r}; choose one of {FRAMES}")
        ip = _qwen_processor(tokenizer) if frame in ("auto", "smart_resize") else None
        self.budget = None
        self.scale = None
        self.source = None
        if frame == "auto":
            frame = "smart_resize" if (ip is not None or min_pixels or max_pixels or resize_budget) else "none"
        if frame == "smart_resize":
            if min_pixels or max_pixels or ip is None:
                if not (min_pixels and max_pixels) and not resize_budget:
                    raise ValueError(f"{OWNER}: frame=smart_resize needs min_pixels and max_pixels, a tokenizer folder with "
                                     f"a Qwen2-VL-family processor, or resize_budget (one of {', '.join(BUDGETS)})")
                name = resize_budget or "qwen2_vl_class_default"
                self.budget = budget(name, min_pixels=min_pixels, max_pixels=max_pixels)
                self.source = f"smart_resize:{self.budget.name}"
            else:
                from gui_core.coords import Budget

                factor = int(getattr(ip, "patch_size", 14)) * int(getattr(ip, "merge_size", 2)) or QWEN_FACTOR
                self.budget = Budget("served_processor", int(ip.size["shortest_edge"]), int(ip.size["longest_edge"]), factor,
                                     source=f"{tokenizer}/preprocessor")
                self.source = "smart_resize:served_processor"
        elif frame == "scale":
            try:
                self.scale = float(image_scale)
            except (TypeError, ValueError):
                raise ValueError(f"{OWNER}: frame=scale needs image_scale=<model size / size sent>, e.g. 0.766") from None
            if not 0 < self.scale <= 1:
                raise ValueError(f"{OWNER}: image_scale={image_scale} must be in (0, 1]")
            self.source = f"declared_scale:{self.scale:g}"
        elif frame == "sent":
            self.source = "sent"
        self.frame = frame

    def model_sizes(self, sent: Sequence[Sequence[int]]) -> list[list[int]] | None:
        if not sent or self.frame == "none":
            return None
        if self.budget is not None:
            return [list(self.budget.resized(int(w), int(h))) for w, h in sent]
        if self.scale is not None:
            return [[max(1, round(w * self.scale)), max(1, round(h * self.scale))] for w, h in sent]
        return [list(map(int, s)) for s in sent]

    def describe(self, sent: Sequence[Sequence[int]]) -> dict[str, Any]:
        out: dict[str, Any] = {"sent_sizes": [list(s) for s in sent], "source": self.source or "none"}
        if self.budget is not None:
            out["budget"] = self.budget.describe()
        return out

