"""The images a model was sent after interventions changed them, stored once per content hash beside the run's outputs.

Recorded by :class:`gui_interventions.manager.InterventionRun` (the one place where every backend, ``gui_hf``,
``gui_wrap`` and ``gui_openai``, passes its requests through the request stage, and where the response stage's
re-runs, e.g. the crop's second pass, go), only when an intervention changed an image or the number of images:
a run without interventions, or whose interventions keep the images, writes nothing. The viewer shows them next to
the original screenshot (``gui_tasks.viewer``).

Layout, in the folder given by ``$GUI_EVAL_SENT_IMAGES`` or else ``<--output_path>/sent_images`` of the lmms-eval
command line (lmms-eval's own output files are never touched)::

    sent_images/<start>-<pid>.jsonl   one log per process: a header line, then one line per changed request
    sent_images/img/<sha256>.png      each distinct image once (sha256 of mode, size and pixels)

Header: ``{"kind": "header", "model_args": "...", "interventions": [...], "started": <unix time>, "pid": N}``;
request lines: ``{"kind": "sent", "task", "doc_id", "round", "pass" ("request" | "rerun-1", ...), "images":
[{"sha256", "file", "width", "height", "mode"} or {"unchanged": true}], "removed": n}``.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from gui_core.pixels import pixels_sha256
from gui_core.run_folder import argv_option, is_lmms_eval_cli, output_path

ENV = "GUI_EVAL_SENT_IMAGES"
OFF = ("0", "off", "none", "no")


_argv_option, _is_lmms_eval_cli = argv_option, is_lmms_eval_cli  # one reading of the command line (gui_core.run_folder)


def default_folder(argv: Sequence[str] | None = None, environ: Any = None) -> Path | None:
    """Where this process records sent images: ``$GUI_EVAL_SENT_IMAGES`` (``0`` / ``off``: nowhere), else
    ``<--output_path>/sent_images`` when this process is the lmms-eval command line, else None (not recorded)."""
    environ = os.environ if environ is None else environ
    argv = sys.argv if argv is None else argv
    env = environ.get(ENV)
    if env is not None:
        return None if env.strip().lower() in OFF or not env.strip() else Path(env)
    base = output_path(argv)
    return None if base is None else base / "sent_images"


def _same_image(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return a.mode == b.mode and a.size == b.size and a.tobytes() == b.tobytes()
    except AttributeError:  # not PIL images (a path string the backend reads later): equal values only
        return a == b


class SentImageLog:
    """Appends changed requests' images to ``folder`` (thread-safe; one log file per process)."""

    def __init__(self, folder: Path, interventions: Sequence[str], argv: Sequence[str] | None = None) -> None:
        self.folder = Path(folder)
        self.interventions = list(interventions)
        self.argv = list(sys.argv if argv is None else argv)
        self._lock = threading.Lock()
        self._log: Path | None = None
        self._written: set[str] = set()

    def _open(self) -> Path:
        """The process's log file, created with its header on first use (nothing is written for runs that change nothing)."""
        if self._log is None:
            (self.folder / "img").mkdir(parents=True, exist_ok=True)
            started = time.time()
            self._log = self.folder / f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime(started))}-{os.getpid()}.jsonl"
            header = {"kind": "header", "model_args": _argv_option(self.argv, "--model_args") or "",
                      "interventions": self.interventions, "started": started, "pid": os.getpid()}
            with self._log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(header) + "\n")
        return self._log

    def _store(self, image: Any) -> dict[str, Any]:
        digest = pixels_sha256(image)
        rel = f"img/{digest}.png"
        if digest not in self._written:
            path = self.folder / rel
            if not path.exists():  # another process of the run may have written it: same name, same pixels
                buf = io.BytesIO()
                image.save(buf, "PNG", compress_level=1)
                tmp = path.with_name(f".{digest}.{os.getpid()}.{threading.get_ident()}.tmp")
                tmp.write_bytes(buf.getvalue())
                os.replace(tmp, path)
            self._written.add(digest)
        return {"sha256": digest, "file": rel, "width": image.size[0], "height": image.size[1], "mode": image.mode}

    def record(self, before: Any, after: Any, stage: str = "request") -> bool:
        """Record ``after``'s images when they differ from ``before``'s (RequestContexts); True when written."""
        old, new = tuple(before.images), tuple(after.images)
        if len(old) == len(new) and all(_same_image(a, b) for a, b in zip(old, new)):
            return False
        with self._lock:
            log = self._open()
        images = []
        for i, im in enumerate(new):
            if i < len(old) and _same_image(old[i], im):
                images.append({"unchanged": True})
            elif hasattr(im, "tobytes") and hasattr(im, "save"):
                images.append(self._store(im))
            else:
                images.append({"unchanged": False, "note": f"not a PIL image ({type(im).__name__})"})
        line = {"kind": "sent", "task": after.task, "doc_id": after.doc_id, "round": int(after.metadata.get("round", 0) or 0),
                "pass": stage, "images": images, "removed": max(0, len(old) - len(new))}
        with self._lock:
            with log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(line) + "\n")
        return True
