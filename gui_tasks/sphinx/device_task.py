"""SPHINX user tasks on an Android phone or emulator through adb (``sphinx_device*``; paper Tables 4, 5, 9).

The official user tasks (``task_info_all.json``, ids below 1001: the public apps) are read from ``$SPHINX_DATA_DIR``;
each runs on a device driven by ``gui_tasks.sphinx.adb.AdbDevice``: the adb executable ``$GUI_EVAL_ADB`` (default
``adb``), the device ``$GUI_EVAL_ADB_SERIALS`` (comma-separated; under ``accelerate launch`` rank r drives serial r,
so a device farm scales the run; empty: adb's only device). Each episode launches its app afresh (the package of the
task's first recorded activity), observes the uiautomator dump, the focused activity and (image modes) a screencap
every step, acts through ``adb shell input``, and is scored by its official ``evaluator.json`` on the live trajectory
(SR: all evaluators satisfied; ACP: the fraction satisfied).

The official runner (``infra/android_env.py``) reinstalls each app and replays a login script before a task; here the
app is force-stopped and launched afresh, so the device's installed apps and accounts are the user's to prepare.

A device holds one state, so the tasks run through lmms-eval's agentic loop (``generate_until_agentic``: one episode
at a time, on every backend). lmms-eval writes every document's first prompt before any model call; so the episode's
first observation is taken then, and when the model's first answer arrives the app is launched afresh again and the
answer is carried out on the element it named in that observation (by its bounds). Episodes are saved under the
run's ``<--output_path>/sphinx_device`` (``gui_core.run_folder``): a killed run, started again with the same
``--output_path``, resumes with the episodes not yet scored (a finished one is re-read, not re-run; lmms-eval still asks
the model for its first round unless a response cache answers it); another run (another model) never reads them.

A missing adb or an unknown or malformed serial leaves the whole task unrun (metadata ``not_run``, no request sent); a
device that drops, an app that is not installed, a package name outside its grammar, or any fault in what the device
returns (a view tree deeper than ``hierarchy.MAX_DEPTH`` or with bounds beyond ``MAX_COORD``, adb output above
``adb.MAX_OUTPUT_BYTES``, a screencap above the pixel bound or truncated) ends that episode as not run, with the
reason in its record (``not_run``), and the SPHINX metrics leave it out; the run's other episodes and tasks go on. Observation modes, renderings and agent families are those of the simulator tasks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from gui_metrics.lmms_bridge import sample_values
from gui_core.run_folder import run_folder
from gui_core.errors import DataError
from gui_core.sample_faults import SAMPLE_ERROR, describe_fault
from gui_tasks.harness.lmms_layout import UNTIL_KEY, pack_rounds, rounds_of
from gui_tasks.harness.lmms_rows import RowsTask
from gui_core.paths import cache_dir
from gui_tasks.sphinx import family_agents, release
from gui_tasks.sphinx.actions import format_action
from gui_tasks.sphinx.adb import AdbDevice, AdbError, AdbObservation, check_name
from gui_tasks.sphinx.evaluator import Step
from gui_tasks.sphinx.hierarchy import DEFAULT_RENDERING, RENDERINGS, Hierarchy, format_bounds
from gui_tasks.sphinx.lmms_task import ON_FORMAT_ERROR, read_output
from gui_tasks.sphinx.navigation import NavTask, trajectory_record
from gui_tasks.sphinx.observation import MODES, TEXT_MODES, render_images, render_text
from gui_tasks.sphinx.prompts import MODE_HEADERS, REACT_PROMPT
from gui_tasks.sphinx.toggle_tasks import ToggleTask

ADB_ENV, SERIALS_ENV = "GUI_EVAL_ADB", "GUI_EVAL_ADB_SERIALS"
# the official runner's limit: run_benchmark.py loops range(env.max_steps), infra/android_env.py AndroidEnv(max_steps=20)
DEVICE_MAX_STEPS = 20
STORE = "sphinx_device"


def adb_path() -> str:
    return os.environ.get(ADB_ENV) or "adb"


def rank() -> int:
    """This process's rank under ``accelerate launch`` / torchrun (0 alone)."""
    for key in ("RANK", "LOCAL_RANK"):
        if os.environ.get(key, "").strip().isdigit():
            return int(os.environ[key])
    return 0


def serial_for(r: int | None = None) -> str | None:
    """The device serial of rank ``r`` from ``$GUI_EVAL_ADB_SERIALS`` (None: adb's only device)."""
    serials = [s.strip() for s in os.environ.get(SERIALS_ENV, "").split(",") if s.strip()]
    if not serials:
        return None
    for s in serials:  # a configuration error: the task is not run (preflight), never a path or a shell word
        check_name("serial", s)
    r = rank() if r is None else r
    if r >= len(serials):
        raise ValueError(f"rank {r} has no device: {SERIALS_ENV} lists {len(serials)} serial(s) ({', '.join(serials)}); "
                         "give one per process")
    return serials[r]


def preflight() -> str | None:
    """Why no episode can run here (adb missing, serial unknown or not ready), or None."""
    adb = adb_path()
    if shutil.which(adb) is None:
        return f"adb not found: {adb!r} (set {ADB_ENV} to the adb executable, or put adb on PATH)"
    try:
        serial = serial_for()
        done = subprocess.run([adb, "devices"], capture_output=True, timeout=60)
    except (ValueError, OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    lines = [ln.split("\t") for ln in done.stdout.decode("utf-8", "replace").splitlines()[1:] if "\t" in ln]
    ready = [s for s, state in lines if state.strip() == "device"]
    if serial is None and len(ready) != 1:
        return f"{len(ready)} ready device(s) ({', '.join(ready) or 'none'}): name one in {SERIALS_ENV}"
    if serial is not None and serial not in ready:
        return f"device {serial!r} is not attached and ready ('{adb} devices' lists {', '.join(ready) or 'none'})"
    return None


_PREFLIGHT: dict[tuple, str | None] = {}


def blocked() -> str | None:
    """``preflight()`` once per adb / serials setting of this process (lmms-eval also writes a first prompt of a task
    it will not run: that must not touch a device either)."""
    key = (adb_path(), os.environ.get(SERIALS_ENV, ""), rank())
    if key not in _PREFLIGHT:
        _PREFLIGHT[key] = preflight()
    return _PREFLIGHT[key]


class SphinxDeviceTask(RowsTask):
    """``sphinx_device*``: the official user tasks on a device (module docstring)."""

    KIND = "sphinx_device"
    METADATA_KEYS = frozenset({"subset", "max_steps", "observation", "rendering", "on_format_error", "agent", "agent_family",
                               "prompt_protocol", "parser_protocol"}) | {"source"}

    CLUSTER_KEY = "episode"  # one document is one episode on the device
    NOT_REPEATABLE = ("a device episode is kept per document (resume store, one device state), so repeats of one "
                      "document would share it; run the task N times with separate GUI_EVAL_CACHE folders instead")

    def cluster_of(self, doc: Mapping[str, Any]) -> Any:
        return doc["id"]

    @classmethod
    def rows(cls, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
        root = release.data_root(meta)
        mode, rendering = str(meta.get("observation", "full_text")), str(meta.get("rendering", DEFAULT_RENDERING))
        if mode not in MODES:
            raise DataError(f"observation must be one of {MODES}, got {mode!r}", file="<task yaml>", field="metadata.observation")
        if rendering not in RENDERINGS:
            raise DataError(f"rendering must be one of {RENDERINGS}, got {rendering!r}", file="<task yaml>", field="metadata.rendering")
        on_error = str(meta.get("on_format_error", "stop"))
        if on_error not in ON_FORMAT_ERROR:
            raise DataError(f"on_format_error must be one of {ON_FORMAT_ERROR}", file="<task yaml>", field="metadata.on_format_error")
        extra: dict[str, Any] = {}
        fam = str(meta.get("agent_family") or "")
        if fam:
            family_agents.check_family(fam)  # an unknown family: UnknownName with did-you-mean (a configuration error)
            if mode != family_agents.OBSERVATION:
                raise DataError(f"agent_family {fam!r} needs observation {family_agents.OBSERVATION!r}", file="<task yaml>",
                                field="metadata.agent_family")
            extra["agent_family"] = fam
        rows = []
        for task, app, folder in release.nav_folders(root):
            acts = release.activities(folder)
            if not acts:
                raise DataError("no activity recorded: the app to launch is unknown", file=str(folder / "activities.json"))
            rows.append({"id": f"{task['id']}/{app}", "task_id": int(task["id"]), "app": app, "instruction": str(task["description"]),
                         "package": acts[0][0], "folder": str(folder), "max_steps": int(meta.get("max_steps", DEVICE_MAX_STEPS)),
                         "observation": mode, "rendering": rendering, "on_format_error": on_error, "agent": "ours", "images": [],
                         **extra})
        return rows

    @classmethod
    def agentic_rounds(cls, meta: Mapping[str, Any]) -> int:
        return int(meta.get("max_steps", DEVICE_MAX_STEPS))

    def __init__(self, *args: Any, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, config=config, **kwargs)  # lmms-eval passes config= only to a constructor naming it
        why = blocked()
        if why and not self.not_run:
            self.not_run = f"no device: {why}; this task was not run, the other tasks of the run are scored as usual"
            print(f"gui-eval: {self.config.task}: {self.not_run}", file=sys.stderr)
            if isinstance(getattr(self.config, "metadata", None), dict):
                self.config.metadata["not_run"] = self.not_run


# --- episodes ---------------------------------------------------------------------------------------------
@dataclass
class Episode:
    """One document's run on the device: the first observation the model saw, then every step carried out."""

    first: AdbObservation | None = None
    first_images: list = field(default_factory=list)
    device: AdbDevice | None = None
    steps: list[Step] = field(default_factory=list)
    taken: list[dict] = field(default_factory=list)
    applied: int = 0
    calls: int = 0
    errors: int = 0
    ended: bool = False
    not_run: str | None = None
    last: AdbObservation | None = None
    last_images: list = field(default_factory=list)
    relaunched: bool = False
    first_prompt: str = ""
    seen: list = field(default_factory=list)  # the observation each action was taken on (screenshots kept by adb)
    saved: dict | None = None  # a finished episode read back on resume


_EPISODES: dict[tuple, Episode] = {}
_LOCK = threading.Lock()


def _key(doc: Mapping[str, Any]) -> tuple:
    return doc["id"], doc["observation"], doc["rendering"], doc.get("agent_family", ""), doc["max_steps"]


def _component(text: str) -> str:
    """``text`` as one safe file-name component: ``/``, ``..``, control and shell characters cannot survive."""
    safe = re.sub(r"[^A-Za-z0-9._-]", lambda m: f"%{ord(m.group()):02x}", text.replace("/", "__"))[:200]
    return safe if safe.strip(".") else f"%2e{safe}"


def _store_path(doc: Mapping[str, Any]) -> Path:
    """This run's record of one episode (``<--output_path>/sphinx_device/...``), always inside that folder."""
    root = run_folder(STORE, cache_dir() / STORE)
    tag = "__".join(str(x) for x in _key(doc)[1:] if x != "")
    path = root / _component(serial_for() or "default") / _component(tag) / (_component(str(doc["id"])) + ".json")
    if not path.resolve().is_relative_to(root.resolve()):  # defence in depth: the components above cannot escape
        raise ValueError(f"episode store path {path} is outside {root}")
    return path


def _size(h: Hierarchy) -> tuple[int, int]:
    tops = [n.box for n in h.nodes if n.parent is None] or [n.box for n in h.nodes]
    return max(b[2] for b in tops), max(b[3] for b in tops)


def _look(ep: Episode, doc: Mapping[str, Any], obs: AdbObservation) -> list:
    """The images of an observation in the document's mode (the screencap is taken now, before any action)."""
    if doc.get("agent_family"):  # the family's earlier screenshots (UI-TARS: four, A.5), then the current one
        keep = family_agents.history_images(doc["agent_family"])
        return [o.screenshot() for o in (ep.seen[-keep:] if keep else [])] + [obs.screenshot()]
    shot = obs.screenshot() if doc["observation"] not in TEXT_MODES else None
    return render_images(shot, obs.hierarchy, doc["observation"], rendering=doc["rendering"])


def _prompt(doc: Mapping[str, Any], ep: Episode, obs: AdbObservation, outputs: Sequence[str]) -> str:
    w, h = _size(obs.hierarchy)
    if doc.get("agent_family"):
        return family_agents.prompt(doc["agent_family"], doc["instruction"], list(outputs), (w, h))
    history = "; ".join(format_action(a) for a in ep.taken) or "none"
    body = render_text(obs.hierarchy, doc["observation"], rendering=doc["rendering"])
    return REACT_PROMPT.format(goal=doc["instruction"], step=len(ep.taken) + 1, max_steps=doc["max_steps"], history=history,
                               header=MODE_HEADERS[doc["observation"]].format(w=w, h=h), observation=body)


class _Seen:
    """An observation as ``read_output`` reads it: the hierarchy, carrying the screen size (``lmms_task._size``)."""

    def __init__(self, obs: AdbObservation) -> None:
        self.hierarchy = Hierarchy(obs.hierarchy.nodes, _size(obs.hierarchy))


def _device_action(doc: Mapping[str, Any], act: Mapping[str, Any], seen: AdbObservation) -> dict[str, Any]:
    """An agent's action on the observation it saw, with an element id turned into that element's bounds."""
    out = dict(act)
    if "index" in out:
        ids = seen.hierarchy.element_ids(doc["rendering"])
        i = out.pop("index")
        out["element"] = format_bounds(seen.hierarchy.nodes[ids[i]].box) if isinstance(i, int) and 0 <= i < len(ids) else "[-1,-1][-1,-1]"
    return out


def _eval_action(doc: Mapping[str, Any], act: Mapping[str, Any], seen: AdbObservation) -> dict[str, Any]:
    """The action in the evaluator's form (``navigation.eval_action`` on a device): the view it touched on the
    screen the agent saw, its point, its text."""
    t = str(act.get("type", ""))
    out: dict[str, Any] = {"action_type": "input" if t == "text" else t}
    if act.get("text") is not None:
        out["message"] = str(act["text"])
    where = AdbDevice.locate(seen.hierarchy, act, doc["rendering"])
    if where is not None and t in ("click", "longclick", "text", "swipe"):
        node = seen.hierarchy.at(*where)
        if node is not None:
            out["element"] = dict(node.attrib)
        if "point" in act:
            out["coords"] = [tuple(act["point"])] + ([tuple(act["to"])] if "to" in act else [])
    return out


def _start(doc: Mapping[str, Any]) -> Episode:
    ep = Episode()
    saved = _store_path(doc)
    if saved.is_file():  # resume: a finished episode is read back, the device is not touched
        data = release.read_json(saved)
        if isinstance(data, dict) and "record" in data:
            ep.saved, ep.ended = data, True
            return ep
    why = blocked()
    if why:
        ep.not_run, ep.ended = f"no device: {why}", True
        return ep
    try:
        ep.device = AdbDevice(serial_for(), adb_path(), rendering=doc["rendering"])
        ep.first = ep.device.reset({"package": doc["package"]})
        ep.first_images = _look(ep, doc, ep.first)
    except Exception as exc:  # noqa: BLE001 - any device fault (adb, its XML, its screencap) ends this episode only
        ep.not_run, ep.ended = _reason(doc, exc), True
    return ep


def _reason(doc: Mapping[str, Any], exc: Exception) -> str:
    text = str(exc)
    if "monkey aborted" in text or "No activities found" in text:
        return f"app {doc['package']!r} is not installed on the device: {text}"
    if isinstance(exc, (AdbError, DataError)):
        return f"device error: {text}"
    return "device error: " + describe_fault("episode " + str(doc.get("id")), exc)


def episode(doc: Mapping[str, Any]) -> Episode:
    with _LOCK:
        ep = _EPISODES.get(_key(doc))
        if ep is None:
            ep = _EPISODES[_key(doc)] = _start(doc)
        return ep


def doc_to_visual(doc: Mapping[str, Any]) -> list:
    ep = episode(doc)
    return list(ep.first_images)


def _advance(doc: Mapping[str, Any], ep: Episode, outputs: Sequence[str]) -> None:
    """Carry out the outputs not yet applied, on the device."""
    for text in outputs[ep.applied:]:
        ep.applied += 1
        if ep.ended:
            continue
        seen = ep.last or ep.first
        try:
            if not ep.relaunched:  # the first answer: the app afresh, as when its first prompt was written
                ep.relaunched = True
                live = ep.device.reset({"package": doc["package"]})
            else:
                live = seen
            ep.calls += 1
            status, act = read_output(doc, text, _Seen(seen))
            if status != "parsed" or act is None:
                ep.errors += 1
                if doc["on_format_error"] == "stop":
                    ep.steps.append(Step(live.hierarchy, live.activity, {"action_type": "stop", "reason": "format_error"}))
                    ep.ended = True
                continue
            dev_act = _device_action(doc, act, seen)
            ep.steps.append(Step(live.hierarchy, live.activity, _eval_action(doc, dev_act, seen)))
            ep.taken.append(dict(act))
            ep.seen.append(seen)
            if act["type"] == "stop":
                ep.ended = True
                continue
            ep.last = ep.device.act(dev_act)
            ep.last_images = _look(ep, doc, ep.last)
            if ep.calls >= doc["max_steps"]:
                ep.steps.append(Step(ep.last.hierarchy, ep.last.activity, {"action_type": "stop", "reason": "step_limit"}))
                ep.ended = True
        except Exception as exc:  # noqa: BLE001 - any device fault ends this episode only, named in its record
            ep.not_run, ep.ended = _reason(doc, exc), True


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Any = None, previous_output: Sequence[str] | None = None,
                round_idx: int | None = None, **_: Any):
    """Round 0 (lmms-eval writes it before any model call): the first observation's prompt. Later rounds: carry out the
    last answer on the device, then ``(visuals, text, terminal, outputs, info)``; the terminal round appends
    ``pack_rounds`` (lmms-eval's agentic loop keeps only its last output)."""
    ep = episode(doc)
    if round_idx is None:
        if ep.saved is not None:
            return str(ep.saved.get("first_prompt", doc["instruction"]))
        if ep.first is None:
            return f"{doc['instruction']}\n(the device could not be reached: {ep.not_run})"
        if not ep.first_prompt:
            ep.first_prompt = _prompt(doc, ep, ep.first, [])
        return ep.first_prompt
    kwargs = lmms_eval_specific_kwargs if isinstance(lmms_eval_specific_kwargs, Mapping) else {}
    from gui_models.generation_core import cut_at_stops

    outs = [cut_at_stops(str(o), kwargs.get(UNTIL_KEY)) for o in (previous_output or [])]
    if ep.saved is not None:
        stored = [str(o) for o in ep.saved.get("outputs", [])]
        return [], "", True, [*stored, pack_rounds(stored)], None
    _advance(doc, ep, outs)
    terminal = ep.ended or ep.calls >= doc["max_steps"]
    if terminal:
        return [], "", True, [*outs, pack_rounds(outs)], None
    obs = ep.last or ep.first
    return list(ep.last_images), _prompt(doc, ep, obs, outs), False, outs, None


def doc_to_target(doc: Mapping[str, Any]) -> str:
    return doc["id"]


def process_results(doc: Mapping[str, Any], results: list[Any]) -> dict[str, Any]:
    outs = rounds_of(results)
    ep = episode(doc)
    if ep.saved is not None:
        return sample_values({"trajectory"}, ep.saved["record"])
    base = {"id": doc["id"], "app": doc["app"], "observation": doc["observation"], "rendering": doc["rendering"],
            "agent": "ours", "interaction": "agentic", "device": serial_for() or "default"}
    if doc.get("agent_family"):
        base["agent_family"] = doc["agent_family"]
    if ep.not_run is not None:
        rec = {**base, "not_run": ep.not_run, "satisfied": [], "n_actions": 0, "format_errors": 0}
    else:
        steps = list(ep.steps)
        if not steps or steps[-1].action.get("action_type") != "stop":
            obs = ep.last or ep.first
            steps.append(Step(obs.hierarchy, obs.activity, {"action_type": "stop", "reason": "step_limit"}))
        evaluators = tuple(release.evaluators_of(Path(doc["folder"])))
        rec = {**base, **trajectory_record(NavTask(ToggleTask(str(doc["id"]), doc["instruction"], {}, ()), evaluators), steps,
                                           format_errors=ep.errors)}
        rec["steps"] = [{"activity": list(s.activity), "action": s.action} for s in steps]
    if ep.not_run is not None:  # not stored (tried again on resume); its cause is the sample's named error
        return {**sample_values({"trajectory"}, rec), SAMPLE_ERROR: f"document {doc['id']}: {ep.not_run}"}
    path = _store_path(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    first = ep.first_prompt or doc["instruction"]
    tmp.write_text(json.dumps({"id": doc["id"], "outputs": outs, "record": rec, "first_prompt": first}, default=list), encoding="utf-8")
    os.replace(tmp, path)
    return sample_values({"trajectory"}, rec)
