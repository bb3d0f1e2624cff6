"""A hostile Hub behind ``$HF_ENDPOINT`` (issue 54): it names commits and ETags with path segments, lists files that
leave the folder, stalls, drips, echoes the request's Authorization header and serves a zip bomb. Nothing is written
outside the caches and the target folder, nothing hangs past its deadline, no secret reaches a message or a file,
and in an lmms-eval run each hostile benchmark stops alone beside a healthy one (tests/hub_standin.py)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from hub_standin import (
    HubStandIn,
    mmbench_gui_repo,
    osworld_g_rows,
    parquet_bytes,
    screenspot_hub_rows,
    screenspot_pro_rows,
)
from hypothesis import given, settings
from hypothesis import strategies as st

PRO_REPO, OSW_REPO, SS_REPO, MMB_REPO = ("TIGER-Lab/ScreenSpot-Pro", "MMInstruction/OSWorld-G", "rootsautomation/ScreenSpot",
                                         "OpenGVLab/MMBench-GUI")
PARQUET = "data/test-00000-of-00001.parquet"
TOKEN = "hf_PlantedHubToken0123456789abcdef"
PASSWORD = "PlantedMirrorPassword42"
ALLOWED = ("hf", "cache", "to")  # the Hugging Face cache, the gui-eval cache, the --to folder
FAST = {"GUI_EVAL_HUB_TIMEOUT": "1", "GUI_EVAL_HUB_DEADLINE": "2"}


def _bomb() -> bytes:
    """A 1 MB zip whose member expands to 1 GiB (its header says so: an honest bomb)."""
    buf = io.BytesIO()
    zero = bytes(1 << 24)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf, \
            zf.open("offline_images/os_mac/m1.png", "w", force_zip64=True) as f:
        for _ in range(64):
            f.write(zero)
    return buf.getvalue()


def _lying_zip() -> bytes:
    """A zip whose header claims 1,000 bytes for a member that inflates to 50 MiB (caught while streaming)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("offline_images/os_mac/m1.png", bytes(50 << 20))
    data = bytearray(buf.getvalue())
    cd = data.rindex(b"PK\x01\x02")
    data[cd + 24:cd + 28] = (1000).to_bytes(4, "little")  # the central directory's uncompressed size
    return bytes(data)


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return _bomb()


@pytest.fixture(scope="module")
def hub():
    standin = HubStandIn()
    standin.publish(PRO_REPO, {PARQUET: parquet_bytes(screenspot_pro_rows())})
    standin.publish(OSW_REPO, {PARQUET: parquet_bytes(osworld_g_rows())})
    standin.publish(SS_REPO, {"data/test-00000-of-00002.parquet": parquet_bytes(screenspot_hub_rows()[:2]),
                              "data/test-00001-of-00002.parquet": parquet_bytes(screenspot_hub_rows()[2:])})
    standin.publish(MMB_REPO, mmbench_gui_repo())
    yield standin
    standin.stop()


def _env(hub, tmp_path) -> dict[str, str]:
    drop = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "GUI_EVAL_NO_DOWNLOAD", "HF_HUB_CACHE",
            "SCREENSPOT_PRO_DATA_DIR", "OSWORLD_G_DATA_DIR", "SCREENSPOT_DATA_DIR", "UIVISION_DATA_DIR", "MMBENCH_GUI_DATA_DIR")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    (tmp_path / "home").mkdir(exist_ok=True)
    return {**env, **FAST, "HOME": str(tmp_path / "home"), "HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": hub.url,
            "GUI_EVAL_CACHE": str(tmp_path / "cache"), "HF_TOKEN": TOKEN,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent / "netguard"), os.environ.get("PYTHONPATH")]))}


@pytest.fixture()
def online(hub, tmp_path, monkeypatch):
    from huggingface_hub import constants

    from gui_core import hub_fetch

    for k, v in _env(hub, tmp_path).items():
        if os.environ.get(k) != v:
            monkeypatch.setenv(k, v)
    for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "GUI_EVAL_NO_DOWNLOAD", "HF_HUB_CACHE",
              "SCREENSPOT_PRO_DATA_DIR", "OSWORLD_G_DATA_DIR", "MMBENCH_GUI_DATA_DIR"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hub_fetch, "_STALLED", {})
    hub.clear_hostile()
    yield hub
    hub.clear_hostile()


def _written_outside(tmp_path: Path) -> list[str]:
    """Every file or link under ``tmp_path`` outside the allowed roots, and anything named ``planted`` anywhere."""
    out = []
    for p in tmp_path.rglob("*"):
        rel = p.relative_to(tmp_path)
        if "planted" in p.name.lower() or ((p.is_file() or p.is_symlink()) and rel.parts[0] not in ALLOWED):
            out.append(rel.as_posix())
    return sorted(out)


def _files_holding(root: Path, *secrets: str) -> list[str]:
    found = []
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            data = p.read_bytes()
            if any(s.encode() in data for s in secrets):
                found.append(str(p.relative_to(root)))
    return found


# ---- item 1: no server-supplied name builds a path ----

HOSTILE_NAMES = {
    "commit id with path segments (repository info)": lambda h: h.commit_names.update({f"api:{PRO_REPO}": "../../../../planted"}),
    "commit id with path segments (file header)": lambda h: h.commit_names.update({f"{PRO_REPO}/{PARQUET}": "../../../../planted"}),
    "another commit in the file header": lambda h: h.commit_names.update({f"{PRO_REPO}/{PARQUET}": "0" * 40}),
    "ETag with path segments": lambda h: h.etags.update({f"{PRO_REPO}/{PARQUET}": '"../../../../planted"'}),
    "ETag of a digest and path segments": lambda h: h.etags.update({f"{PRO_REPO}/{PARQUET}": '"' + "a" * 64 + '/../../../../../planted"'}),
    "file name leaving the folder": lambda h: h.extra_files.update({PRO_REPO: ["data/../../../../../planted.parquet"]}),
    "absolute file name": lambda h: h.extra_files.update({PRO_REPO: ["/tmp/planted.parquet"]}),
    "NUL in a file name": lambda h: h.extra_files.update({PRO_REPO: ["data/a\x00planted.parquet"]}),
    "file name segment too long": lambda h: h.extra_files.update({PRO_REPO: ["data/" + "p" * 300 + ".parquet"]}),
    "listing not JSON": lambda h: h.info_bodies.update({PRO_REPO: b'{"sha": "' + b"a" * 40 + b'", "siblings": [NaN'}),
    "listing a file as text": lambda h: h.info_bodies.update({PRO_REPO: b'{"sha": "' + b"a" * 40 + b'", "siblings": ["x"]}'}),
    "negative size": lambda h: h.sizes.update({f"{PRO_REPO}/{PARQUET}": -5}),
    "huge size": lambda h: h.sizes.update({f"{PRO_REPO}/{PARQUET}": 1 << 50}),
    "text size": lambda h: h.sizes.update({f"{PRO_REPO}/{PARQUET}": "12"}),
    "wrong size": lambda h: h.sizes.update({f"{PRO_REPO}/{PARQUET}": 17}),
}


# the first word of a case -> what its message says
CAUSE = {"commit": "not 40 hex digits", "another": "answered with commit", "ETag": "not 40 or 64 hex digits",
         "file": "refused (it", "absolute": "it is absolute", "NUL": "holds a NUL", "negative": "not an integer", "listing": "repository info",
         "huge": "not an integer", "text": "not an integer", "wrong": "listed 17 bytes and sends"}


@pytest.mark.parametrize("case", sorted(HOSTILE_NAMES))
def test_a_server_chosen_name_is_refused_and_nothing_is_written_outside_the_caches(online, tmp_path, case):
    from gui_core.benchmark import hub_data
    from gui_core.errors import DataError
    from gui_core.hub_fetch import fetch

    HOSTILE_NAMES[case](online)
    with pytest.raises(DataError) as err:
        fetch(hub_data("screenspot_pro"), to=tmp_path / "to")
    msg = str(err.value)
    assert "\n" not in msg and len(msg) < 600 and err.value.file.startswith(PRO_REPO)
    assert CAUSE[case.split(" (")[0].split()[0]] in msg, msg
    assert _written_outside(tmp_path) == []
    assert not (tmp_path / "to").exists() and not list(tmp_path.rglob(".gui-eval-download-*"))
    snapshots = tmp_path / "hf" / "hub" / "datasets--TIGER-Lab--ScreenSpot-Pro" / "snapshots"
    assert not any(p.is_file() for p in snapshots.rglob("*"))  # no byte placed where a later run reads


def test_a_commit_asked_for_must_be_the_commit_answered(online):
    from gui_core.benchmark import hub_data
    from gui_core.errors import DataError
    from gui_core.hub_fetch import fetch

    commit = online.repos[("dataset", PRO_REPO)]["refs"]["main"]
    online.commit_names[f"api:{PRO_REPO}"] = "1" * 40
    with pytest.raises(DataError, match=f"answered commit 1{{40}} for commit {commit}: refused"):
        fetch(hub_data("screenspot_pro"), revision=commit)


def test_the_same_server_healthy_writes_only_into_the_caches_and_the_target(online, tmp_path):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch

    got = fetch(hub_data("screenspot_pro"), to=tmp_path / "to")
    assert got.downloaded == [PARQUET] and (tmp_path / "to" / "annotations").is_dir()
    assert _written_outside(tmp_path) == [] and not list(tmp_path.rglob(".gui-eval-download-*"))


# ---- item 2: deadlines ----

@pytest.mark.parametrize("key, mode", [("api", "stall"), ("api", "drip_headers"), ("file", "stall"), ("file", "drip"),
                                       ("file", "drip_headers")])
def test_a_stalled_or_dripping_server_is_cut_off_in_one_line_naming_it(online, tmp_path, key, mode):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import fetch
    from gui_core.hub_net import HubStall

    online.hostile[f"api:{PRO_REPO}" if key == "api" else f"{PRO_REPO}/{PARQUET}"] = mode
    start = time.monotonic()
    with pytest.raises(HubStall) as err:
        fetch(hub_data("screenspot_pro"))
    took = time.monotonic() - start
    msg = str(err.value)
    assert took < 8, took
    assert "\n" not in msg and online.url in msg and "stalled" in msg
    assert ("repository info" in msg) if key == "api" else (PARQUET in msg)
    assert _written_outside(tmp_path) == []


def test_a_stall_stops_the_benchmarks_next_task_at_once(online):
    from gui_core.benchmark import hub_data
    from gui_core.hub_fetch import data_root
    from gui_core.hub_net import HubStall

    online.hostile[f"api:{PRO_REPO}"] = "stall"
    with pytest.raises(HubStall):
        data_root(hub_data("screenspot_pro"))
    start = time.monotonic()
    with pytest.raises(HubStall):
        data_root(hub_data("screenspot_pro"))
    assert time.monotonic() - start < 0.5


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf"])
def test_a_deadline_that_is_not_a_positive_number_is_a_configuration_error(monkeypatch, value):
    from gui_core.errors import ConfigError
    from gui_core.hub_net import limits

    monkeypatch.setenv("GUI_EVAL_HUB_DEADLINE", value)
    with pytest.raises(ConfigError, match="GUI_EVAL_HUB_DEADLINE"):
        limits()


# ---- item 3: secrets ----

@pytest.mark.parametrize("url", [f"http://alice:{PASSWORD}@127.0.0.1:9", f"http://127.0.0.1:9/?token={PASSWORD}"])
def test_an_endpoint_carrying_a_credential_is_refused_and_shown_redacted(online, monkeypatch, url):
    from gui_core.benchmark import hub_data
    from gui_core.errors import ConfigError
    from gui_core.hub_fetch import fetch

    monkeypatch.setenv("HF_ENDPOINT", url)
    with pytest.raises(ConfigError) as err:
        fetch(hub_data("screenspot_pro"))
    assert PASSWORD not in str(err.value) and "***" in str(err.value) and "$HF_TOKEN" in str(err.value)


def test_a_server_echoing_the_authorization_header_leaks_no_token(online):
    from gui_core.benchmark import hub_data
    from gui_core.errors import DataError
    from gui_core.hub_fetch import fetch

    online.hostile[f"api:{PRO_REPO}"] = "echo"
    with pytest.raises(DataError) as err:
        fetch(hub_data("screenspot_pro"))
    assert "HTTP 500" in str(err.value) and "refused: Authorization" in str(err.value)
    assert TOKEN not in str(err.value) and "PlantedHubToken" not in str(err.value)


@pytest.mark.parametrize("text, secret", [
    ("Authorization: Bearer abcDEF123456789xyz", "abcDEF123456789xyz"),
    ('{"error": "bad token hf_AbCdEfGhIjKlMnOp1234"}', "hf_AbCdEfGhIjKlMnOp1234"),
    ("GET https://bob:s3cretPassw0rd@mirror.example/x failed", "s3cretPassw0rd"),
    ("retry with ?api_key=QwErTy987654&x=1", "QwErTy987654"),
    ("Authorization: Basic Ym9iOnMzY3JldA==", "Ym9iOnMzY3JldA=="),
    ('"access_token": "tok_998877665544"', "tok_998877665544"),
])
def test_redaction_removes_tokens_bearers_and_user_info_from_a_servers_text(text, secret):
    from gui_core.redact import redact_text

    out = redact_text(text)
    assert secret not in out and "***" in out


def test_a_token_from_a_login_file_is_redacted_too():
    from gui_core.redact import redact_text, remember_secret

    remember_secret("zzLoginFileToken99")
    assert redact_text("the server said zzLoginFileToken99 is wrong") == "the server said *** is wrong"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab./\\\x00 :C")), max_size=12))
def test_an_accepted_name_always_stays_inside_its_folder(name):
    from gui_core.hub_net import name_problem

    if name_problem(name) is None:
        joined = os.path.normpath(os.path.join("/base/folder", name))
        assert joined.startswith("/base/folder/") and "\x00" not in name


def test_the_fetch_command_on_a_hostile_mirror_writes_no_secret_anywhere(hub, tmp_path):
    hub.clear_hostile()
    hub.hostile[f"api:{PRO_REPO}"] = "echo"
    hub.hostile[f"{OSW_REPO}/{PARQUET}"] = "drip"
    env = _env(hub, tmp_path)
    runs = [(["data", "fetch", "screenspot_pro", "--to", str(tmp_path / "to")], env, "HTTP 500"),
            (["data", "fetch", "osworld_g"], {**env, "HF_ENDPOINT": hub.url.replace("//", f"//alice:{PASSWORD}@")},
             "carries a credential"),
            (["data", "fetch", "osworld_g", "--to", str(tmp_path / "to")], env, "stalled")]
    try:
        for args, e, said in runs:
            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", *args], env=e, capture_output=True,
                                  text=True, timeout=120, check=False)
            assert time.monotonic() - start < 60
            assert proc.returncode != 0 and "Traceback" not in proc.stderr and said in proc.stderr, proc.stderr
            assert TOKEN not in proc.stdout + proc.stderr and PASSWORD not in proc.stdout + proc.stderr
    finally:
        hub.clear_hostile()
    assert _files_holding(tmp_path, TOKEN, PASSWORD) == [] and _written_outside(tmp_path) == []


# ---- item 1: archives ----

def test_a_zip_bomb_is_refused_from_its_header_quickly_writing_nothing(tmp_path, bomb):
    from gui_core.archives import extract_zip
    from gui_core.errors import DataError

    assert len(bomb) < 2 << 20
    (tmp_path / "bomb.zip").write_bytes(bomb)
    start = time.monotonic()
    with pytest.raises(DataError, match="bomb|above the bound"):
        extract_zip(tmp_path / "bomb.zip", tmp_path / "out", "bomb.zip")
    assert time.monotonic() - start < 1 and not (tmp_path / "out").exists()


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize("case", ["lying header", "symbolic link", "twice"])
def test_a_zip_that_lies_or_links_is_refused(tmp_path, case):
    from gui_core.archives import extract_zip
    from gui_core.errors import DataError

    if case == "lying header":
        data = _lying_zip()
    else:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            if case == "symbolic link":
                info = zipfile.ZipInfo("offline_images/os_mac/link.png")
                info.external_attr = (0o120777 << 16)
                zf.writestr(info, "/etc/passwd")
            else:
                zf.writestr("a.png", b"1")
                zf.writestr("a.png", b"2")
        data = buf.getvalue()
    (tmp_path / "x.zip").write_bytes(data)
    with pytest.raises(DataError) as err:
        extract_zip(tmp_path / "x.zip", tmp_path / "out", "x.zip")
    assert {"lying header": "cannot be read", "symbolic link": "symbolic link", "twice": "twice"}[case] in str(err.value)
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()] if (tmp_path / "out").exists() else []
    assert sum(p.stat().st_size for p in written) <= 1000  # never past the header's claim


def test_a_zip_bomb_on_the_hub_is_refused_and_leaves_no_converted_copy(online, tmp_path, bomb):
    from gui_core.benchmark import hub_data
    from gui_core.errors import DataError
    from gui_core.hub_fetch import fetch

    files = {**mmbench_gui_repo(), "MMBench-GUI-OfflineImages.zip": bomb}
    online.publish(MMB_REPO, files)
    try:
        start = time.monotonic()
        with pytest.raises(DataError, match="bomb"):
            fetch(hub_data("mmbench_gui_l2"))
        assert time.monotonic() - start < 20
    finally:
        online.publish(MMB_REPO, mmbench_gui_repo())
    assert _written_outside(tmp_path) == []
    assert [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and p.suffix == ".png"] == []
    assert sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file()) < 8 << 20


# ---- in one lmms-eval run: each hostile benchmark stops alone, the healthy one scores, no secret in any file ----

@pytest.mark.slow
def test_hostile_benchmarks_stop_alone_beside_a_healthy_one_and_no_secret_reaches_a_file(hub, tmp_path, bomb):
    from fake_openai import FakeServer
    from lmms_helpers import results, run_openai, samples

    hub.clear_hostile()
    hub.hostile[f"{PRO_REPO}/{PARQUET}"] = "drip"  # stalls (a byte every 0.3 s)
    hub.hostile[f"api:{OSW_REPO}"] = "echo"  # echoes the token
    hub.publish(MMB_REPO, {**mmbench_gui_repo(), "MMBench-GUI-OfflineImages.zip": bomb})
    env = _env(hub, tmp_path)
    server = FakeServer(["ok"] * 16, text="[25, 20]")
    start = time.monotonic()
    try:
        _proc, log = run_openai(server.base_url, "gui_screenspot_pro,gui_osworld_g,gui_mmbench_gui_l2,gui_screenspot",
                                tmp_path / "out", env, "--limit", "4")
    finally:
        server.stop()
        hub.clear_hostile()
        hub.publish(MMB_REPO, mmbench_gui_repo())
    res = results(tmp_path / "out")
    healthy = samples(tmp_path / "out", "gui_screenspot")
    assert len(healthy) == 4 and all("sample_error" not in s for s in healthy), log[-3000:]
    reasons = {t: res["configs"][t]["metadata"].get("not_run", "") for t in
               ("gui_screenspot_pro", "gui_osworld_g", "gui_mmbench_gui_l2")}
    assert "stalled" in reasons["gui_screenspot_pro"] and hub.url in reasons["gui_screenspot_pro"], reasons
    assert "HTTP 500" in reasons["gui_osworld_g"] and "bomb" in reasons["gui_mmbench_gui_l2"], reasons
    assert TOKEN not in log and _files_holding(tmp_path, TOKEN) == []
    assert time.monotonic() - start < 600


@pytest.mark.slow
def test_an_endpoint_with_user_info_stops_the_hub_tasks_only_and_reaches_no_file(hub, tmp_path):
    from fake_openai import FakeServer
    from lmms_helpers import results, run_openai, samples

    hub.clear_hostile()
    env = {**_env(hub, tmp_path), "HF_ENDPOINT": hub.url.replace("//", f"//alice:{PASSWORD}@")}
    server = FakeServer(["ok"] * 8, text="A")
    asked = len(hub.requests)
    try:
        _proc, log = run_openai(server.base_url, "gui_osworld_g,mpr_gui_synth_en", tmp_path / "out", env, "--limit", "2")
    finally:
        server.stop()
    res = results(tmp_path / "out")
    assert len(samples(tmp_path / "out", "mpr_gui_synth_en")) == 2, log[-3000:]
    reason = res["configs"]["gui_osworld_g"]["metadata"].get("not_run", "")
    assert "carries a credential" in reason and "alice" not in reason, reason
    assert PASSWORD not in log and _files_holding(tmp_path, PASSWORD) == []
    assert [r for r in hub.requests[asked:] if "OSWorld" in r[1]] == []  # nothing was asked of the server
