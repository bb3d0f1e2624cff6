"""The task: "what colour is the button?" on small synthetic screens.

Two tasks share the rows of ``tasks/widgets.jsonl``: ``acme_widget_color`` draws each screen in ``process_docs``
and keeps it in the document as a PIL image (as a Hugging Face dataset with an ``Image()`` column does);
``acme_widget_color_files`` keeps the row's relative path (``screens/w0.png``), which is relative to the folder of
the task's YAML. Both forms are hashed by content when a run is submitted.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import datasets
from lmms_eval.api.task import ConfigurableTask
from PIL import Image, ImageDraw

from gui_tasks.runs.doc_images import image_pixels

TASK_DIR = Path(__file__).resolve().parent / "tasks"  # the YAMLs' folder: relative paths in documents start here
DATA = TASK_DIR / "widgets.jsonl"
COLORS = ("red", "green", "blue", "yellow")
PROMPT = "What colour is the button on this screen? Answer with one word: red, green, blue or yellow."


class WidgetTask(ConfigurableTask):
    """lmms-eval's ConfigurableTask reading the package's own data file (a path relative to no working directory)."""

    def __init__(self, *args: Any, config: dict | None = None, **kwargs: Any) -> None:
        config = dict(config or {})
        config.pop("class", None)  # the YAML key that named this class is no TaskConfig field
        super().__init__(*args, config=config, **kwargs)

    def download(self, dataset_kwargs: dict | None = None) -> None:
        super().download({**(dataset_kwargs or {}), "data_files": {"test": str(DATA)}})


def render(row: dict[str, Any]) -> Image.Image:
    """The row's screen: a light window with one filled button (deterministic: same row, same pixels)."""
    im = Image.new("RGB", (96, 48), (235, 235, 235))
    draw = ImageDraw.Draw(im)
    draw.rectangle(row["box"], fill=tuple(row["rgb"]), outline=(40, 40, 40))
    return im


def process_docs_drawn(dataset: datasets.Dataset) -> datasets.Dataset:
    """Documents whose ``image`` is a PIL image (an ``Image()`` column)."""
    rows = [{**row, "image": render(row)} for row in dataset]
    return datasets.Dataset.from_list(rows)


def doc_to_visual(doc: dict[str, Any]) -> list[Image.Image]:
    image = image_pixels(doc["image"], TASK_DIR)
    if image is None:
        raise ValueError(f"acme_widgets: document {doc['id']}: image {doc['image']!r} is not an image")
    return [image.convert("RGB")]


def doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: dict | None = None) -> str:
    return PROMPT


def doc_to_target(doc: dict[str, Any]) -> str:
    return doc["color"]


def parse_color(text: str) -> str | None:
    """The first colour word of a response, or None (model output is untrusted text: never raises)."""
    for word in re.findall(r"[a-z]+", str(text).lower()):
        if word in COLORS:
            return word
    return None


def process_results(doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    pred = parse_color(results[0] if results else "")
    record = {"id": doc["id"], "answer": doc["color"], "pred": pred, "correct": pred == doc["color"]}
    return {"acme_color_acc": record}
