"""Streaming served requests (issue 31): bounded work in flight, results in order, a file's own bytes when lossless,
cheap cache keys, a killed run that resumes from the cache; gui_hf and gui_wrap parse per batch or window.

The server is tests/fake_openai.py's scripted one; what it decodes from each body stands for what an engine decodes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from fake_openai import FakeServer, last_text
from gui_interventions import RequestContext, hookimpl
from gui_interventions.manager import InterventionRun
from gui_interventions.prompting import PromptAffix
from gui_core.image_files import file_source
from gui_models.openai_backend import GuiOpenAI
from gui_models.served_client import body_key, encode_image, request_key
from gui_tasks.harness.lmms_rows import load_image
from lmms_helpers import results, samples

FIVE = ["mpr_gui_synth_en", "icon_localization_synth", "star_state_control_synth", "gui_knowledge_synth_en_state",
        "sphinx_sim_toggle"]
LMMS = str(Path(sys.executable).with_name("lmms-eval"))


def _backend(url: str, **kw) -> GuiOpenAI:
    return GuiOpenAI(base_url=url, model="m", response_cache=kw.pop("response_cache", "none"), **kw)


def _req(text: str, images=()) -> RequestContext:
    return RequestContext(text=text, images=tuple(images), doc_id=0, task="t", gen_kwargs={"max_new_tokens": 4}, doc=None,
                          metadata={})


def _sent(body: dict) -> list[tuple[str, bytes]]:
    """(MIME type, bytes) of every image a chat body carries, in order."""
    out = []
    for part in body["messages"][-1]["content"]:
        if part.get("type") == "image_url":
            head, data = part["image_url"]["url"].split(",", 1)
            out.append((head[len("data:"):].split(";")[0], base64.b64decode(data)))
    return out


def _server_pixels(data: bytes) -> Image.Image:
    """What an engine that decodes with Pillow (vLLM, transformers serve) gets from the bytes: RGB pixels."""
    im = Image.open(io.BytesIO(data))
    im.load()
    return im.convert("RGB")


def _noise(size: tuple[int, int], mode: str = "RGB", seed: int = 0) -> Image.Image:
    w, h = size
    data = hashlib.shake_256(f"{seed}".encode()).digest(w * h * len(mode))
    return Image.frombytes(mode, size, data)


# --- the file's own bytes: the server decodes the pixels gui_hf sees ------------------------------------------------


def _files(root: Path) -> dict[str, Path]:
    root.mkdir(parents=True, exist_ok=True)
    files = {"jpeg": root / "phone.jpg", "png": root / "desk.png", "rgba": root / "alpha.png", "rotated": root / "rot.jpg",
             "palette": root / "pal.png", "gray": root / "gray.png"}
    _noise((120, 260), seed=1).save(files["jpeg"], quality=87)
    _noise((256, 144), seed=2).save(files["png"])
    _noise((64, 48), "RGBA", seed=3).save(files["rgba"])
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 on display: some decoders turn it, Pillow (and gui_hf) does not
    _noise((40, 30), seed=4).save(files["rotated"], exif=exif)
    _noise((50, 40), seed=5).convert("P").save(files["palette"])
    _noise((20, 10), "L", seed=6).save(files["gray"])
    return files


def test_the_server_decodes_from_the_files_own_bytes_exactly_the_pixels_gui_hf_decodes(tmp_path):
    files = _files(tmp_path)
    server = FakeServer(["ok"])
    try:
        oa = _backend(server.base_url)
        loaded = {k: load_image(str(p)) for k, p in files.items()}
        oa.generate_all([_req(k, [im]) for k, im in loaded.items()])
        got = {last_text(b): _sent(b)[0] for b in server.bodies}
    finally:
        server.stop()
    for name, im in loaded.items():
        mime, data = got[name]
        # gui_hf feeds its processor im.convert("RGB") of the same load_image result (hf_backend._inputs)
        assert _server_pixels(data).tobytes() == im.convert("RGB").tobytes(), name
        as_file = data == files[name].read_bytes()
        assert as_file == (name in ("jpeg", "png")), name  # only RGB PNG and unrotated RGB JPEG travel as files
        assert mime == ("image/jpeg" if name == "jpeg" else "image/png"), name


def test_a_changed_copied_or_rewritten_image_goes_as_png_of_the_decoded_pixels(tmp_path):
    files = _files(tmp_path)
    im = load_image(str(files["png"]))
    assert file_source(im) is not None and file_source(im.copy()) is None and file_source(im.convert("RGB")) is None
    enc = encode_image(im)
    assert enc.transport == "file" and enc.url.startswith("data:image/png;base64,")
    assert encode_image(im, transport="png").transport == "png"
    _noise((256, 144), seed=9).save(files["png"])  # the file changes after it was decoded
    os.utime(files["png"], ns=(time.time_ns(), time.time_ns() + 10**9))
    enc = encode_image(im)
    data = base64.b64decode(enc.url.split(",", 1)[1])
    assert enc.transport == "png" and _server_pixels(data).tobytes() == im.tobytes()


def test_an_intervention_that_changes_the_image_sends_its_pixels_not_the_file(tmp_path):
    files = _files(tmp_path)
    server = FakeServer(["ok"])
    try:
        oa = _backend(server.base_url, interventions="blind")
        req = oa.interventions.request(_req("q", [load_image(str(files["jpeg"]))]))
        oa.generate_all([req])
        (mime, data), = _sent(server.bodies[0])
    finally:
        server.stop()
    assert mime == "image/png" and set(_server_pixels(data).tobytes()) == {255}


class _ScribbleInPlace:
    """A third-party request stage that breaks the rule and draws on the request's image in place."""

    @hookimpl
    def gui_intervention_request(self, request):
        ImageDraw.Draw(request.images[0]).rectangle((0, 0, 9, 9), fill=(255, 0, 0))


def test_after_a_third_party_request_stage_images_go_as_pixels_even_when_drawn_on_in_place(tmp_path):
    files = _files(tmp_path)
    im = load_image(str(files["jpeg"]))
    InterventionRun([("scribble", _ScribbleInPlace())], sent_images=None).request(_req("q", [im]))
    enc = encode_image(im)
    data = base64.b64decode(enc.url.split(",", 1)[1])
    assert file_source(im) is None and enc.transport == "png"
    assert _server_pixels(data).getpixel((5, 5)) == (255, 0, 0) and _server_pixels(data).tobytes() == im.tobytes()


def test_a_builtin_prompt_intervention_keeps_the_file_transport(tmp_path):
    files = _files(tmp_path)
    im = load_image(str(files["jpeg"]))
    run = InterventionRun([("prompt_affix", PromptAffix(suffix="Think in English."))], sent_images=None)
    req = run.request(_req("q", [im]))
    assert req.text == "q\nThink in English." and req.images[0] is im
    assert file_source(im) is not None and encode_image(im).transport == "file"


def test_a_path_travels_as_its_bytes_without_being_decoded_here(tmp_path):
    files = _files(tmp_path)
    enc = encode_image(str(files["jpeg"]))
    assert enc.transport == "file" and enc.size == [120, 260]
    assert base64.b64decode(enc.url.split(",", 1)[1]) == files["jpeg"].read_bytes()
    assert encode_image(str(files["rgba"])).transport == "png"


# --- cache keys ----------------------------------------------------------------------------------------------------


def test_the_cache_key_is_the_body_with_each_image_replaced_by_the_digest_of_its_bytes(tmp_path):
    files = _files(tmp_path)
    oa = _backend("http://127.0.0.1:9/v1")
    im = load_image(str(files["png"]))
    p = oa.prepare(_req("where?", [im]))
    digest = "image/png;sha256=" + hashlib.sha256(files["png"].read_bytes()).hexdigest()
    assert p.digests == [digest]
    light = {**p.body, "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"digest": digest}},
                                                                 {"type": "text", "text": "where?"}]}]}
    assert request_key(p.body, p.digests, ["srv"], {"ns": 1}) == body_key(light, ["srv"], {"ns": 1})
    other = im.copy()
    other.putpixel((0, 0), tuple(255 - v for v in other.getpixel((0, 0))))
    keys = {request_key(q.body, q.digests, None, None)
            for q in (p, oa.prepare(_req("where?", [other])), oa.prepare(_req("where!", [im])))}
    assert len(keys) == 3


# --- streaming: bounded work in flight, order ----------------------------------------------------------------------


class _Docs:
    """A task whose doc_to_visual makes a fresh 300x200 screenshot per call and counts how many are alive at once."""

    def __init__(self, n: int) -> None:
        self.docs = [{"id": i} for i in range(n)]
        self.lock = threading.Lock()
        self.made = self.alive = self.most_alive = 0

    def _gone(self) -> None:
        with self.lock:
            self.alive -= 1

    def doc_to_visual(self, doc: dict) -> list[Image.Image]:
        im = _noise((300, 200), seed=doc["id"])
        weakref.finalize(im, self._gone)
        with self.lock:
            self.made += 1
            self.alive += 1
            self.most_alive = max(self.most_alive, self.alive)
        return [im]

    def instances(self):
        from lmms_eval.api.instance import Instance

        return [Instance("generate_until", (f"question {d['id']}", {"max_new_tokens": 4}, self.doc_to_visual, d["id"], "t",
                                            "test"), i, {"task": "t", "doc_id": d["id"], "repeats": 1}) for i, d in enumerate(self.docs)]


def test_generate_until_streams_within_its_window_and_answers_in_request_order():
    docs = _Docs(40)
    made_at_first: list[int] = []

    def reply(body: dict) -> str:
        if not made_at_first:
            made_at_first.append(docs.made)
        return "echo " + last_text(body)

    server = FakeServer(["sleep"], sleep_s=0.05, reply=reply)
    try:
        oa = _backend(server.base_url, concurrency=2, prefetch=2)
        oa.task_dict = {"t": {"test": docs.docs}}
        out = oa.generate_until(docs.instances())
    finally:
        server.stop()
    assert [o.text for o in out] == [f"echo question {i}" for i in range(40)]
    assert oa.window == 4 and docs.made == 40
    assert docs.most_alive <= oa.window  # screenshots dropped once their body is built
    assert made_at_first[0] <= oa.window  # the first request left before the rest were even decoded
    assert all(o.token_counts.input_tokens == 3 for o in out)


def test_a_failure_while_streaming_stops_the_requests_not_yet_started():
    docs = _Docs(30)
    server = FakeServer(["ok", "ok", "401", "ok"])  # a refused key stops the run (a 400 costs its sample only)
    try:
        oa = _backend(server.base_url, concurrency=1, prefetch=1)
        oa.task_dict = {"t": {"test": docs.docs}}
        with pytest.raises(Exception, match=r"refused the request \(HTTP 401"):
            oa.generate_until(docs.instances())
        time.sleep(0.2)
        assert server.hits <= 4 and docs.made <= 6
    finally:
        server.stop()


# --- through the lmms-eval CLI -------------------------------------------------------------------------------------


def _pixel_reply(body: dict) -> str:
    """A deterministic 'model': its answer depends on the decoded pixels and the text, never on how they were encoded."""
    h = hashlib.sha256(last_text(body).encode())
    for _mime, data in _sent(body):
        h.update(_server_pixels(data).tobytes())
    d = h.digest()
    return f"{'ABCD'[d[0] % 4]} [{d[1] % 100 / 100:.2f}, {d[2] % 100 / 100:.2f}] {{\"action\": \"tap\", \"index\": {d[3] % 5}}}"


def _cli(args: str, tasks: list[str], out: Path, env: dict, limit: int, **popen) -> subprocess.Popen:
    cmd = [LMMS, "--model", "gui_openai", "--model_args", args, "--tasks", ",".join(tasks), "--limit", str(limit),
           "--output_path", str(out), "--log_samples"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **popen)


def _comparable(sample: dict) -> dict:
    """A logged sample without what names the run (its arguments carry the model args)."""
    return {k: v for k, v in sample.items() if k not in ("arguments",)}


@pytest.mark.slow
def test_streaming_and_file_bytes_give_todays_answers_and_frames_on_the_five_families(subprocess_env, tmp_path):
    """Today's path: one request at a time, every image re-encoded as PNG at Pillow's default level; the streaming
    path: 32 in flight, files' own bytes. Same decoded pixels and texts -> the same samples, field by field."""
    server = FakeServer(["ok"], reply=_pixel_reply)
    try:
        base = f"base_url={server.base_url},model=m,response_cache=none"
        runs = {"today": f"{base},concurrency=1,image_transport=png,png_level=6", "streaming": f"{base},concurrency=32"}
        sent = {}
        for name, args in runs.items():
            before = server.hits
            proc = _cli(args, FIVE, tmp_path / name, subprocess_env, 3)
            log, _ = proc.communicate(timeout=900)
            assert proc.returncode == 0, log[-3000:]
            assert sorted(results(tmp_path / name)["results"]) == sorted(FIVE), log[-3000:]
            images = [im for b in server.bodies[before:] for im in _sent(b)]
            sent[name] = ({hashlib.sha256(d).hexdigest() for _m, d in images},
                          {hashlib.sha256(_server_pixels(d).tobytes()).hexdigest() for _m, d in images})
    finally:
        server.stop()
    assert sent["today"][1] == sent["streaming"][1]  # the same pixels reached the server...
    assert sent["today"][0] != sent["streaming"][0]  # ...in other bytes (files as they are, PNG at level 1)
    for task in FIVE:
        a, b = samples(tmp_path / "today", task), samples(tmp_path / "streaming", task)
        assert len(a) == len(b) >= 1, task
        assert [_comparable(s) for s in a] == [_comparable(s) for s in b], task
    frames = [s["grounding_acc"]["served_frame"] for s in samples(tmp_path / "streaming", "icon_localization_synth")]
    assert frames and all(f["source"] == "none" and len(f["sent_sizes"]) == 1 for f in frames)


@pytest.mark.slow
def test_a_killed_streaming_run_resumes_from_the_cache_without_asking_again(subprocess_env, tmp_path):
    cache = tmp_path / "cache"
    n = 12

    def reply(body: dict) -> str:
        return "id:" + hashlib.sha256(last_text(body).encode()).hexdigest()[:16]

    server = FakeServer(["sleep"], sleep_s=0.4, reply=reply)
    try:
        args = f"base_url={server.base_url},model=m,response_cache={cache},concurrency=2"
        proc = _cli(args, ["mpr_gui_synth_en"], tmp_path / "first", subprocess_env, n, start_new_session=True)
        deadline = time.monotonic() + 600
        while server.hits < 5 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)  # the process group this test started
        proc.communicate(timeout=60)
        assert 5 <= server.hits < n
        first = server.hits
        stored = {json.loads(p.read_text())["response"]["choices"][0]["message"]["content"]
                  for p in cache.rglob("*.json")}
        assert 1 <= len(stored) < n
        server.script = ["ok"]
        proc = _cli(args, ["mpr_gui_synth_en"], tmp_path / "second", subprocess_env, n)
        log, _ = proc.communicate(timeout=900)
        assert proc.returncode == 0, log[-3000:]
        again = [reply(b) for b in server.bodies[first:]]
    finally:
        server.stop()
    assert not stored & set(again)  # nothing answered and stored before the kill is asked again
    assert len(again) == n - len(stored) and len(set(again)) == len(again)
    done = samples(tmp_path / "second", "mpr_gui_synth_en")
    assert len(done) == n
    every = stored | set(again)
    found = [[a for a in every if a in json.dumps(s)] for s in done]
    assert all(len(f) == 1 for f in found) and {f[0] for f in found} == every  # each answer: cached, or asked once now


# --- gui_hf and gui_wrap: one batch / one window of screenshots at a time ------------------------------------------


def test_gui_hf_holds_a_bounded_number_of_screenshots_and_answers_as_batches_of_the_same_requests(tiny_checkpoint):
    from gui_models.hf_backend import GuiHF

    docs = _Docs(30)  # defaults: sorting windows of 8 batches, one batch prepared ahead (gui_models.hf_pipeline)
    hf = GuiHF(pretrained=str(tiny_checkpoint), device="cpu", batch_size=2, max_new_tokens=3)
    hf.task_dict = {"t": {"test": docs.docs}}
    assert len(hf.generate_until(docs.instances())) == 30
    assert docs.made == 30 and docs.most_alive <= hf.requests_held < 30
    docs = _Docs(11)  # request order, each batch prepared when it is needed: one batch of screenshots
    hf.bucket, hf.prefetch = 1, 0
    hf.task_dict = {"t": {"test": docs.docs}}
    out = hf.generate_until(docs.instances())
    # the batch, the request that closes it, and the last batch's rows kept by the hooks' record (GenerateHooks.records)
    assert docs.most_alive <= 2 * hf.batch_size + 1 < 11
    again = _Docs(11)
    hf.task_dict = {"t": {"test": again.docs}}
    contexts = [hf._request_context(r) for r in again.instances()]
    expected = [g.response() for k in range(0, 11, 2) for g in hf._generate(contexts[k:k + 2])]
    assert [str(o) for o in out] == [str(e) for e in expected]


def test_gui_wrap_hands_its_backend_one_window_of_requests_at_a_time():
    from gui_models.wrap_backend import GuiWrap

    docs = _Docs(150)
    wrap = GuiWrap(backend="dummy")
    wrap.task_dict = {"t": {"test": docs.docs}}
    out = wrap.generate_until(docs.instances())
    assert len(out) == 150 and docs.made == 150
    assert docs.most_alive <= wrap.window < 150
