"""``gui-eval data fetch`` and the tasks' first-use download, through the real ``huggingface_hub`` client against a
Hub stand-in on 127.0.0.1 (tests/hub_standin.py) serving ScreenSpot-Pro and OSWorld-G in the layouts lmms-eval 0.7.3's
own tasks read; and the hub layout read as the same rows of the official GitHub release."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hub_standin import (
    HubStandIn,
    github_layout_osworld_g,
    github_layout_pro,
    github_layout_screenspot,
    mmbench_gui_repo,
    osworld_g_rows,
    parquet_bytes,
    screenspot_hub_rows,
    screenspot_pro_rows,
    uivision_repo,
)

PRO_REPO, OSW_REPO = "TIGER-Lab/ScreenSpot-Pro", "MMInstruction/OSWorld-G"
SS_REPO, UIV_REPO, MMB_REPO = "rootsautomation/ScreenSpot", "ServiceNow/ui-vision", "OpenGVLab/MMBench-GUI"
PARQUET = "data/test-00000-of-00001.parquet"


@pytest.fixture(scope="session")
def hub():
    standin = HubStandIn()
    standin.publish(PRO_REPO, {PARQUET: parquet_bytes(screenspot_pro_rows()), "README.md": b"# ScreenSpot-Pro\n"})
    standin.publish(OSW_REPO, {PARQUET: parquet_bytes(osworld_g_rows())})
    standin.publish(SS_REPO, {"data/test-00000-of-00002.parquet": parquet_bytes(screenspot_hub_rows()[:2]),
                              "data/test-00001-of-00002.parquet": parquet_bytes(screenspot_hub_rows()[2:])})
    standin.publish(UIV_REPO, {**uivision_repo(), "README.md": b"# UI-Vision\n"})
    standin.publish(MMB_REPO, mmbench_gui_repo())
    yield standin
    standin.stop()


@pytest.fixture()
def online(hub, tmp_path, monkeypatch):
    """This test's own HF cache and gui-eval cache, the stand-in as endpoint, offline mode off (the suite sets it)."""
    from huggingface_hub import constants

    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "GUI_EVAL_NO_DOWNLOAD",
                "SCREENSPOT_PRO_DATA_DIR", "OSWORLD_G_DATA_DIR", "HF_HUB_CACHE", "SCREENSPOT_DATA_DIR", "UIVISION_DATA_DIR",
                "MMBENCH_GUI_DATA_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("GUI_EVAL_CACHE", str(tmp_path / "cache"))
    hub.faults.clear()
    yield hub
    hub.faults.clear()


def _env(hub, tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE",
                                                            "SCREENSPOT_PRO_DATA_DIR", "OSWORLD_G_DATA_DIR",
                                                            "SCREENSPOT_DATA_DIR", "UIVISION_DATA_DIR",
                                                            "MMBENCH_GUI_DATA_DIR")}
    return {**env, "HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": hub.url, "GUI_EVAL_CACHE": str(tmp_path / "cache"),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent / "netguard"), os.environ.get("PYTHONPATH")]))}


def _gui_eval(args, env):
    return subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def _relative(docs, root):
    return [{**d, "image": str(Path(d["image"]).relative_to(Path(root).resolve()))} for d in docs]


# ---- both layouts: the same rows, the same documents, the same scores ----

def test_hub_layout_pro_rows_are_the_github_release_rows(tmp_path):
    from gui_tasks.grounding import screenspot
    from gui_tasks.grounding.hub_layout import convert_screenspot_pro
    from gui_tasks.grounding.score import ScoreParams, score_response

    rows = screenspot_pro_rows()
    (tmp_path / "snap" / "data").mkdir(parents=True)
    (tmp_path / "snap" / PARQUET).write_bytes(parquet_bytes(rows))
    convert_screenspot_pro(tmp_path / "snap", tmp_path / "hub")
    github_layout_pro(rows, tmp_path / "gh")
    for kw in ({}, {"language": "cn"}, {"gt_type": "negative"}):
        hub_docs = screenspot.load_docs("screenspot_pro", tmp_path / "hub", **kw)
        gh_docs = screenspot.load_docs("screenspot_pro", tmp_path / "gh", **kw)
        assert len(hub_docs) == 5 and _relative(hub_docs, tmp_path / "hub") == _relative(gh_docs, tmp_path / "gh")
    for d in hub_docs:  # the screenshots are the published bytes
        rel = Path(d["image"]).relative_to((tmp_path / "hub").resolve())
        assert Path(d["image"]).read_bytes() == (tmp_path / "gh" / rel).read_bytes()
    params = ScoreParams.from_mapping({"family": "qwen2_vl", "inside_rule": "inclusive"})
    for a, b in zip(screenspot.load_docs("screenspot_pro", tmp_path / "hub"),
                    screenspot.load_docs("screenspot_pro", tmp_path / "gh")):
        for answer in ("(25,20)", "[0.5, 0.5]", "nothing"):
            assert score_response(a, answer, params) == score_response(b, answer, params)


def test_hub_layout_osworld_g_rows_are_the_github_release_rows(tmp_path):
    from gui_tasks.grounding import osworld_g
    from gui_tasks.grounding.hub_layout import convert_osworld_g

    rows = osworld_g_rows()
    (tmp_path / "snap" / "data").mkdir(parents=True)
    (tmp_path / "snap" / PARQUET).write_bytes(parquet_bytes(rows))
    convert_osworld_g(tmp_path / "snap", tmp_path / "hub")
    github_layout_osworld_g(rows, tmp_path / "gh")
    hub_docs, gh_docs = osworld_g.load_docs(tmp_path / "hub"), osworld_g.load_docs(tmp_path / "gh")
    assert [d["split"] for d in hub_docs] == ["bbox", "polygon", "refusal", "bbox"]
    assert _relative(hub_docs, tmp_path / "hub") == _relative(gh_docs, tmp_path / "gh")


def test_a_hub_row_without_its_screenshot_is_named(tmp_path):
    from gui_core.errors import DataError
    from gui_tasks.grounding.hub_layout import convert_osworld_g

    rows = osworld_g_rows()
    rows[1]["image"] = {"bytes": None, "path": "s1.png"}
    (tmp_path / "snap").mkdir()
    (tmp_path / "snap" / "x.parquet").write_bytes(parquet_bytes(rows))
    with pytest.raises(DataError) as err:
        convert_osworld_g(tmp_path / "snap", tmp_path / "out")
    assert (err.value.row, err.value.field) == (1, "image") and err.value.file.endswith("x.parquet")


# ---- fetch: download, verify, lock, offline ----

def test_fetch_downloads_verifies_locks_and_reuses_the_cache(online):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch

    spec = hub_data("screenspot_pro")
    got = fetch(spec)
    assert got.downloaded == [PARQUET] and list(got.files) == [PARQUET]
    assert "no pinned hashes" in got.warnings[0] and "--print-pins" in got.warnings[0]
    lock = json.loads((Path(os.environ["GUI_EVAL_CACHE"]) / "hub" / "TIGER-Lab--ScreenSpot-Pro" / "lock-main.json").read_text())
    assert lock["files"] == got.files and lock["commit"] == got.commit
    n = len(online.requests)
    again = fetch(spec)  # online: one metadata request, nothing downloaded
    assert again.downloaded == [] and again.warnings == [] and again.root == got.root
    assert [r for r in online.requests[n:] if "/resolve/" in r[1]] == []


def test_offline_uses_a_copy_already_in_the_cache_and_names_the_fetch_command_otherwise(online, monkeypatch):
    from gui_core.errors import ConfigError
    from gui_tasks.grounding import screenspot

    monkeypatch.setenv("GUI_EVAL_NO_DOWNLOAD", "1")
    with pytest.raises(ConfigError) as err:
        screenspot.data_root("screenspot_pro")
    message = str(err.value)
    assert "\n" not in message and "gui-eval data fetch screenspot_pro" in message and "$GUI_EVAL_NO_DOWNLOAD" in message
    monkeypatch.delenv("GUI_EVAL_NO_DOWNLOAD")
    root = screenspot.data_root("screenspot_pro")  # first use: fetched
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    n = len(online.requests)
    assert screenspot.data_root("screenspot_pro") == root and len(online.requests) == n  # no request at all


def test_a_copy_lmms_eval_already_downloaded_by_commit_is_used_offline(online, monkeypatch):
    """``datasets`` fetches by commit (no ``refs/main`` in the cache): that copy is found and read, nothing downloaded."""
    from huggingface_hub import hf_hub_download

    from gui_core.hub_fetch import hub_cache
    from gui_tasks.grounding import osworld_g

    commit = online.repos[("dataset", OSW_REPO)]["refs"]["main"]
    hf_hub_download(OSW_REPO, PARQUET, repo_type="dataset", revision=commit, endpoint=online.url, cache_dir=hub_cache())
    assert not (Path(os.environ["HF_HOME"]) / "hub" / "datasets--MMInstruction--OSWorld-G" / "refs" / "main").exists()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    n = len(online.requests)
    docs = osworld_g.load_docs(osworld_g.data_root())
    assert [d["id"] for d in docs] == ["osworld_g-g1", "osworld_g-g2", "osworld_g-g3", "osworld_g-g4"]
    assert len(online.requests) == n


def test_a_changed_release_is_reported_with_what_changed(online):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch
    from gui_core.errors import DataError

    spec = hub_data("osworld_g")
    fetch(spec)
    rows = osworld_g_rows()
    rows[0]["instruction"] = "click save (reworded)"
    online.publish(OSW_REPO, {PARQUET: parquet_bytes(rows), "data/extra.parquet": parquet_bytes(rows[:1])})
    try:
        with pytest.raises(DataError) as err:
            fetch(spec)
    finally:
        online.publish(OSW_REPO, {PARQUET: parquet_bytes(osworld_g_rows())})
    assert err.value.file == OSW_REPO
    assert f"differ: {PARQUET}" in err.value.reason and "added: data/extra.parquet" in err.value.reason
    assert "not scored" in err.value.reason


def test_a_corrupted_download_is_named_and_removed_from_the_cache(online):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import _cached_snapshot, fetch
    from gui_core.errors import DataError

    spec = hub_data("screenspot_pro")
    online.faults[PARQUET] = "corrupt"
    with pytest.raises(DataError) as err:
        fetch(spec)
    assert err.value.file == f"{PRO_REPO}/{PARQUET}" and "corrupted download" in err.value.reason
    found = _cached_snapshot(spec.release, "main")
    assert found is None or not (found[0] / PARQUET).exists()  # never placed where a later run reads
    online.faults.clear()
    assert fetch(spec).downloaded == [PARQUET]


def test_a_pinned_hash_that_differs_is_named_and_removed(online):
    import dataclasses

    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import _cached_snapshot, fetch
    from gui_core.hub_release import HubFile
    from gui_core.errors import DataError

    spec = hub_data("screenspot_pro")
    pinned = dataclasses.replace(spec, release=dataclasses.replace(spec.release, files=(HubFile(PARQUET, "0" * 64),)))
    with pytest.raises(DataError) as err:
        fetch(pinned)
    assert err.value.file == f"{PRO_REPO}/{PARQUET}" and f"differs from the pinned {'0' * 64}" in err.value.reason
    found = _cached_snapshot(spec.release, "main")
    assert found is None or not (found[0] / PARQUET).exists()


@pytest.mark.parametrize("case", ["missing repo", "wrong revision", "truncated"])
def test_bad_fetches_are_one_line_naming_repository_and_file(online, case, tmp_path):
    import dataclasses

    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch
    from gui_core.errors import DataError

    spec = hub_data("screenspot_pro")
    revision = None
    if case == "missing repo":
        spec = dataclasses.replace(spec, release=dataclasses.replace(spec.release, repo_id="nobody/nothing"))
    elif case == "wrong revision":
        revision = "v9"
    else:
        online.faults[PARQUET] = "truncate"
    with pytest.raises(DataError) as err:
        fetch(spec, revision=revision, to=tmp_path / "copy")
    msg = str(err.value)
    assert "\n" not in msg and len(msg) < 600
    expected = {"missing repo": ("nobody/nothing", "repository not found"),
                "wrong revision": (PRO_REPO, "revision 'v9' not found"),
                "truncated": (f"{PRO_REPO}/{PARQUET}", "download failed")}[case]
    assert err.value.file == expected[0] and expected[1] in err.value.reason
    assert not (tmp_path / "copy").exists() and not list(tmp_path.glob(".copy*"))


def test_to_replaces_its_own_copy_and_refuses_a_foreign_folder(online, tmp_path):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import LOCK_NAME, fetch
    from gui_core.errors import DataError

    spec = hub_data("osworld_g")
    first = fetch(spec, to=tmp_path / "osw")
    (tmp_path / "osw" / "stale.txt").write_text("left from before")
    assert fetch(spec, to=tmp_path / "osw").root == first.root and not (tmp_path / "osw" / "stale.txt").exists()
    lock = json.loads((tmp_path / "osw" / LOCK_NAME).read_text())
    assert lock["repo_id"] == OSW_REPO and list(lock["files"]) == [PARQUET]
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    with pytest.raises(DataError, match="not a copy made by `gui-eval data fetch`"):
        fetch(spec, to=tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "mine"


# ---- the commands and an lmms-eval run with no data variable ----

def test_fetch_command_then_data_check_on_the_fetched_copy(hub, tmp_path):
    env = _env(hub, tmp_path)
    hub.faults.clear()
    proc = _gui_eval(["data", "fetch", "screenspot_pro", "--to", str(tmp_path / "pro"), "--print-pins"], env)
    assert proc.returncode == 0, proc.stderr
    assert f"export SCREENSPOT_PRO_DATA_DIR={tmp_path / 'pro'}" in proc.stdout
    assert "no pinned hashes" in proc.stderr and f"HubFile('{PARQUET}', '" in proc.stdout
    assert (tmp_path / "pro" / ".gui-eval-hub-lock.json").is_file() and (tmp_path / "pro" / "annotations").is_dir()
    # with no variable and downloads off, the check finds the copy in the HF cache by itself
    check = _gui_eval(["data", "check", "screenspot_pro", "--partial"], {**env, "HF_HUB_OFFLINE": "1"})
    assert check.returncode == 0, check.stdout + check.stderr
    assert "gui_screenspot_pro [pro layout]        5" in check.stdout and "result: OK" in check.stdout
    assert "screenshots fully decoded: 3 of 3" in check.stdout


@pytest.mark.slow
def test_lmms_eval_tasks_fetch_on_first_use_and_score(hub, tmp_path):
    from fake_openai import FakeServer
    from lmms_helpers import results, run_openai, samples

    env = _env(hub, tmp_path)
    server = FakeServer(["ok"] * 32, text="[25, 20]")
    expected = {"gui_screenspot_pro": 4, "gui_osworld_g": 4, "gui_screenspot": 4, "gui_uivision_basic": 1,
                "gui_mmbench_gui_l2": 2}
    try:
        _proc, log = run_openai(server.base_url, ",".join(expected), tmp_path / "out", env, "--limit", "4")
    finally:
        server.stop()
    res = results(tmp_path / "out")
    for task, n in expected.items():
        assert "not_run" not in res["configs"][task]["metadata"], log[-3000:]
        got = samples(tmp_path / "out", task)
        assert len(got) == n and all("sample_error" not in s for s in got), (task, log[-3000:])
    for repo in (PRO_REPO, OSW_REPO, SS_REPO, UIV_REPO, MMB_REPO):
        assert f"fetching {repo}" in log
    assert (tmp_path / "hf" / "hub" / "datasets--MMInstruction--OSWorld-G").is_dir()


# ---- ScreenSpot, UI-Vision and MMBench-GUI L2 from their hub repositories ----

def test_screenspot_hub_rows_are_fetched_and_read_as_the_seeclick_release(online, tmp_path):
    """rootsautomation/ScreenSpot's fractions [x1, y1, x2, y2] come back as SeeClick's whole-pixel [x, y, w, h]: the same
    documents (ids, boxes, splits, meta) and the same scores as the release itself; fetched on first use."""
    from gui_tasks.grounding import screenspot
    from gui_tasks.grounding.score import ScoreParams, score_response

    root = screenspot.data_root("screenspot")  # first use: fetched and converted
    assert sorted(p.name for p in root.glob("*.json")) == ["screenspot_desktop.json", "screenspot_mobile.json",
                                                           "screenspot_web.json"]
    github_layout_screenspot(tmp_path / "gh")
    hub_docs, gh_docs = screenspot.load_docs("screenspot", root), screenspot.load_docs("screenspot", tmp_path / "gh")
    assert [d["id"] for d in hub_docs] == ["screenspot-desktop-0000", "screenspot-desktop-0001", "screenspot-mobile-0000",
                                           "screenspot-web-0000"]
    assert _relative(hub_docs, root) == _relative(gh_docs, tmp_path / "gh")
    assert hub_docs[1]["target_box"] == [70.0, 40.0, 119.0, 73.0]  # 40/77*77 is 39.99999999999999 in floating point
    params = ScoreParams.from_mapping({"family": "qwen2_vl", "inside_rule": "inclusive"})
    for a, b in zip(hub_docs, gh_docs):
        for answer in ("(7,11)", "(70,40)", "(119,73)", "[0.5, 0.5]", "(44, 124)", "nothing"):
            assert score_response(a, answer, params) == score_response(b, answer, params)


def test_uivision_is_read_from_the_hub_as_published_and_only_its_element_files_are_fetched(online, tmp_path):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch
    from gui_tasks.grounding import uivision

    got = fetch(hub_data("uivision"))
    assert got.root == got.snapshot and got.downloaded == sorted(
        [f"annotations/element_grounding/element_grounding_{s}.json" for s in uivision.SETTINGS]
        + ["images/element_grounding/app/s1.png"])
    for setting in uivision.SETTINGS:
        docs = uivision.load_docs(uivision.data_root(), setting)
        assert [d["instruction"] for d in docs] == [f"{setting} target"] and docs[0]["width"] == 160
    copy = fetch(hub_data("uivision"), to=tmp_path / "uiv").root
    assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file()) == sorted(
        [".gui-eval-hub-lock.json", *got.downloaded])


def test_mmbench_gui_l2_zip_is_extracted_to_the_offline_images_layout(online):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch
    from gui_tasks.grounding import mmbench_gui

    got = fetch(hub_data("mmbench_gui_l2"))
    assert got.downloaded == ["L2_annotations.json", "MMBench-GUI-OfflineImages.zip"]  # L1 is not read
    assert (got.root / "offline_images" / "os_mac" / "m1.png").is_file() and not (got.root / ".unpacked").exists()
    docs = mmbench_gui.load_docs(mmbench_gui.data_root())
    assert [(d["id"], d["split"], d["target_box"]) for d in docs] == [
        ("mmbench_gui_l2-0", "basic_os_windows", [10.0, 10.0, 30.0, 20.0]),
        ("mmbench_gui_l2-1", "advanced_os_mac", [20.0, 10.0, 60.0, 30.0])]


@pytest.mark.parametrize("case", ["another folder name", "a member leaving the folder"])
def test_mmbench_gui_zip_layouts(tmp_path, case):
    import io
    import zipfile

    from gui_core.errors import DataError
    from gui_tasks.grounding import mmbench_gui
    from gui_tasks.grounding.hub_layout import convert_mmbench_gui

    files = mmbench_gui_repo("MMBench-GUI-OfflineImages/data")
    if case == "a member leaving the folder":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("../evil.png", b"x")
        files["MMBench-GUI-OfflineImages.zip"] = buf.getvalue()
    (tmp_path / "snap").mkdir()
    for name, data in files.items():
        (tmp_path / "snap" / name).write_bytes(data)
    if case == "another folder name":
        convert_mmbench_gui(tmp_path / "snap", tmp_path / "out")
        assert len(mmbench_gui.load_docs(tmp_path / "out")) == 2
    else:
        with pytest.raises(DataError, match="leaves the folder"):
            convert_mmbench_gui(tmp_path / "snap", tmp_path / "out")
        assert not (tmp_path / "evil.png").exists()
