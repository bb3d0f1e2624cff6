"""One fault costs one sample (issue 37): hostile devices, data files and servers never take down a run.

Each hostile case runs as a real lmms-eval run beside the healthy ``mpr_gui_synth_en``; the healthy task's results
must be complete and the hostile documents' samples must carry a named error. Hostile inputs: an adb executable on
disk (``tests/fake_adb.py`` with ``$FAKE_ADB_HOSTILE``), data-file fixtures built here, an HTTP server on 127.0.0.1
(``tests/fake_openai.py``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_adb import bomb_png
from PIL import Image
from test_sphinx_device import calls

from gui_core.images import ImageRefused, decode, image_size

FIX = Path(__file__).parent / "fixtures"
INJECTED = "com.sim.launcher;touch /sdcard/PWNED;reboot"


def truncated_png(path: Path, size: tuple[int, int] = (400, 250)) -> Path:
    Image.effect_noise(size, 64).convert("RGB").save(path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return path


def hostile_screenspot_pro(root: Path) -> Path:
    """The ScreenSpot-Pro fixture with shot 1 a 65-byte PNG claiming 100000 x 100000 pixels and shot 2 cut in half."""
    shutil.copytree(FIX / "screenspot_pro", root)
    (root / "images" / "vscode_macos" / "shot_1.png").write_bytes(bomb_png())
    truncated_png(root / "images" / "vscode_macos" / "shot_2.png")
    return root


# --- the one decoder ------------------------------------------------------------------------------------------
def test_a_bomb_header_is_refused_before_any_pixel_is_allocated():
    data = bomb_png(100000, 100000)
    assert len(data) < 70
    with pytest.raises(ImageRefused, match="too many pixels"):
        image_size(data)
    with pytest.raises(ImageRefused, match=r"9000 x 9000 pixels: above the bound of 67108864"):
        decode(bomb_png(9000, 9000))  # under Pillow's own limit, above ours


def test_a_truncated_png_is_refused_by_name_whatever_lmms_eval_set(tmp_path):
    import lmms_eval.utils  # noqa: F401 - sets PIL.ImageFile.LOAD_TRUNCATED_IMAGES = True, as in a run
    from PIL import ImageFile

    cut = truncated_png(tmp_path / "cut.png")
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True
    with pytest.raises(ImageRefused, match=r"truncated PNG \(no IEND chunk at the end\)"):
        decode(cut)
    with pytest.raises(ImageRefused, match="truncated PNG"):
        decode(cut.read_bytes())
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True


def test_data_check_lists_the_bomb_and_the_truncated_screenshot_rows(tmp_path):
    from gui_tasks.grounding.screenspot import data_check_pro

    check = data_check_pro(hostile_screenspot_pro(tmp_path / "pro"))
    check.decode_images()  # as `gui-eval data check` does
    messages = [str(e) for e in check.errors]
    assert len(messages) == 2 and not check.ok
    assert "shot_1.png" in messages[0] and "too many pixels" in messages[0] and "vscode_macos_1" in messages[0]
    assert "shot_2.png" in messages[1] and "truncated PNG" in messages[1] and "vscode_macos_2" in messages[1]


def test_gui_eval_data_check_prints_the_rows_not_a_traceback(tmp_path, capsys):
    from gui_tasks.commands.cli import main

    root = hostile_screenspot_pro(tmp_path / "pro")
    assert main(["data", "check", "screenspot_pro", str(root)]) != 0
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "shot_1.png" in out and "too many pixels" in out and "truncated PNG" in out


# --- device names and the episode store ------------------------------------------------------------------------
@pytest.mark.parametrize("serial", ["../../../x", "emu 1", "a;reboot", "x/y", ".hidden", ""])
def test_a_serial_outside_adbs_grammar_is_a_configuration_error(serial, monkeypatch):
    from gui_tasks.sphinx import device_task

    monkeypatch.setenv(device_task.SERIALS_ENV, serial + ",emulator-5554" if serial else ",")
    if not serial:
        assert device_task.serial_for(0) is None
        return
    with pytest.raises(ValueError, match="not a valid Android serial"):
        device_task.serial_for(0)


def test_the_episode_store_stays_inside_its_folder_for_any_id(tmp_path, monkeypatch):
    from gui_tasks.sphinx import device_task

    monkeypatch.setenv("GUI_EVAL_RUN_DIR", str(tmp_path / "run"))
    monkeypatch.setenv(device_task.SERIALS_ENV, "192.168.1.2:5555")
    for did in ["../../../x", "..", "/etc/passwd", "a/../../b", "x;rm -rf ~"]:
        doc = {"id": did, "observation": "som", "rendering": "official", "max_steps": 3}
        path = device_task._store_path(doc)
        assert path.resolve().is_relative_to((tmp_path / "run" / "sphinx_device").resolve()), did
        assert path.parent.parent.name == "192.168.1.2%3a5555"  # one safe component


def test_adb_output_is_read_under_its_byte_bound(tmp_path):
    import sys

    from gui_tasks.sphinx.adb import AdbError, bounded_run

    argv = [sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'x' * 3_000_000)"]
    assert len(bounded_run(argv, timeout=60).stdout) == 3_000_000
    with pytest.raises(AdbError, match="output larger than 1000000 bytes; refused"):
        bounded_run(argv, timeout=60, max_bytes=1_000_000)


def hostile_sphinx_corpus(root: Path) -> Path:
    """The synthetic SPHINX corpus with task 6's first package a shell injection (its ``activities.json``)."""
    from gui_tasks.sphinx import synth

    shutil.copytree(synth.load_or_build(0), root)
    acts = root / "groundtruth" / "6" / "sim" / "activities.json"
    data = json.loads(acts.read_text())
    data[0][0] = INJECTED
    acts.write_text(json.dumps(data))
    return root


# --- two lmms-eval runs, each beside the healthy task, shared by the end-to-end checks below -------------------------
@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory, session_cache):
    """Run A (lmms-eval's ``openai`` backend, model m1): hostile ScreenSpot-Pro copy + hostile adb + the healthy
    ``mpr_gui_synth_en`` + ``sphinx_sim_toggle``. Run B (``gui_openai``, model m2) against a server that cuts one HTTP
    200 body and answers one request with a tool call only: ``mpr_gui_synth_en`` + ``icon_localization_synth`` +
    ``sphinx_sim_toggle``. Each into its own ``--output_path``."""
    import stat
    import subprocess
    import sys

    from conftest import lmms_subprocess_env
    from fake_openai import FakeServer
    from lmms_helpers import run_openai

    tmp = tmp_path_factory.mktemp("hostile")
    exe = tmp / "bin" / "adb"
    exe.parent.mkdir()
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).with_name("fake_adb.py")}" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    adb = {"GUI_EVAL_ADB": str(exe), "GUI_EVAL_ADB_SERIALS": "emulator-5554", "FAKE_ADB_SERIALS": "emulator-5554",
           "FAKE_ADB_STATE": str(tmp / "adb_state.json"), "FAKE_ADB_LOG": str(tmp / "adb_log.jsonl"),
           # observation k = the k-th uiautomator dump and the screencap after it; episode k meets fault k
           "FAKE_ADB_HOSTILE": "deep,bounds,huge,bomb,cut"}
    env = {**lmms_subprocess_env(session_cache), **adb, "OPENAI_API_KEY": "EMPTY",
           "SCREENSPOT_PRO_DATA_DIR": str(hostile_screenspot_pro(tmp / "pro")),
           "SPHINX_DATA_DIR": str(hostile_sphinx_corpus(tmp / "sphinx")),
           "SCREENSPOT_V2_DATA_DIR": str(tmp / "no-such-copy")}  # a task whose rows cannot be built: stopped
    out = {"a": tmp / "run_a", "b": tmp / "run_b"}
    shared = [Path(env["GUI_EVAL_CACHE"]) / name for name in ("sphinx_trajectories", "sphinx_device")]
    before = {p for folder in shared for p in folder.rglob("*.json")}
    server = FakeServer(["ok"], text="B")
    try:
        _proc, log_a = run_openai(server.base_url, "gui_screenspot_pro,sphinx_device_som,mpr_gui_synth_en,sphinx_sim_toggle,"
                                  "gui_screenspot_v2", out["a"], env, "--limit", "6")
    finally:
        server.stop()
    hostile = FakeServer(["truncated", "toolcall", "ok"], text="Action: press [stop]")
    args = f"base_url={hostile.base_url},model=m2,response_cache=none,concurrency=1,timeout=10"
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "gui_openai", "--model_args", args, "--tasks",
           "mpr_gui_synth_en,icon_localization_synth,sphinx_sim_toggle", "--limit", "3", "--output_path", str(out["b"]),
           "--log_samples", "--verbosity", "WARNING"]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    finally:
        hostile.stop()
    # what the two runs wrote into the shared cache's per-task folders (nothing: their files live with each run)
    shared_new = {p for folder in shared for p in folder.rglob("*.json")} - before
    return {"out": out, "log": {"a": log_a, "b": proc.stdout + proc.stderr}, "adb_log": Path(adb["FAKE_ADB_LOG"]),
            "server_b_hits": hostile.hits, "shared_new": shared_new}


@pytest.mark.slow
def test_hostile_data_costs_one_sample_each_and_the_run_goes_on(hostile_runs):
    from lmms_helpers import results, samples

    out, log = hostile_runs["out"]["a"], hostile_runs["log"]["a"]
    res = results(out)
    assert "Traceback" not in log, log[-3000:]
    # the healthy task is complete
    assert res["results"]["mpr_gui_synth_en"]["mcq_acc,none"] is not None and len(samples(out, "mpr_gui_synth_en")) == 6
    # the bomb and the truncated screenshot are two samples with a named error; the third is scored
    pro = {s["doc_id"]: s for s in samples(out, "gui_screenspot_pro")}
    assert pro[1]["sample_error"].startswith("document screenspot_pro-vscode_macos_1: ")
    assert "too many pixels" in pro[1]["sample_error"] and "shot_1.png" in pro[1]["sample_error"]
    assert pro[2]["sample_error"].startswith("document screenspot_pro-vscode_macos_2: its images (doc_to_visual): ")
    assert "truncated PNG" in pro[2]["sample_error"] and "sample_error" not in pro[0]
    assert pro[1]["grounding_acc"]["correct"] is False  # scored as an empty answer
    assert res["results"]["gui_screenspot_pro"]["sample_error,none"] == 2


@pytest.mark.slow
def test_a_task_whose_rows_cannot_be_built_is_stopped_and_the_others_run(hostile_runs):
    from lmms_helpers import results

    res = results(hostile_runs["out"]["a"])
    why = res["configs"]["gui_screenspot_v2"]["metadata"]["not_run"]
    assert why.startswith("its rows could not be built: DataError: ") and "no-such-copy" in why and "not a directory" in why
    log = hostile_runs["log"]["a"]
    assert "the tasks below did not run (the run's other tasks did)" in log
    assert log.count("gui-eval: task gui_screenspot_v2 did not run") == 1  # the log's short list says it once
    assert "doc_to_target" not in log  # a task that never built has no target to fail on
    assert res["results"]["mpr_gui_synth_en"]["mcq_acc,none"] is not None


@pytest.mark.slow
def test_a_hostile_device_costs_one_episode_each_and_the_run_goes_on(hostile_runs):
    from lmms_helpers import results, samples

    out = hostile_runs["out"]["a"]
    res = results(out)
    eps = {s["sphinx_sr"]["id"]: s["sphinx_sr"] for s in samples(out, "sphinx_device_som")}
    why = {k: v.get("not_run", "") for k, v in eps.items()}
    assert "deeper than 256 levels" in why["1/sim"]
    assert "beyond +-1048576 pixels" in why["2/sim"]
    assert "output larger than" in why["3/sim"]
    assert "screencap refused" in why["4/sim"] and "too many pixels" in why["4/sim"]
    assert "screencap refused" in why["5/sim"] and "truncated PNG" in why["5/sim"]
    assert "is not a valid Android package name" in why["6/sim"]
    assert not [c for c in calls({"FAKE_ADB_LOG": str(hostile_runs["adb_log"])}) if any("PWNED" in a for a in c)]
    assert res["results"]["sphinx_device_som"]["sample_error,none"] == 6
    assert all(s["sample_error"].startswith(f"document {s['sphinx_sr']['id']}: device error")
               for s in samples(out, "sphinx_device_som"))
    assert not hostile_runs["shared_new"]  # episode records live with the run (not-run ones are not stored)
    assert res["results"]["mpr_gui_synth_en"]["mcq_acc,none"] is not None


@pytest.mark.slow
def test_a_hostile_server_costs_one_sample_and_the_run_goes_on(hostile_runs):
    """gui_openai: one cut HTTP 200 body (retried) and one tool-call-only answer (one sample, named)."""
    from lmms_helpers import results, samples

    out, log = hostile_runs["out"]["b"], hostile_runs["log"]["b"]
    res = results(out)
    tasks = ("mpr_gui_synth_en", "icon_localization_synth", "sphinx_sim_toggle")
    # 9 samples (each toggle episode stops at once) + the retry of the cut body
    assert "Traceback" not in log and hostile_runs["server_b_hits"] == 10, log[-3000:]
    rows = [r for t in tasks for r in samples(out, t)]
    named = [r["sample_error"] for r in rows if "sample_error" in r]
    assert len(rows) == 9 and len(named) == 1 and "1 tool call(s) (click) and no text" in named[0]
    assert sum(res["results"][t].get("sample_error,none", 0) for t in tasks) == 1
    assert res["results"]["mpr_gui_synth_en"]["mcq_acc,none"] is not None


@pytest.mark.slow
def test_two_runs_keep_their_own_trajectories_and_each_report_shows_its_own(hostile_runs, tmp_path):
    from gui_tasks.sphinx.report import main as report

    a, b = hostile_runs["out"]["a"], hostile_runs["out"]["b"]
    files = {k: sorted(p.name for p in (run / "sphinx_trajectories").glob("*.json")) for k, run in (("a", a), ("b", b))}
    assert len(files["a"]) == 6 and len(files["b"]) == 3 and set(files["b"]) <= set(files["a"])
    assert not hostile_runs["shared_new"]  # never a shared folder keyed by task
    outputs = {k: json.loads((run / "sphinx_trajectories" / files["b"][0]).read_text())["outputs"]
               for k, run in (("a", a), ("b", b))}
    assert outputs["a"] != outputs["b"]  # run B did not overwrite run A's episode
    pages = {}
    for k, run in (("a", a), ("b", b)):
        assert report([str(run), "--out", str(tmp_path / k), "--trajectories"]) == 0
        pages[k] = sorted((tmp_path / k / "trajectories").glob("*.html"))
        assert len(pages[k]) == len(files[k]) + 1  # one page per episode + index.html
    first = files["b"][0].removesuffix(".json") + ".html"
    assert "press [stop]" in (tmp_path / "b" / "trajectories" / first).read_text()
    assert "press [stop]" not in (tmp_path / "a" / "trajectories" / first).read_text()


# --- hostile published-run files (gui-eval import) ---------------------------------------------------------------
def _pro_details(ids: list, acc=0.5) -> dict:
    return {"metrics": {"overall": {"action_acc": acc, "num_total": len(ids)}},
            "details": [{"id": i, "img_path": "vscode_macos/shot_0.png", "prompt_to_evaluate": "click the text 0",
                         "raw_response": "(130, 65)", "correctness": "correct"} for i in ids]}


@pytest.mark.parametrize("content, row, field, message", [
    (_pro_details(["vscode_macos_0"] * 50), 1, "details.id", r"names document screenspot_pro-vscode_macos_0 again \(row 0 did\)"),
    (_pro_details(["vscode_macos_0"], acc="0.5"), None, "metrics.overall.action_acc", "expected an accuracy in"),
    (_pro_details(["vscode_macos_0"], acc=[0.5]), None, "metrics.overall.action_acc", "expected an accuracy in"),
    ({"accuracy": 50.0, "results": [{"image": "vscode_macos/shot_0.png", "question": "click the text 0", "model_output": "",
                                     "correct": 1, "resized_size": [10 ** 400, 2]}]}, 0, "resized_size", r"1\.\.65536"),
    ({"accuracy": "50", "results": []}, None, "accuracy", "expected an accuracy in"),
])
def test_a_hostile_published_file_is_a_named_error_and_nothing_is_written(tmp_path, monkeypatch, content, row, field,
                                                                          message):
    from gui_core.errors import DataError
    from gui_tasks.grounding.published import import_run, main

    monkeypatch.setenv("SCREENSPOT_PRO_DATA_DIR", str(FIX / "screenspot_pro"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(DataError, match=message) as err:
        import_run(bad, "gui_screenspot_pro", tmp_path / "out", family="qwen2_5_vl")
    assert (err.value.file, err.value.row, err.value.field) == (str(bad), row, field)
    assert main([str(bad), "--task", "gui_screenspot_pro", "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


# --- hostile servers (gui_openai) --------------------------------------------------------------------------------
def _gui_openai(url: str, **kw):
    from gui_models.openai_backend import GuiOpenAI

    oa = GuiOpenAI(base_url=url, model="m", response_cache=kw.pop("response_cache", "none"), **kw)
    oa.pool.policy.base_s = 0.01
    return oa


def _request(text: str = "q"):
    from gui_interventions import RequestContext

    return RequestContext(text=text, images=(), gen_kwargs={"max_new_tokens": 16}, task="t", doc_id=0)


def test_an_http_200_with_a_cut_json_body_is_retried_like_a_5xx(tmp_path):
    from fake_openai import FakeServer

    server = FakeServer(["truncated", "ok"], text="healthy")
    try:
        out = _gui_openai(server.base_url, response_cache=str(tmp_path), max_retries=3)._generate_sync(_request())
        assert out.text == "healthy" and server.hits == 2
    finally:
        server.stop()


def test_the_deadline_covers_reading_a_17_mb_answer():
    import time

    from fake_openai import FakeServer

    from gui_models.served_client import RetryPolicy, ServerPool

    server = FakeServer(["manychoices"])
    pool = ServerPool([server.base_url], "EMPTY", timeout_s=2.0, policy=RetryPolicy(attempts=1, budget_s=2.0))
    import asyncio

    start = time.monotonic()
    try:
        try:
            response, _url = asyncio.run(pool.chat({"model": "m", "messages": [{"role": "user", "content": "q"}]}))
            assert response["choices"][0]["message"]["content"] == "B"  # read within the deadline on a fast machine
        except Exception as exc:  # noqa: BLE001 - or cut off at the deadline, named
            assert "TimeoutError" in str(exc), exc
        # the client's own model of this answer took 100 s against timeout=10; the bound is the deadline, plus the
        # time to close the connection
        assert time.monotonic() - start < 2.0 + 3.0
    finally:
        server.stop()


def test_a_tool_call_only_answer_is_recorded_as_such_and_never_cached(tmp_path):
    from fake_openai import FakeServer

    server = FakeServer(["toolcall"])
    try:
        out = _gui_openai(server.base_url, response_cache=str(tmp_path))._generate_sync(_request())
        assert out.text == "" and out.extras["tool_call_only"] == {"tool_calls": 1, "names": ["click"]}
        assert not list(tmp_path.rglob("*.json"))  # not stored: asked again next time
        again = _gui_openai(server.base_url, response_cache=str(tmp_path))._generate_sync(_request())
        assert again.extras["from_cache"] is False and server.hits == 2
    finally:
        server.stop()




def test_an_intervention_that_raises_costs_its_sample_only():
    from gui_core.sample_faults import fault_of
    from gui_models.generation_core import contained_request

    class Run:  # the request stage of an intervention plugin with a bug for one document
        def request(self, req):
            if req.doc_id == 1:
                raise RuntimeError("plugin bug on this screenshot")
            return req

    docs = {"contain_t": {"test": [{"id": "d0"}, {"id": "d1"}]}}
    ok = contained_request(Run(), ("prompt", {"until": []}, lambda d: [], 0, "contain_t", "test"), docs)
    bad = contained_request(Run(), ("prompt", {"until": []}, lambda d: [], 1, "contain_t", "test"), docs)
    assert ok.text == "prompt" and fault_of("contain_t", {"id": "d0"}) is None
    assert bad.text == "" and bad.images == () and bad.doc == {"id": "d1"}
    assert fault_of("contain_t", {"id": "d1"}) == ("its request (documents and interventions): RuntimeError: plugin bug "
                                                   "on this screenshot")


# --- a request's final error is its sample's, never the run's; hostile rows cost their rows (issue 47) -------------
FAULTS = {"FAULT-400": "400", "FAULT-429": "429", "FAULT-302": "302"}


@pytest.fixture(scope="module")
def refused_requests_run(tmp_path_factory, session_cache):
    """One ``gui_openai`` lmms-eval run, bad-row skipping on: the healthy ``mpr_gui_synth_en`` beside a hostile
    ScreenSpot-Pro copy (``test_bounds.hostile_pro_rows``: NaN, Infinity, a 5,000-digit integer, a 900-deep bbox, a
    repeated id, a 0-byte, a text-file and a 4020 x 20 screenshot) plus three rows whose instruction makes the server
    answer a 400 ("maximum context length"), a ``429 Retry-After: 999999`` and a redirect to another origin. The key
    is named by api_key_env and must appear in no run file."""
    import subprocess
    import sys
    import time

    from conftest import lmms_subprocess_env
    from fake_openai import FakeServer, last_text
    from test_bounds import hostile_pro_rows

    tmp = tmp_path_factory.mktemp("refused")
    root = hostile_pro_rows(tmp / "pro")
    ann = root / "annotations" / "vscode_macos.json"
    text = ann.read_text().rstrip().removesuffix("]")  # appended as text: the hostile numbers stay as written
    base = json.loads((FIX / "screenspot_pro" / "annotations" / "vscode_macos.json").read_text())[0]
    extra = [json.dumps({**base, "id": marker.lower(), "instruction": marker}) for marker in FAULTS]
    ann.write_text(text + ",\n" + ",\n".join(extra) + "]")

    def behave(body: dict) -> str | None:
        said = last_text(body)
        return next((code for marker, code in FAULTS.items() if marker in said), None)

    other = FakeServer(["ok"], text="from elsewhere")
    server = FakeServer(["ok"], text="B", behave=behave)
    server.retry_after = "999999"
    server.redirect_to = f"{other.base_url}/chat/completions"
    env = {**lmms_subprocess_env(session_cache), "FAULTS_TEST_KEY": "sk-faults-SECRET-1234",
           "SCREENSPOT_PRO_DATA_DIR": str(root), "GUI_EVAL_SKIP_BAD_ROWS": "1"}
    args = f"base_url={server.base_url},model=m3,response_cache=none,concurrency=2,timeout=10,api_key_env=FAULTS_TEST_KEY"
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "gui_openai", "--model_args", args, "--tasks",
           "mpr_gui_synth_en,gui_screenspot_pro", "--limit", "20", "--output_path", str(tmp / "run"),
           "--log_samples", "--verbosity", "WARNING"]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    finally:
        server.stop()
        other.stop()
    return {"out": tmp / "run", "log": proc.stdout + proc.stderr, "seconds": time.monotonic() - start,
            "other_hits": other.hits, "hits": server.hits}


@pytest.mark.slow
def test_a_refused_request_costs_its_sample_and_the_run_writes_its_results(refused_requests_run):
    from lmms_helpers import results, samples

    run = refused_requests_run
    res = results(run["out"])
    assert "Traceback" not in run["log"], run["log"][-3000:]
    pro = {s["doc"]["id"] if "doc" in s else s["doc_id"]: s for s in samples(run["out"], "gui_screenspot_pro")}
    named = {k: s.get("sample_error") for k, s in pro.items()}
    errors = [e for e in named.values() if e]
    assert any("refused the request (HTTP 400" in e for e in errors), named
    assert any("HTTP 429" in e and "Retry-After 999999 s is past the retry budget" in e for e in errors)
    assert any("HTTP 302 redirect to" in e and "not followed" in e for e in errors)
    assert sum("the request failed: gui_openai: " in e for e in errors) == 3
    # the rows the loader refused are skipped and counted; the rows whose document it refused are named samples
    assert res["configs"]["gui_screenspot_pro"]["metadata"]["bad_rows_skipped"] == 4
    assert any("is row 1's too" in e for e in errors) and any("empty.png refused" in e for e in errors)
    assert any("text.png refused" in e for e in errors) and any("aspect ratio 201.0 is above 200" in e for e in errors)
    assert len(pro) == 10 and len(errors) == 7 and res["results"]["gui_screenspot_pro"]["sample_error,none"] == 7
    # the healthy task is whole
    assert res["results"]["mpr_gui_synth_en"]["mcq_acc,none"] is not None
    assert len(samples(run["out"], "mpr_gui_synth_en")) == 20
    assert not any(s.get("sample_error") for s in samples(run["out"], "mpr_gui_synth_en"))
    assert run["other_hits"] == 0 and run["seconds"] < 300  # nothing waited 999999 s; the other origin got nothing
    for path in run["out"].rglob("*"):
        if path.is_file():
            assert "sk-faults-SECRET" not in path.read_text(errors="replace"), path
