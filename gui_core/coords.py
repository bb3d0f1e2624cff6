"""Coordinate frames of GUI-agent outputs, named explicitly and converted exactly.

Agents answer in different frames (ARCHITECTURE.md, "Models and coordinates"):

- ``relative``     x, y in [0, 1] of the image
- ``grid1000``     x, y on a 0-1000 grid (Qwen2-VL, OS-Atlas, UI-TARS-1.0, AgentCPM-GUI, Qwen3-VL)
- ``resized_px``   pixels of the image *after* the processor's smart resize (Qwen2.5-VL, UI-TARS-1.5, GUI-Owl)
- ``original_px``  pixels of the screenshot as captured

A frame is never guessed from the magnitude of the numbers ("> 1 means pixels" is wrong
for two of these frames); every conversion names its source and target frame and the
geometry (original size and the exact resize the processor applied).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

# The plausible range of a coordinate in any frame, for every parser of model output: a number beyond it (or not
# finite) is a format error, not a point far off screen. A number literal longer than MAX_NUMBER_CHARS characters is
# refused unread (int() of an unbounded digit run raises past 4,300 digits; float() of one gives inf).
MAX_COORD = 1e6
MAX_NUMBER_CHARS = 32

Frame = Literal["relative", "grid1000", "resized_px", "original_px"]
FRAMES: tuple[str, ...] = ("relative", "grid1000", "resized_px", "original_px")

# Qwen2-VL-family image processor *class* defaults (transformers' Qwen2VLImageProcessor): 14 px patches merged
# 2x2 (factor 28), between 56*56 and 28*28*1280 pixels. Released checkpoints override them (``BUDGETS``).
QWEN_FACTOR = 28
QWEN_MIN_PIXELS = 56 * 56
QWEN_MAX_PIXELS = 28 * 28 * 1280
MAX_ASPECT_RATIO = 200


def smart_resize(height: int, width: int, factor: int = QWEN_FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
                 max_pixels: int = QWEN_MAX_PIXELS) -> tuple[int, int]:
    """The (height, width) the Qwen2-VL-family processor resizes an image to.

    Both sides become multiples of ``factor`` close to the original aspect ratio, with the
    pixel count brought inside [min_pixels, max_pixels] (scaling down with floor, up with ceil).
    """
    if height <= 0 or width <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    if max(height, width) / min(height, width) > MAX_ASPECT_RATIO:
        raise ValueError(f"aspect ratio of {width}x{height} exceeds {MAX_ASPECT_RATIO}")
    h = max(factor, round(height / factor) * factor)
    w = max(factor, round(width / factor) * factor)
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h = math.ceil(height * beta / factor) * factor
        w = math.ceil(width * beta / factor) * factor
    return h, w


@dataclass(frozen=True)
class Budget:
    """A named smart-resize budget: the processor parameters a checkpoint family resizes its images with."""

    name: str
    min_pixels: int
    max_pixels: int
    factor: int = QWEN_FACTOR
    source: str = ""
    canvas: tuple[int, int] | None = None
    """A fixed (width, height) canvas the image is scaled into, keeping its aspect ratio, and pasted at the top left
    (Phi-Ground); None: the Qwen smart resize within [min_pixels, max_pixels]."""
    shrink_pixels: int | None = None
    """The image is first scaled (aspect kept, sides rounded) to at most this many pixels, then smart-resized
    (InfiGUI-G1's ``resize_image`` before ``smart_resize``); None: smart resize only."""

    def resized(self, width: int, height: int) -> tuple[int, int]:
        """(width, height) of the image the model sees (for a canvas: of the scaled screenshot inside it)."""
        if self.canvas is not None:
            return fit_canvas(width, height, *self.canvas)
        if self.shrink_pixels is not None:
            width, height = shrink_to(width, height, self.shrink_pixels)
        h, w = smart_resize(height, width, self.factor, self.min_pixels, self.max_pixels)
        return w, h

    def describe(self) -> dict:
        out = {"name": self.name, "min_pixels": self.min_pixels, "max_pixels": self.max_pixels, "factor": self.factor}
        if self.canvas is not None:
            out["canvas"] = list(self.canvas)
        if self.shrink_pixels is not None:
            out["shrink_pixels"] = self.shrink_pixels
        return out


def shrink_to(width: int, height: int, max_pixels: int) -> tuple[int, int]:
    """(width, height) scaled to at most ``max_pixels``, aspect kept, sides rounded (unchanged when already within).

    InfiXAI/InfiGUI-G1 eval/data.py ``resize_image`` (eval.py: ``--max-image-tokens`` 5600, times 28 * 28).
    """
    if width * height <= max_pixels:
        return width, height
    scale = math.sqrt(max_pixels / (width * height))
    return round(width * scale), round(height * scale)


def fit_canvas(width: int, height: int, canvas_width: int, canvas_height: int) -> tuple[int, int]:
    """(width, height) of a screenshot scaled to fit a fixed canvas, aspect ratio kept (truncated to whole pixels).

    microsoft/Phi-Ground README ``process_image`` (and benchmark/test_screenspot_pro.py): wider than the canvas ->
    full canvas width, height ``int(width / ratio)``; else full canvas height, width ``int(height * ratio)``.
    """
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    ratio = width / height
    if ratio > canvas_width / canvas_height:
        return canvas_width, max(1, int(canvas_width / ratio))
    return max(1, int(canvas_height * ratio)), canvas_height


# The budgets the released checkpoints use (read from each family's published processor config / code):
BUDGETS: dict[str, Budget] = {b.name: b for b in (
    Budget("qwen2_vl_class_default", QWEN_MIN_PIXELS, QWEN_MAX_PIXELS, source="transformers Qwen2VLImageProcessor defaults"),
    # Qwen2.5-VL-*-Instruct preprocessor_config.json: min_pixels 3136, max_pixels 12845056
    Budget("qwen2_5_vl", 3136, 12845056, source="Qwen2.5-VL-*-Instruct preprocessor_config.json"),
    # bytedance/UI-TARS README_coordinates.md and codes/ui_tars/action_parser.py: MIN 100*28*28, MAX 16384*28*28
    Budget("ui_tars_1_5", 100 * 28 * 28, 16384 * 28 * 28, source="bytedance/UI-TARS README_coordinates.md"),
    # X-PLUG/MobileAgent Mobile-Agent-v3 infer_ma3.py: MIN_PIXELS 3136, MAX_PIXELS 10035200 (12800 tokens)
    Budget("gui_owl", 3136, 10035200, source="X-PLUG/MobileAgent Mobile-Agent-v3/android_world_v3/.../infer_ma3.py"),
    # inclusionAI/UI-Venus models/grounding/ui_venus_ground_7b.py: min_pixels 2000000, max_pixels 4800000
    Budget("ui_venus", 2000000, 4800000, source="inclusionAI/UI-Venus models/grounding/ui_venus_ground_7b.py"),
    # likaixin2000/ScreenSpot-Pro-GUI-Grounding models/holo1_5.py Holo1_5Parameters: min 4*28*28, max 2560*1440
    Budget("holo1_5", 4 * 28 * 28, 2560 * 1440, source="ScreenSpot-Pro-GUI-Grounding models/holo1_5.py"),
    # Yan98/GTA1 README inference example: AutoProcessor(min_pixels=3136, max_pixels=4096 * 2160)
    Budget("gta1", 3136, 4096 * 2160, source="Yan98/GTA1 README.md (inference example)"),
    # likaixin2000/ScreenSpot-Pro-GUI-Grounding models/showui.py: min 256*28*28, max 1344*28*28 (answers are relative)
    Budget("showui", 256 * 28 * 28, 1344 * 28 * 28, source="ScreenSpot-Pro-GUI-Grounding models/showui.py"),
    # xlang-ai/OSWorld mm_agents/jedi_7b_agent.py: smart_resize(height, width, max_pixels=2700 * 28 * 28), min the
    # qwen_vl_utils default 4 * 28 * 28
    Budget("jedi", 4 * 28 * 28, 2700 * 28 * 28, source="xlang-ai/OSWorld mm_agents/jedi_7b_agent.py"),
    # YXB-NKU/SE-GUI src/eval/test_grounding_r1_nothink.py (ScreenSpot-Pro): AutoProcessor(max_pixels=7049280,
    # min_pixels=3136); its ScreenSpot script uses max 2007040, its ScreenSpot-v2 script 3512320 (--max-pixels)
    Budget("se_gui", 3136, 7049280, source="YXB-NKU/SE-GUI src/eval/test_grounding_r1_nothink.py"),
    # microsoft/Phi-Ground README / benchmark/test_screenspot_pro.py process_image, num_crops 7 (Phi-Ground-4B-7C):
    # the screenshot scaled into a 336*3 x 336*2 white canvas at the top left (min/max pixels: the canvas)
    # InfiXAI/InfiGUI-G1 eval/eval.py prepare_sample_data: resize_image(w, h, 5600 * 28 * 28) (--max-image-tokens
    # 5600), then smart_resize(max_pixels=12845056) with qwen_vl_utils' min 4 * 28 * 28; the image is resized to that
    Budget("infigui_g1", 3136, 12845056, source="InfiXAI/InfiGUI-G1 eval/eval.py (prepare_sample_data), eval/data.py",
           shrink_pixels=5600 * 28 * 28),
    Budget("phi_ground", 1008 * 672, 1008 * 672, factor=1, source="microsoft/Phi-Ground README.md (process_image)",
           canvas=(1008, 672)),
)}


# the budget a resized-pixel answer is read with when nothing names one (the Qwen2.5-VL processor default)
DEFAULT_BUDGET = "qwen2_5_vl"


def budget(name: str, *, min_pixels: int | None = None, max_pixels: int | None = None) -> Budget:
    """The named budget, with ``min_pixels`` / ``max_pixels`` overridden when given (the name then says so)."""
    if name not in BUDGETS:
        raise ValueError(f"unknown resize budget {name!r}; known: {', '.join(BUDGETS)}")
    b = BUDGETS[name]
    lo = int(min_pixels) if min_pixels is not None else b.min_pixels
    hi = int(max_pixels) if max_pixels is not None else b.max_pixels
    if (lo, hi) == (b.min_pixels, b.max_pixels):
        return b
    if b.canvas is not None:
        raise ValueError(f"resize budget {name!r} is a fixed {b.canvas[0]}x{b.canvas[1]} canvas: min_pixels / max_pixels "
                         "do not apply")
    if not 0 < lo <= hi:
        raise ValueError(f"resize budget needs 0 < min_pixels <= max_pixels, got min_pixels={lo}, max_pixels={hi}")
    return Budget(f"{name}+override", lo, hi, b.factor, b.source, shrink_pixels=b.shrink_pixels)


@dataclass(frozen=True)
class Geometry:
    """An original screenshot size and the size the model actually saw."""

    original_width: int
    original_height: int
    resized_width: int
    resized_height: int

    @classmethod
    def identity(cls, width: int, height: int) -> "Geometry":
        return cls(width, height, width, height)

    @classmethod
    def seen(cls, width: int, height: int, model_size: tuple[int, int] | list[int]) -> "Geometry":
        """The geometry when the backend reported the size ``[width, height]`` its processor fed the model."""
        mw, mh = (int(v) for v in model_size)
        if mw <= 0 or mh <= 0:
            raise ValueError(f"model image size must be positive, got {mw}x{mh}")
        return cls(width, height, mw, mh)

    @classmethod
    def from_budget(cls, width: int, height: int, b: Budget) -> "Geometry":
        w, h = b.resized(width, height)
        return cls(width, height, w, h)

    @classmethod
    def qwen(cls, width: int, height: int, *, factor: int = QWEN_FACTOR, min_pixels: int = QWEN_MIN_PIXELS,
             max_pixels: int = QWEN_MAX_PIXELS) -> "Geometry":
        """The geometry of a Qwen2-VL-family processor with these resize parameters."""
        h, w = smart_resize(height, width, factor, min_pixels, max_pixels)
        return cls(width, height, w, h)

    def _scale(self, frame: str) -> tuple[float, float]:
        """Units per image width and height in ``frame``."""
        if frame == "relative":
            return 1.0, 1.0
        if frame == "grid1000":
            return 1000.0, 1000.0
        if frame == "resized_px":
            return float(self.resized_width), float(self.resized_height)
        if frame == "original_px":
            return float(self.original_width), float(self.original_height)
        raise ValueError(f"unknown coordinate frame {frame!r}; known: {', '.join(FRAMES)}")


def convert(point: tuple[float, float], src: Frame, dst: Frame, geometry: Geometry) -> tuple[float, float]:
    """``point`` given in frame ``src`` expressed in frame ``dst`` (no rounding, no clamping).

    Between equal frames (or frames of equal size) the point is returned unchanged: ``x / 1000 * 1000`` is
    not always ``x`` in floating point, and a flipped last bit flips a result at a threshold or a box edge.
    """
    sx, sy = geometry._scale(src)
    dx, dy = geometry._scale(dst)
    x, y = point
    return (x if sx == dx else x * dx / sx), (y if sy == dy else y * dy / sy)


def convert_box(box: tuple[float, float, float, float], src: Frame, dst: Frame, geometry: Geometry) -> tuple[float, float, float, float]:
    """A box (x1, y1, x2, y2) from ``src`` to ``dst``."""
    x1, y1 = convert((box[0], box[1]), src, dst, geometry)
    x2, y2 = convert((box[2], box[3]), src, dst, geometry)
    return x1, y1, x2, y2


def model_geometry(frame: str, width: int, height: int, *, model_size: tuple[int, int] | list[int] | None = None,
                   fallback: Budget | None = None) -> tuple[Geometry, dict]:
    """The geometry an answer in ``frame`` is read in, and a record of where the model's image size came from.

    Only ``resized_px`` needs the size the model saw: the one the backend reported (``model_size``, from
    ``extras["model_image_sizes"]``) wins, else the ``fallback`` budget's resize. A malformed report is not
    trusted (the record says the budget was used).
    """
    if frame != "resized_px":
        return Geometry.identity(width, height), {"frame": frame, "frame_source": "not_needed"}
    if model_size is not None:
        try:
            g = Geometry.seen(width, height, model_size)
            return g, {"frame": frame, "frame_source": "model_image_sizes", "model_size": [g.resized_width, g.resized_height]}
        except (TypeError, ValueError):
            pass
    b = fallback or BUDGETS[DEFAULT_BUDGET]
    g = Geometry.from_budget(width, height, b)
    return g, {"frame": frame, "frame_source": f"budget:{b.name}", "budget": b.describe(),
               "model_size": [g.resized_width, g.resized_height]}


def reported_size(sizes: object, index: int = 0) -> list[int] | None:
    """Entry ``index`` of an ``extras["model_image_sizes"]`` list, or None when absent or not a [w, h] pair."""
    if not isinstance(sizes, (list, tuple)) or not sizes:
        return None
    try:
        item = sizes[index]
    except IndexError:
        return None
    if (isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                                                  for v in item)):
        return [int(item[0]), int(item[1])]
    return None
