"""The run journal of ``gui_hf`` and ``gui_wrap``: every finished answer, kept as it finishes, so a long run resumes.

A backend's ``generate_until`` hands its requests to :meth:`RunJournal.run`: the answers the journal holds come back
from it (as the backend returned them: text, digit capture in the key-digit form scoring reads, every extra, the
sample's named error, the prompt sent), only the missing requests go to the model, and each new answer is appended
to the journal the moment it is final. The same command run again (or any run with model arg ``resume=FOLDER``)
therefore sends only what is missing and says so in one line: ``gui_hf: resumed: K of N answers from FOLDER``.

Files: one append-only JSONL file per rank, ``rank<r>.jsonl``, in the journal folder. Line 1 is the header (format and
settings); every other line is one answer, written with one ``write`` on an ``O_APPEND`` descriptor and ``fsync``-ed,
so a killed run leaves at most a torn last line, which reading skips (and the next append starts on a fresh line).
Every rank reads every rank's file, so a resumed run may use another number of processes.

Where: ``resume=FOLDER``; else, with lmms-eval's ``--use_cache CACHE``, ``CACHE/gui-eval-journal/<backend>-<settings
digest>`` (the journal travels with the cache it completes: ``gui_core.replayed_answers``); else
``<--output_path>/<backend>-journal`` (``gui_core.run_folder``); else (no ``--output_path``, or a process that is not
an lmms-eval run, such as a script building the backend itself) and with ``resume=none``: no journal.

Settings: the header records what decides an answer: the checkpoint (its content fingerprint,
``gui_core.checkpoint_fingerprint``, or the hub id), dtype, generation settings, interventions and their parameters,
the thinking switch, the capture mode. A journal written with other settings is refused, naming each setting that
differs; its answers are never mixed in. An answer is keyed by its task, split, document id, prompt and the task's
generation kwargs, so a changed prompt or budget is a new answer, not a replayed one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from gui_core.errors import ConfigError
from gui_core.logit_capture import (CapturedResponse, capture_of, extras_of, key_digit_capture, key_digits_from_json,
                                    key_digits_json)

FORMAT = "gui-eval-run-journal-v1"
OFF = ("none", "off", "false", "0")
CAPTURE_METRICS = "capture_logits=digits: PSS (pss_mean and every pss_* figure) and perplexity_mean"
Done = Callable[[int, Any], None]
"""``done(i, answer)``: the backend's answer to the i-th request it was given is final."""


def say_resumed(owner: str, reused: int, total: int, where: Any) -> None:
    """The one line a resumed run prints (on stderr, where lmms-eval logs): ``<owner>: resumed: K of N answers from X``."""
    print(f"{owner}: resumed: {reused} of {total} answers from {where}", file=sys.stderr, flush=True)


def settings_digest(settings: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()[:12]


def journal_folder(owner: str, settings: Mapping[str, Any], resume: Any, argv: Sequence[str] | None = None) -> Path | None:
    """The journal folder (module docstring: Where), or None for ``resume=none``."""
    from gui_core.run_folder import argv_option, is_lmms_eval_cli, output_path

    if resume is not None and str(resume).strip():
        return None if str(resume).strip().lower() in OFF else Path(str(resume)).expanduser()
    argv = sys.argv if argv is None else argv
    cache = argv_option(argv, "--use_cache") if is_lmms_eval_cli(argv) else None
    if cache:
        root = Path(cache).expanduser()
        root = root.parent if root.suffix == ".db" else root  # lmms-eval takes a cache.db path as its folder too
        return root / "gui-eval-journal" / f"{owner}-{settings_digest(settings)}"
    out = output_path(argv)  # None when this process is no lmms-eval run with --output_path: no command to run again
    return out / f"{owner}-journal" if out is not None else None


def request_key(args: Sequence[Any]) -> dict[str, Any]:
    """What an answer is the answer to: task, split, document id, the prompt as the task wrote it, generation kwargs.

    Either lmms-eval layout (simple, chat, multi-round) starts with the context string, ends with
    ``(doc_id, task, split)`` and holds one dict, the generation kwargs."""
    gen = next((a for a in args if isinstance(a, dict)), {})
    doc_id, task, split = args[-3:]
    return {"task": str(task), "split": str(split), "doc_id": int(doc_id), "prompt": str(args[0]),
            "gen_kwargs": json.dumps(gen, sort_keys=True, default=str)}


def key_of(args: Sequence[Any]) -> str:
    return hashlib.sha256(json.dumps(request_key(args), sort_keys=True).encode()).hexdigest()


def _json_safe(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def encode_answer(answer: Any) -> Any:
    """An answer as JSON: a plain text, or ``{"text", "capture", "extras"}`` (capture in the key-digit form scoring
    reads, ``gui_core.logit_capture``), or a list of those (multi-round)."""
    if isinstance(answer, list):
        return [encode_answer(a) for a in answer]
    text = str(getattr(answer, "text", answer))  # lmms-eval's GenerationResult carries its text as .text
    capture, extras = capture_of(answer), extras_of(answer)
    if capture is None and not extras:
        return text
    return {"text": text, "capture": key_digits_json(key_digit_capture(capture, text)) if capture is not None else None,
            "extras": _json_safe(extras) if extras else None}


def decode_answer(data: Any) -> Any:
    """:func:`encode_answer` undone: the text, or a ``CapturedResponse`` carrying the capture and extras."""
    if isinstance(data, list):
        return [decode_answer(a) for a in data]
    if isinstance(data, str):
        return data
    text = str(data.get("text", ""))
    capture = key_digits_from_json(data["capture"], text) if data.get("capture") else None
    return CapturedResponse(text, capture, data.get("extras") or None)


def differing(recorded: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """Each setting that differs, in words: ``name (journal X, now Y)``."""
    out = []
    for name in sorted(set(recorded) | set(now)):
        a, b = recorded.get(name), now.get(name)
        if json.dumps(a, sort_keys=True, default=str) != json.dumps(b, sort_keys=True, default=str):
            out.append(f"{name} (journal {_short(a)}, now {_short(b)})")
    return out


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


class RunJournal:
    """One backend's journal: the answers read from every rank's file, and this rank's file to append to."""

    def __init__(self, folder: Path, owner: str, settings: Mapping[str, Any], rank: int = 0) -> None:
        self.folder, self.owner, self.rank = Path(folder), owner, int(rank)
        self.settings = _json_safe(dict(settings))
        self.path = self.folder / f"rank{self.rank}.jsonl"
        self._lock = threading.Lock()
        self.entries: dict[str, dict[str, Any]] = {}
        self._by_doc: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.torn = 0
        for path in sorted(self.folder.glob("rank*.jsonl")) if self.folder.is_dir() else []:
            self._read(path)
        self._fd: int | None = None

    def _read(self, path: Path) -> None:
        lines = path.read_bytes().split(b"\n")
        try:
            header = json.loads(lines[0]) if lines[0].strip() else None
        except ValueError:
            header = None
        if header is None and sum(1 for line in lines if line.strip()) <= 1:
            return  # a rank killed while it wrote its header: no answer in it
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ConfigError(f"{self.owner}: {path} is not a run journal of this version ({FORMAT}); give another "
                              "folder with resume=FOLDER, or resume=none")
        diff = differing(header.get("settings") or {}, self.settings)
        if diff:
            raise ConfigError(f"{self.owner}: the run journal {path} was written with other settings: "
                              f"{'; '.join(diff)}. Its answers are not mixed into this run: run with the journal's "
                              "settings, or give another folder with resume=FOLDER (or another --output_path), or "
                              "resume=none (docs/running.md, 'Resume a long run')")
        for line in lines[1:]:
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:  # a line torn by a killed run: that answer is made again
                self.torn += 1
                continue
            if isinstance(entry, dict) and "key" in entry and "answer" in entry:
                self._index(entry)

    def _index(self, entry: dict[str, Any]) -> None:
        self.entries[entry["key"]] = entry
        self._by_doc.setdefault((str(entry.get("task")), str(entry.get("doc"))), []).append(entry)

    # --- writing ---------------------------------------------------------------------------------

    def _open(self) -> int:
        if self._fd is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            fresh = not self.path.exists() or not _has_header(self.path)  # none, or torn by a kill (no answer in it)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | (os.O_TRUNC if fresh else 0), 0o644)
            if fresh:
                os.write(fd, (json.dumps({"format": FORMAT, "owner": self.owner, "settings": self.settings},
                                         sort_keys=True) + "\n").encode())
            else:
                with self.path.open("rb") as fh:  # a torn last line: the next line starts on its own
                    fh.seek(-1, os.SEEK_END)
                    if fh.read(1) != b"\n":
                        os.write(fd, b"\n")
            self._fd = fd
        return self._fd

    def write(self, args: Sequence[Any], answer: Any, doc: Any = None, sent: str | None = None) -> None:
        """Append the final ``answer`` to the request with arguments ``args`` (one line, written and synced at once)."""
        from gui_core.sample_faults import doc_key, fault_of

        req = request_key(args)
        doc = doc if doc is not None else {"id": req["doc_id"]}
        entry = {"key": key_of(args), "task": req["task"], "split": req["split"], "doc_id": req["doc_id"],
                 "doc": doc_key(doc), "answer": encode_answer(answer), "fault": fault_of(req["task"], doc),
                 "sent": sent}
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode()
        with self._lock:
            fd = self._open()
            os.write(fd, line)
            os.fsync(fd)
            self._index(entry)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    # --- reading -------------------------------------------------------------------------------

    def lookup(self, task: str, doc: str, text: str) -> Any:
        """The journal's answer for document ``doc`` of ``task`` whose text is ``text`` (single-round), or None."""
        with self._lock:
            found = list(self._by_doc.get((task, doc), ()))
        for entry in reversed(found):
            answer = entry["answer"]
            if not isinstance(answer, list) and str(answer if isinstance(answer, str) else answer.get("text")) == text:
                return decode_answer(answer)
        return None

    def run(self, requests: Sequence[Any], fresh: Callable[[list[Any], Done], list[Any]],
            task_dict: Mapping[str, Any] | None = None) -> list[Any]:
        """Answers to ``requests`` (lmms-eval ``Instance``s) in order: the journal's, and ``fresh(missing, done)`` for the
        rest; ``fresh`` calls ``done(i, answer)`` as each of its answers is final, and that answer is written then."""
        from gui_core.reasoning import note, note_from_extras  # a thinking model's reading, kept as when live
        from gui_core.sample_faults import record

        keys = [key_of(tuple(r.args)) for r in requests]
        out: list[Any] = [None] * len(requests)
        missing: list[int] = []
        for i, (r, key) in enumerate(zip(requests, keys)):
            entry = self.entries.get(key)
            if entry is None:
                missing.append(i)
                continue
            out[i] = decode_answer(entry["answer"])
            note(entry["task"], _doc(task_dict, r.args) or {"id": entry["doc_id"]}, note_from_extras(extras_of(out[i])))
            if entry.get("sent") is not None and tuple(r.args)[0] != entry["sent"]:
                r.arguments = (entry["sent"],) + tuple(r.args)[1:]  # the samples log shows the prompt sent, as live
            if entry.get("fault"):
                record(entry["task"], _doc(task_dict, r.args) or {"id": entry["doc_id"]}, entry["fault"])
        reused = len(requests) - len(missing)
        if reused or self.entries:
            say_resumed(self.owner, reused, len(requests), f"{self.folder}" + (f" ({self.torn} torn line(s) skipped)"
                                                                               if self.torn else ""))
        if not missing:
            return out
        todo = [requests[i] for i in missing]
        originals = [tuple(r.args) for r in todo]  # the key is the prompt as the task wrote it (before record_sent_prompt)

        def done(j: int, answer: Any) -> None:
            r = todo[j]
            sent = str(tuple(r.args)[0]) if tuple(r.args)[0] != originals[j][0] else None
            self.write(originals[j], answer, _doc(task_dict, originals[j]), sent)

        answers = fresh(todo, done)
        for j, answer in zip(missing, answers):
            out[j] = answer
        return out


def _has_header(path: Path) -> bool:
    with path.open("rb") as fh:
        first = fh.readline()
    try:
        return json.loads(first).get("format") == FORMAT
    except (ValueError, AttributeError):
        return False


def _doc(task_dict: Mapping[str, Any] | None, args: Sequence[Any]) -> Any:
    doc_id, task, split = tuple(args)[-3:]
    try:
        return task_dict[task][split][doc_id] if task_dict and task in task_dict else None
    except Exception:  # noqa: BLE001 - the document key then falls back to the id
        return None


def open_journal(owner: str, settings: Mapping[str, Any], resume: Any, rank: int = 0,
                 capture: str = "none") -> RunJournal | None:
    """The backend's journal (None for ``resume=none``); with lmms-eval's ``--use_cache`` it is also the source that
    gives replayed answers their side channel back (``gui_core.replayed_answers``)."""
    from gui_core import replayed_answers
    from gui_core.run_folder import argv_option, is_lmms_eval_cli

    argv = sys.argv
    cached = is_lmms_eval_cli(argv) and bool(argv_option(argv, "--use_cache"))
    lost = CAPTURE_METRICS if capture == "digits" else None
    folder = journal_folder(owner, settings, resume)
    if folder is None:
        if cached and lost:
            raise ConfigError(f"{owner}: --use_cache replays answers as plain text and resume=none keeps no run journal "
                              f"to give them their digit capture back: {lost} would be lost for every replayed answer. "
                              "Drop resume=none (the journal carries the capture) or drop --use_cache")
        return None
    journal = RunJournal(folder, owner, settings, rank)
    if cached:
        replayed_answers.register(replayed_answers.Source(owner, journal.lookup, str(folder), lost))
    return journal


def checkpoint_identity(pretrained: Any) -> Any:
    """The checkpoint as the settings record it: a local folder's content fingerprint, else the hub id."""
    from gui_core.checkpoint_fingerprint import checkpoint_fingerprint

    found = checkpoint_fingerprint(str(pretrained)) if pretrained else None
    return found["fingerprint"] if found else (str(pretrained) if pretrained else None)
