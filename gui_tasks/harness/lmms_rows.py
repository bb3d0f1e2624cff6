"""The one way our lmms-eval tasks get their rows: metadata -> rows -> a content-addressed JSONL.

A YAML ``class:`` task (``RowsTask`` subclass) gathers its rows in ``rows(metadata)`` (an
official copy or the synthetic world) and hands the JSONL to lmms-eval's own ``json``
loader; ``process_docs`` then validates and orders them. Nothing else of lmms-eval is
overridden, except that the request layout follows lmms-eval's chat/simple choice
(``gui_tasks.harness.lmms_layout``), which a ``class:`` task is otherwise never told.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Hashable, Mapping

from lmms_eval.api.task import ConfigurableMessagesTask, ConfigurableTask
from PIL import Image

from gui_core.image_files import mark_file_source
from gui_core.images import ImageRefused, decode
from gui_core import replayed_answers
from gui_core.sample_faults import DOC_ERROR, SAMPLE_ERROR, doc_key, fault_of, record
from gui_metrics.lmms_bridge import SCORE_KEY
from gui_tasks.runs import input_files
from gui_core.errors import DataError
from gui_core.sample_faults import describe_fault
from gui_tasks.harness.bad_rows import skip_bad_rows, take_skipped
from gui_core.logit_capture import SIDE_KEY
from gui_core.reasoning import side_in_full_text
from gui_tasks.harness.reasoning_results import read_results, reasoning_aggregations
from gui_tasks.harness.lmms_layout import INTERACTION_KEY, UNTIL_KEY, current_task_type, multi_round_layout, multi_round_refusal
from gui_core.paths import cache_dir
from gui_tasks.harness.task_keys import config_problems, report


def task_metadata(config: Any) -> dict[str, Any]:
    """The YAML ``metadata`` of a task config as one dict (lmms-eval may keep several)."""
    meta = getattr(config, "metadata", None) or {}
    if isinstance(meta, list):
        merged: dict[str, Any] = {}
        for m in meta:
            merged.update(m or {})
        meta = merged
    return dict(meta)


def refuse_duplicate_ids(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with every row that repeats an earlier row's ``id`` refused by name: it keeps its fields, carries the
    document error (``DOC_ERROR``: scored as an empty answer, named in the samples file) and a key of its own
    (``<id>#row<k>``), so a fault of one twin never reaches the other (faults are kept per document key)."""
    first: dict[str, int] = {}
    out = []
    for k, row in enumerate(rows):
        did = row.get("id") if isinstance(row, dict) else None
        if did is None:
            out.append(row)
            continue
        key = str(did)
        if key in first and not row.get(DOC_ERROR):
            row = {**row, "id": f"{key}#row{k}",
                   DOC_ERROR: f"refused: its id {key!r} is row {first[key]}'s too (ids must be unique in a task)"}
        first.setdefault(key, k)
        out.append(row)
    return out


def write_rows(rows: list[dict[str, Any]], kind: str, meta: Mapping[str, Any]) -> Path:
    """Write ``rows`` to ``cache_dir()/<kind>_rows/<digest>.jsonl`` (atomic: safe for several ranks)."""
    if not rows:
        raise DataError(f"no rows for task metadata {dict(meta)}", file="<task yaml>", field="metadata")
    rows = refuse_duplicate_ids(rows)
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    data = text.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()[:16]
    out_dir = cache_dir() / f"{kind}_rows"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{meta.get('source')}-{meta.get('lang', 'all')}-{digest}.jsonl"
    if not path.is_file() or path.read_bytes() != data:  # new, or damaged since it was written: (re)write it
        fd, tmp = tempfile.mkstemp(dir=out_dir, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    return path


def screen_name(path: Any) -> str:
    """A screenshot's cluster id: its folder and file name ("au-6/camera_8.jpg"), the same on every machine (the
    absolute path is not: it would change the per-sample values that submissions hash)."""
    parts = str(path).replace("\\", "/").rstrip("/").split("/")
    return "/".join(parts[-2:])


class RowsTask(ConfigurableMessagesTask):
    """A task whose rows come from ``rows(metadata)``; subclasses name ``KIND`` and implement ``rows``.

    Requests take the layout lmms-eval chose for the model being evaluated: chat (the task
    provides messages: ``ConfigurableMessagesTask``) or simple (``ConfigurableTask``), with the
    same prompt text and images either way.
    """

    KIND = "task"
    # the metadata / lmms_eval_specific_kwargs keys this task's code reads (gui_tasks.harness.task_keys; COMMON_METADATA too);
    # None: not declared (a subclass elsewhere), not checked
    METADATA_KEYS: frozenset[str] | None = None
    KWARGS_KEYS: frozenset[str] | None = frozenset()

    @classmethod
    def conflicts(cls, meta: Mapping[str, Any], kwargs: Mapping[str, Any]) -> list[str]:
        """Fields of one task config that disagree (``kwargs``: the default ``lmms_eval_specific_kwargs``)."""
        return []

    # The field that names a sample's cluster (lmms-eval's TaskConfig.cluster_key; docs/statistics.md): samples that
    # share it are not independent. The task's benchmark record names it (``Benchmark.cluster_key``); this is the
    # class's own when no record does. The YAML may set another ``cluster_key`` (a field of the record) instead.
    CLUSTER_KEY: str | None = "screenshot"
    # Why ``--repeats`` cannot ask this task's documents several times (None: it can); the task then runs once.
    NOT_REPEATABLE: str | None = None

    @classmethod
    def cluster_key(cls, meta: Mapping[str, Any]) -> str | None:
        """The cluster field of this task's samples: its benchmark record's ``cluster_key`` (``gui_core.benchmark``)
        where that names a field, else the class's ``CLUSTER_KEY`` (a record that describes a rule in words, e.g.
        SPHINX's per-kind one, leaves it to the class, which may choose by metadata)."""
        rec = cls.record_of(meta) if meta else None
        key = rec.cluster_key if rec is not None else None
        return key if key and key.isidentifier() else cls.CLUSTER_KEY

    @classmethod
    def record_of(cls, meta: Mapping[str, Any]) -> Any:
        """The benchmark record of a task with this metadata (``gui_core.benchmark.benchmark_of``), or None."""
        from gui_core.benchmark import benchmark_of

        return benchmark_of(meta)

    def cluster_of(self, doc: Mapping[str, Any]) -> Hashable | None:
        """The cluster a document belongs to: for ``screenshot`` (the default) its screenshot(s); for another key the
        document's field of that name, else the one in its ``meta`` JSON (ScreenSpot-Pro's ``application``); None:
        the sample stands alone."""
        key = self.config.cluster_key
        if key not in (None, "screenshot"):
            meta = doc.get("meta")
            meta = json.loads(meta or "{}") if isinstance(meta, str) else (meta if isinstance(meta, Mapping) else {})
            value = doc[key] if doc.get(key) not in (None, "") else meta.get(key)
            return str(value) if value not in (None, "") else None
        images = doc.get("images") or ([doc["image"]] if doc.get("image") else [])
        return "|".join(screen_name(i) for i in images) or None

    def answer_family(self, doc: Mapping[str, Any]) -> str | None:
        """The model family whose reading scores this task's answers (None: none in particular); its record says
        whether answers are read after the reasoning (``gui_tasks.harness.reasoning_results``)."""
        return None

    @classmethod
    def agentic_rounds(cls, meta: Mapping[str, Any]) -> int | None:
        """Most model calls one document can take when lmms-eval's agentic loop runs it, or None when this task's
        ``doc_to_text`` cannot run in that loop (multi-round tasks that can override this)."""
        return None

    def __init__(self, *args: Any, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self._stopped: str | None = None
        _contain(self)  # before lmms-eval's constructor, which downloads and renders a first document
        config = dict(config or {})
        config.pop("class", None)  # the YAML key that named this class is not a TaskConfig field
        problems = config_problems(type(self), config)  # a key nothing reads, fields that disagree: this task only
        task_type, model = current_task_type()
        self.request_layout = task_type
        self.multi_round_layout = multi_round_layout(task_type, model)
        # a backend that cannot answer rounds: lmms-eval's own agentic loop runs the task (one generate_until per
        # round, lmms_eval/evaluator.py:_run_generate_until_agentic) when the task can run there, else no request
        # at all (a multi-round request would abort the whole run)
        refusal = multi_round_refusal(model) if config.get("output_type") == "generate_until_multi_round" else None
        meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else None
        rounds = self.agentic_rounds(meta or {}) if refusal else None
        if rounds is not None:
            config["output_type"] = "generate_until_agentic"
            config["generation_kwargs"] = {**(config.get("generation_kwargs") or {}), "max_agentic_steps": rounds}
        config.setdefault("score_key", SCORE_KEY)  # what lmms-eval's CLT, --baseline and --repeats read
        own_cluster = "cluster_key" not in config
        if own_cluster:
            config["cluster_key"] = self.cluster_key(meta or {})
        super().__init__(*args, config=config, **kwargs)  # sets OUTPUT_TYPE from the YAML
        self._own_cluster = own_cluster and self.config.cluster_key is not None
        self._scored = self.process_results  # the YAML's function or the subclass's method
        self.process_results = self._process_results_with_stats  # an instance attribute: what the evaluator calls
        self.interaction = {"generate_until_agentic": "agentic", "generate_until_multi_round": "multi_round"}.get(self.OUTPUT_TYPE)
        self.not_run = self._stopped or (refusal if rounds is None else None)
        self._aggregation_list[SAMPLE_ERROR] = count_sample_errors  # a sample's named error, counted in the results
        self._higher_is_better[SAMPLE_ERROR] = False
        for metric, (agg, higher) in reasoning_aggregations().items():  # thinking models (gui_core.reasoning)
            self._aggregation_list[metric], self._higher_is_better[metric] = agg, higher
        if problems:
            report(str(self.config.task), problems)
            self.not_run = "configuration error: " + "; ".join(problems)
        record = self.config.metadata if isinstance(getattr(self.config, "metadata", None), dict) else {}
        if self.interaction:
            record["interaction"] = self.interaction  # lands in the results' task config: which path ran
            if self.interaction == "agentic":
                # doc_to_text sees the path through lmms-eval's partial(doc_to_text, lmms_eval_specific_kwargs=...)
                self.lmms_eval_specific_kwargs = {**(self.lmms_eval_specific_kwargs or {}), INTERACTION_KEY: "agentic"}
            if rounds is not None:
                record["interaction_reason"] = refusal.split(":")[0]
                print(f"gui-eval: {self.config.task}: {record['interaction_reason']}: its rounds run through lmms-eval's "
                      "agentic loop (one request per round, one document at a time)", file=sys.stderr)
        if self.not_run:
            print(f"gui-eval: {self.config.task}: {self.not_run}; the other tasks of the run go on", file=sys.stderr)
            record["not_run"] = self.not_run

    def _process_results_with_stats(self, doc: Mapping[str, Any], results: list[Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The task's per-sample values plus the cluster field in each, and a top-level ``score``: the first metric of
        the task's ``metric_list`` that has one (what lmms-eval's ``--baseline`` pairs across runs)."""
        read, reasoning = read_results(str(self.config.task), doc, results, self.answer_family(doc))
        out = self._scored(doc, read, *args, **kwargs)
        if not isinstance(out, dict):
            return out
        out.update(reasoning)
        if reasoning and isinstance(out.get(SIDE_KEY), dict) and len(read) == 1 and isinstance(read[0], str):
            # the side channel of the answer, in the spans of the whole response the samples file logs
            out[SIDE_KEY] = side_in_full_text(out[SIDE_KEY], len(str(results[0])) - len(str(read[0])))
        if self._own_cluster:
            cluster = self.cluster_of(doc)
            for key, value in out.items():
                if isinstance(value, dict) and key != SIDE_KEY:  # the response's side channel is no metric record
                    value.setdefault(self.config.cluster_key, cluster)
        if SCORE_KEY not in out:
            for m in self.config.metric_list or []:
                value = out.get(m.get("metric") if isinstance(m, dict) else None)
                if isinstance(value, dict) and SCORE_KEY in value:
                    out[SCORE_KEY] = value[SCORE_KEY]
                    break
        return out

    def construct_requests(self, doc_id: int, ctx: str, **kwargs: Any):
        """One request per repeat under ``--repeats N`` (lmms-eval 0.7.3 clones one request N times, so its
        stability metrics, which need N requests per document, never run): each its own ``Instance`` of ``idx``
        0..N-1, with ``repeats`` 1 so that the evaluator does not clone it again."""
        made = self._construct_one(doc_id, ctx, **kwargs)
        repeats = int(getattr(self.config, "repeats", 1) or 1)
        if repeats <= 1 or made is None:
            return made
        from lmms_eval.api.instance import Instance

        if self.NOT_REPEATABLE:  # ask once, and say so in the results
            meta = self.config.metadata if isinstance(getattr(self.config, "metadata", None), dict) else {}
            if "repeats_refused" not in meta:
                meta["repeats_refused"] = self.NOT_REPEATABLE
                print(f"gui-eval: {self.config.task}: --repeats {repeats} not applied: {self.NOT_REPEATABLE}", file=sys.stderr)
            repeats = 1
        out = []
        for inst in made if isinstance(made, list) else [made]:
            for k in range(repeats):
                new = Instance(request_type=inst.request_type, arguments=inst.arguments, idx=inst.idx * repeats + k,
                               metadata={**inst.metadata, "repeats": 1})
                new.doc = inst.doc
                out.append(new)
        return out

    def build_all_requests(self, *args: Any, **kwargs: Any) -> None:
        if self.not_run:  # no request at all (lmms-eval refuses a task whose requests are empty; it skips one without)
            self._instances = []
            return None
        return super().build_all_requests(*args, **kwargs)

    def _construct_one(self, doc_id: int, ctx: str, **kwargs: Any):
        if self.interaction == "agentic":  # the task's stop strings (after any --gen_kwargs), which the backend may drop
            self.lmms_eval_specific_kwargs[UNTIL_KEY] = (self.config.generation_kwargs or {}).get("until")
        layout = self.multi_round_layout if self.OUTPUT_TYPE == "generate_until_multi_round" else self.request_layout
        if layout == "chat":
            return ConfigurableMessagesTask.construct_requests(self, doc_id, ctx, **kwargs)
        return ConfigurableTask.construct_requests(self, doc_id, ctx, **kwargs)

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def download(self, dataset_kwargs: dict | None = None) -> None:
        meta = task_metadata(self.config)
        take_skipped()  # start this task's tally of skipped bad rows (opt-in skipping only)
        path = write_rows(self.rows(meta), self.KIND, meta)
        self.DATASET_PATH, self.DATASET_NAME = "json", None
        super().download({**(dataset_kwargs or {}), "data_files": {"test": str(path)}})
        skipped = take_skipped()
        if (skipped or skip_bad_rows(meta)) and isinstance(getattr(self.config, "metadata", None), dict):
            self.config.metadata["bad_rows_skipped"] = skipped  # lands in the results' task config


# --- containment: one fault costs one sample ----------------------------------------------------------------------
# Every step between the outside world and a sample runs contained: a document whose images cannot be decoded, whose
# prompt cannot be written or whose answer cannot be scored becomes a sample carrying a named error (``sample_error``:
# the step and the cause; the document's own id names the sample), scored as an empty answer; the results count them
# (``sample_error,none``). A task whose rows cannot be built at all is stopped (metadata ``not_run`` names why) and
# the run's other tasks go on. lmms-eval 0.7.3 would otherwise end the whole run, writing nothing.
def count_sample_errors(items: list[Any]) -> int:
    """Aggregation of ``sample_error``: how many samples carry one."""
    return sum(1 for x in items if x)


def _unwrapped(method: Any) -> Any:
    """The function behind lmms-eval's tenacity retry (a fault is met again on every retry: five tries, 8 s lost)."""
    return getattr(method, "__wrapped__", method)


def _contain(task: "RowsTask") -> None:
    """Wrap the task's data steps on the instance (subclass overrides included): download, doc_to_visual,
    doc_to_text, doc_to_target and process_results."""
    cls = type(task)
    download, visual = cls.download.__get__(task), _unwrapped(cls.doc_to_visual).__get__(task)
    text, target = _unwrapped(cls.doc_to_text).__get__(task), _unwrapped(cls.doc_to_target).__get__(task)
    results = _unwrapped(cls.process_results).__get__(task)

    def name() -> str:
        return str(getattr(getattr(task, "config", None), "task", None) or cls.__name__)

    def contained_download(dataset_kwargs: dict | None = None) -> None:
        try:
            return download(dataset_kwargs)
        except Exception as exc:  # noqa: BLE001 - whatever stops this task must not stop the run
            task._stopped = describe_fault("its rows could not be built", exc)  # printed once by __init__ (not_run)
            from gui_tasks.harness import lmms_integration

            lmms_integration.note_stopped(name(), task._stopped, exc)
            row = {"id": f"{name()}:not-run", DOC_ERROR: task._stopped}
            path = write_rows([row], "stopped", {"source": name()})
            saved, task.config.process_docs = task.config.process_docs, None
            task.DATASET_PATH, task.DATASET_NAME = "json", None
            try:
                ConfigurableTask.download(task, {**(dataset_kwargs or {}), "data_files": {"test": str(path)}})
            finally:
                task.config.process_docs = saved

    def contained_visual(doc: Any) -> Any:
        if fault_of(name(), doc):
            return []
        try:
            return visual(doc)
        except Exception as exc:  # noqa: BLE001 - a data, device or intervention fault: this sample only
            record(name(), doc, describe_fault("its images (doc_to_visual)", exc))
            return []

    def contained_text(doc: Any, *args: Any, **kwargs: Any) -> Any:
        own = doc.get(DOC_ERROR) if isinstance(doc, Mapping) else None
        if own:
            return f"(document not available: {own})"
        try:
            return text(doc, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            return f"(document not available: {record(name(), doc, describe_fault('its prompt (doc_to_text)', exc))})"

    def contained_target(doc: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(doc, Mapping) and doc.get(DOC_ERROR):  # a stopped task's placeholder: its error is said already
            return ""
        try:
            return target(doc, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            record(name(), doc, describe_fault("its target (doc_to_target)", exc))
            return ""

    def contained_results(doc: Any, outputs: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        error = fault_of(name(), doc)
        if error is None:
            # an answer lmms-eval's --use_cache replayed as plain text gets its side channel back from the backend's run
            # journal, or the run stops naming the metrics it would lose (outside the containment: the run's error)
            outputs = replayed_answers.restore(name(), doc, outputs)
            try:
                values = results(doc, outputs, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - a parser or metric fault: this sample only
                error = record(name(), doc, describe_fault("scoring its answer (process_results)", exc))
            else:
                return values
        try:  # the task's own values for an empty answer (a format error, no credit), so every mean counts the sample
            values = results(doc, [""] * max(1, len(outputs or [])), *args, **kwargs)
        except Exception:  # noqa: BLE001 - the sample then holds only its error
            values = {}
        named = f"document {doc_key(doc)}: "
        return {**values, SAMPLE_ERROR: error if error.startswith(named) else named + error}

    task.download = contained_download
    task.doc_to_visual = contained_visual
    task.doc_to_text = contained_text
    task.doc_to_target = contained_target
    task.process_results = contained_results


def load_image(path: str, *, doc_id: Any = None, field: str = "images") -> Image.Image:
    """Decode a screenshot completely, as RGB, under the pixel bound (``gui_core.images``); a truncated, damaged or
    oversized file is a DataError naming it and the document.

    lmms-eval sets ``PIL.ImageFile.LOAD_TRUNCATED_IMAGES = True`` at import, which makes Pillow pad a
    truncated file with grey and carry on; ``gui_core.images.decode`` refuses it by name. An RGB PNG or JPEG
    decoded as is carries the mark of ``gui_core.image_files`` (its file's bytes may be sent for it).
    """
    try:
        im = decode(path)
    except (ImageRefused, OSError) as exc:
        where = f" (document {doc_id})" if doc_id is not None else ""
        raise DataError(f"image cannot be fully decoded{where}: {exc}", file=str(path), field=field) from exc
    if im.mode != "RGB":
        try:
            return im.convert("RGB")
        finally:
            im.close()
    mark_file_source(im, path)
    return im


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file we wrote (a cache), read with bounds; a damaged line is a DataError naming the file and line."""
    return input_files.read_jsonl(path, hint="delete the file to rebuild it")


def doc_to_visual(doc: Mapping[str, Any]) -> list[Image.Image]:
    """The screenshot(s) of a document (``doc["images"]``: absolute paths), in order, as RGB, fully decoded."""
    return [load_image(p, doc_id=doc.get("id")) for p in doc["images"]]
