"""Bounds on what a document, a file or a server may ask of a run (issue 47; gui_core.bounds, docs/security.md)."""

from __future__ import annotations

import json
import time

import pytest
from PIL import Image

from gui_core.bounds import (MAX_NEW_TOKENS, BoundError, check_depth, check_generation, check_request, loads,
                             max_prompt_chars)


# --- the floor's checks ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, message", [
    ('{"bbox": [NaN, 1, 2, 3]}', "NaN is not a number JSON allows"),
    ('{"w": Infinity}', "Infinity is not a number JSON allows"),
    ('{"w": -Infinity}', "-Infinity is not a number JSON allows"),
    ('{"w": ' + "9" * 5000 + "}", "an integer of 5000 digits"),
    ('{"w": 1e999}', "beyond the range of a double"),
    ('{"bbox": ' + "[" * 900 + "1" + "]" * 900 + "}", "nested deeper than"),
])
def test_json_from_outside_refuses_non_finite_huge_and_deep_values_by_name(text, message):
    start = time.monotonic()
    with pytest.raises(BoundError, match=message):
        loads(text)
    assert time.monotonic() - start < 1.0
    assert loads('{"bbox": [1, 2.5, -3, 4]}') == {"bbox": [1, 2.5, -3, 4]}


def test_depth_is_measured_without_recursion():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(BoundError, match="nested deeper than 64 levels"):
        check_depth(deep)
    check_depth([[1, 2], {"a": [3]}])


def test_a_prompt_or_an_image_count_past_its_bound_is_refused(monkeypatch):
    check_request("x" * max_prompt_chars(), [])
    with pytest.raises(BoundError, match=r"the prompt has 1048576 characters, above the bound of 262144"):
        check_request("x" * (1 << 20), [])
    with pytest.raises(BoundError, match="65 images in one document"):
        check_request("q", [None] * 65)
    monkeypatch.setenv("GUI_EVAL_MAX_PROMPT_CHARS", "10")
    with pytest.raises(BoundError, match="11 characters, above the bound of 10"):
        check_request("x" * 11, [])


def test_an_image_qwen2_vl_would_refuse_is_refused_at_decode(tmp_path):
    from gui_core.images import ImageRefused, decode, image_size

    thin = tmp_path / "thin.png"
    Image.new("RGB", (4020, 20)).save(thin)
    with pytest.raises(ImageRefused, match=r"4020 x 20 pixels: aspect ratio 201.0 is above 200"):
        decode(thin)
    with pytest.raises(ImageRefused, match="aspect ratio"):
        image_size(thin)
    ok = tmp_path / "ok.png"
    Image.new("RGB", (4000, 20)).save(ok)
    assert decode(ok).size == (4000, 20)


@pytest.mark.parametrize("gen, message", [
    ("max_new_tokens=10000000,temperature=0", "max_new_tokens=10000000 is outside 0..32768"),
    ({"max_new_tokens": 10 ** 40}, "not a number an honest run uses"),
    ("num_beams=1000", "num_beams=1000 is outside 0..16"),
    ("max_new_tokens=nan", "outside"),
])
def test_generation_settings_from_a_file_are_bounded(gen, message):
    with pytest.raises(BoundError, match=message):
        check_generation(gen)
    check_generation(f"max_new_tokens={MAX_NEW_TOKENS},temperature=0")
    check_generation(None)


def test_verify_never_reruns_a_file_asking_for_ten_million_tokens():
    from gui_tasks.submit.verify import _generation_kwargs

    with pytest.raises(BoundError, match="max_new_tokens=10000000"):
        _generation_kwargs({"gen_kwargs": "max_new_tokens=10000000", "seeds": [0, 1, 2, 3]})
    assert _generation_kwargs({"gen_kwargs": "max_new_tokens=64"})["gen_kwargs"] == "max_new_tokens=64"


def test_every_gui_eval_help_page_prints(capsys):
    from gui_tasks.commands.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0 and "compare" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["compare", "--help"])
    assert done.value.code == 0


# --- the request stage (every backend) ---------------------------------------------------------------------------
def test_a_one_megabyte_instruction_is_its_samples_error_before_any_model():
    from gui_core.sample_faults import fault_of
    from gui_models.generation_core import contained_request

    class Run:
        def request(self, req):
            return req

    docs = {"bounds_t": {"test": [{"id": "short"}, {"id": "long"}]}}
    ok = contained_request(Run(), ("q", {"until": []}, lambda d: [], 0, "bounds_t", "test"), docs)
    bad = contained_request(Run(), ("x" * (1 << 20), {"until": []}, lambda d: [], 1, "bounds_t", "test"), docs)
    assert ok.text == "q" and fault_of("bounds_t", {"id": "short"}) is None
    assert bad.text == "" and "BoundError: the prompt has 1048576 characters" in fault_of("bounds_t", {"id": "long"})


# --- gui_openai: secrets, bad answers, the cache ------------------------------------------------------------------
@pytest.mark.parametrize("url, part", [
    ("http://user:sk-SECRET@127.0.0.1:8000/v1", "user-info"),
    ("http://127.0.0.1:8000/v1?api_key=sk-SECRET", "query parameter 'api_key'"),
    ("http://127.0.0.1:8000/v1?x=1&access-token=sk-SECRET", "query parameter 'access-token'"),
])
def test_a_base_url_carrying_a_key_is_refused_without_echoing_it(url, part):
    from gui_models.model_args import check_gui_openai_args, check_model_args
    from gui_models.openai_backend import GuiOpenAI

    for refuse in (lambda: check_gui_openai_args({"base_url": url, "model": "m"}),
                   lambda: check_model_args("gui_openai", f"base_url={url},model=m"),
                   lambda: GuiOpenAI(base_url=f"http://127.0.0.1:1/v1|{url}", model="m", response_cache="none")):
        with pytest.raises(ValueError, match="carries a credential") as err:
            refuse()
        assert part in str(err.value) and "sk-SECRET" not in str(err.value)


def test_content_null_without_tool_calls_is_a_bad_answer_never_cached(tmp_path):
    from fake_openai import FakeServer
    from test_openai_backend import _backend, _req

    server = FakeServer(["nullcontent"])
    try:
        out = _backend(server.base_url, response_cache=str(tmp_path), max_retries=2)._generate_sync(_req())
        assert out.text == "" and "content is null and there are no tool calls" in out.extras["bad_response"]
        assert server.hits == 2 and not list(tmp_path.rglob("*.json"))
    finally:
        server.stop()


def test_a_30_mb_answer_serves_its_sample_and_writes_no_cache_entry(tmp_path):
    from fake_openai import FakeServer
    from test_openai_backend import _backend, _req

    server = FakeServer(["ok"], text="x" * (30 << 20))
    try:
        out = _backend(server.base_url, response_cache=str(tmp_path))._generate_sync(_req(max_new_tokens=16))
        assert out.extras["answer_cut"]["chars"] == 30 << 20 and len(out.text) == 16 * 64
        assert not list(tmp_path.rglob("*.json"))
    finally:
        server.stop()
    from gui_models.served_client import ResponseCache

    cache = ResponseCache(tmp_path / "c")
    assert cache.put("ab" * 32, {"choices": [{"message": {"content": "y" * (9 << 20)}}]}) is False
    assert not list((tmp_path / "c").rglob("*"))


def test_retry_after_past_the_budget_is_not_waited_and_costs_one_sample():
    from fake_openai import FakeServer
    from test_openai_backend import _backend, _req

    server = FakeServer(["429"])
    server.retry_after = "999999"
    try:
        start = time.monotonic()
        out = _backend(server.base_url, max_retries=5, retry_budget_s=30)._generate_sync(_req())
        assert time.monotonic() - start < 5.0 and server.hits == 1
        assert "HTTP 429" in out.extras["request_error"] and "Retry-After 999999 s is past the retry budget" in \
            out.extras["request_error"]
    finally:
        server.stop()
    server = FakeServer(["429", "ok"], text="waited")
    server.retry_after = "0.3"
    try:
        start = time.monotonic()
        assert _backend(server.base_url, max_retries=3)._generate_sync(_req()).text == "waited"
        assert time.monotonic() - start >= 0.3 and server.hits == 2
    finally:
        server.stop()


def test_an_unauthorised_key_stops_the_run_at_once():
    from fake_openai import FakeServer
    from test_openai_backend import _backend, _req

    from gui_models.served_client import ServerDown

    server = FakeServer(["401"])
    try:
        with pytest.raises(ServerDown, match="HTTP 401"):
            _backend(server.base_url).generate_all([_req(f"q{i}") for i in range(10)])
        assert server.hits <= 8
    finally:
        server.stop()


def test_gui_wrap_retries_a_failing_batch_one_request_at_a_time():
    from gui_core.sample_faults import fault_of
    from gui_interventions import RequestContext
    from gui_models.thinking import Thinking
    from gui_models.wrap_backend import GuiWrap

    class Inner:
        calls: list = []

        def generate_until(self, instances):
            self.calls.append(len(instances))
            if any("poison" in i.args[0] for i in instances):
                raise RuntimeError("the processor raised on this document")
            return [f"answer {i.args[0]}" for i in instances]

    wrap = GuiWrap.__new__(GuiWrap)
    wrap.inner, wrap.module, wrap.backend_name = Inner(), None, "inner"
    wrap._pending, wrap._materialised = {}, []
    wrap.thinking, wrap.tokenizer = Thinking.from_args({}, "gui_wrap"), None  # the model's default; no tokenizer
    reqs = [RequestContext(text=t, images=(), doc_id=i, task="wrap_t", gen_kwargs={}, doc={"id": f"w{i}"},
                           metadata={"split": "test"}) for i, t in enumerate(["a", "poison", "c"])]
    out = wrap._call(reqs)
    assert [g.text for g in out] == ["answer a", "", "answer c"] and Inner.calls == [3, 1, 1, 1]
    assert fault_of("wrap_t", {"id": "w1"}) == ("the wrapped backend (inner): RuntimeError: the processor raised on "
                                               "this document")
    assert fault_of("wrap_t", {"id": "w0"}) is None
    json.dumps([g.text for g in out])


# --- loaders: one bad line costs one row --------------------------------------------------------------------------
def test_one_bad_byte_in_line_1_of_an_mpr_jsonl_costs_that_row_only(tmp_path):
    import shutil
    from pathlib import Path

    from gui_tasks.harness.bad_rows import BadRows
    from gui_tasks.mpr import release

    root = tmp_path / "mpr"
    shutil.copytree(Path(__file__).parent / "fixtures" / "mpr_official", root)
    target = root / "qas" / "wf_en.jsonl"
    data = target.read_bytes()
    n = sum(1 for line in data.splitlines() if line.strip())
    target.write_bytes(b"\xff" + data)  # one bad byte in line 1
    nan = root / "qas" / "wi_en.jsonl"
    rows_wi = nan.read_text().splitlines()
    nan.write_text("\n".join([rows_wi[0].replace("{", '{"w": NaN, ', 1), *rows_wi[1:]]) + "\n")
    bad = BadRows(skip=True)
    rows = list(release.read_raw_rows(root, "en", bad=bad))
    dims = {r["dimension"] for r in rows}
    assert len(dims) == 8  # FPR-ACC keeps all eight dimensions
    assert sum(1 for r in rows if r["file"] == str(target)) == n - 1
    messages = sorted(str(e) for e in bad.errors)
    assert len(messages) == 2 and any("line 1: not UTF-8 text" in m and "wf_en.jsonl" in m for m in messages)
    assert any("NaN is not a number JSON allows" in m and "wi_en.jsonl, row 0" in m for m in messages)
    with pytest.raises(Exception, match="line 1: not UTF-8 text"):
        list(release.read_raw_rows(root, "en", bad=BadRows(skip=False)))


def test_a_5000_digit_integer_in_any_jsonl_is_a_data_error_naming_the_line(tmp_path):
    from gui_core.errors import DataError
    from gui_tasks.runs.input_files import read_jsonl

    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": 1}\n{"id": ' + "7" * 5000 + "}\n")
    with pytest.raises(DataError, match=r"rows.jsonl, row 1\b.*line 2: invalid JSON"):
        read_jsonl(path)


# --- GUI-XLI memories are checked at load ---------------------------------------------------------------------------
def _memory(tmp_path, hidden=8, poison=False, declared=None):
    import torch

    from gui_interventions.xli_memory import XLIMemory, entry_record

    keys = torch.randn(1, 2, hidden)
    if poison:
        keys[0, 1, 3] = float("nan")
    mem = XLIMemory((2,), keys, torch.randn(1, 2, hidden), [entry_record("a", "WF"), entry_record("b", "WI")])
    folder = tmp_path / "mem"
    mem.save(folder)
    if declared is not None:
        doc = json.loads((folder / "memory.json").read_text())
        doc["hidden_size"] = declared
        (folder / "memory.json").write_text(json.dumps(doc))
    return folder


def test_a_memory_holding_nan_or_a_wrong_hidden_size_is_refused_by_name(tmp_path):
    from gui_interventions.xli_memory import XLIMemory

    assert XLIMemory.load(_memory(tmp_path / "ok")).hidden_size == 8
    with pytest.raises(ValueError, match=r"memory.safetensors: 1 non-finite value\(s\) \(NaN or Inf\) in 'keys'"):
        XLIMemory.load(_memory(tmp_path / "nan", poison=True))
    with pytest.raises(ValueError, match=r"memory.json: field 'hidden_size' is 16 but memory.safetensors holds vectors of "
                                         r"size 8"):
        XLIMemory.load(_memory(tmp_path / "size", declared=16))


# --- grounding loaders: each hostile row costs that row, with skipping on; the data check says the same ---------------
def hostile_pro_rows(root):
    """The ScreenSpot-Pro fixture (3 rows) plus 7 hostile rows: NaN and Infinity in a bbox, a 5,000-digit integer in
    img_size, a 900-deep nested bbox, a repeated id, a 0-byte screenshot, a text file as screenshot, a 4020 x 20 one."""
    import shutil
    from pathlib import Path

    shutil.copytree(Path(__file__).parent / "fixtures" / "screenspot_pro", root)
    ann = root / "annotations" / "vscode_macos.json"
    rows = json.loads(ann.read_text())
    base = rows[0]
    shots = root / "images" / "vscode_macos"
    (shots / "empty.png").write_bytes(b"")
    (shots / "text.png").write_text("not an image\n")
    Image.new("RGB", (4020, 20)).save(shots / "thin.png")
    texts = [json.dumps(r, ensure_ascii=False) for r in rows]
    texts += [json.dumps({**base, "id": "nan"}).replace('"bbox": [100, 50, 160, 80]', '"bbox": [NaN, 50, 160, 80]'),
              json.dumps({**base, "id": "inf"}).replace('"bbox": [100, 50, 160, 80]', '"bbox": [100, 50, Infinity, 80]'),
              json.dumps({**base, "id": "huge"}).replace('"img_size": [400, 250]', '"img_size": [' + "4" * 5000 + ", 250]"),
              json.dumps({**base, "id": "deep"}).replace('"bbox": [100, 50, 160, 80]',
                                                         '"bbox": ' + "[" * 900 + "1" + "]" * 900),
              json.dumps({**base, "id": "vscode_macos_1"}),
              json.dumps({**base, "id": "empty", "img_filename": "vscode_macos/empty.png"}),
              json.dumps({**base, "id": "text", "img_filename": "vscode_macos/text.png"}),
              json.dumps({**base, "id": "thin", "img_filename": "vscode_macos/thin.png", "img_size": [4020, 20],
                          "bbox": [0, 0, 10, 10]})]
    ann.write_text("[" + ",\n".join(texts) + "]")
    return root


def test_each_hostile_grounding_row_costs_that_row_and_the_data_check_agrees(tmp_path):
    from gui_core.sample_faults import DOC_ERROR
    from gui_tasks.harness.bad_rows import BadRows
    from gui_tasks.grounding import screenspot
    from gui_tasks.harness.lmms_rows import refuse_duplicate_ids

    root = hostile_pro_rows(tmp_path / "pro")
    bad = BadRows(skip=True)
    docs = refuse_duplicate_ids(screenspot.load_pro(root, bad))
    refused = {e.row: (e.field, e.reason) for e in bad.errors}
    assert sorted(refused) == [3, 4, 5, 6], refused
    assert refused[3] == ("bbox[0]", "NaN is not a finite number (NaN, Infinity and numbers beyond a double are refused)")
    assert refused[4][0] == "bbox[2]" and "Infinity is not a finite number" in refused[4][1]
    assert refused[5][0] == "img_size[0]" and "an integer of 5000 digits" in refused[5][1]
    assert refused[6][0].startswith("bbox[0]") and "nested deeper than 64 levels" in refused[6][1]
    errors = {d["id"]: d.get(DOC_ERROR) for d in docs}
    healthy = ["screenspot_pro-vscode_macos_0", "screenspot_pro-vscode_macos_1", "screenspot_pro-vscode_macos_2"]
    assert [errors[i] for i in healthy] == [None, None, None]
    twin = [i for i in errors if i.startswith("screenspot_pro-vscode_macos_1#row")]
    assert len(twin) == 1 and "is row 1's too" in errors[twin[0]]
    assert "empty.png refused" in errors["screenspot_pro-empty"] and "text.png refused" in errors["screenspot_pro-text"]
    assert "aspect ratio 201.0 is above 200" in errors["screenspot_pro-thin"]
    check = screenspot.data_check_pro(root)  # `gui-eval data check`: the same rows, by name
    check.decode_images()
    said = "\n".join(str(e) for e in check.errors)
    for needle in ("row 3, field 'bbox[0]'", "row 5, field 'img_size[0]'", "row 6", "empty.png", "text.png",
                   "aspect ratio 201.0"):
        assert needle in said, (needle, said)


# --- reports on files the user did not write ----------------------------------------------------------------------
def test_sphinx_report_renders_a_1500_round_trajectory_in_bounded_memory_and_names_broken_ones(tmp_path, capsys):
    import resource

    from gui_tasks.sphinx import report

    traj = tmp_path / "traj"
    traj.mkdir()
    long = {"id": "nav/DndOn", "observation": "full_text", "rendering": "paper-prose", "agent": "ours",
            "on_format_error": "skip", "outputs": ["click [0]"] * 1500}
    (traj / "long.json").write_text(json.dumps(long))
    assert len((traj / "long.json").read_text()) < 30_000
    (traj / "types.json").write_text(json.dumps({**long, "outputs": {"a": 1}}))
    (traj / "list.json").write_text("[1, 2]")
    (traj / "huge.json").write_text('{"id": ' + "1" * 5000 + ', "outputs": []}')
    short = tmp_path / "short"
    short.mkdir()
    (short / "short.json").write_text(json.dumps({**long, "outputs": ["click [0]"] * 10}))
    report.render_trajectories(short, tmp_path / "out_short")  # the simulator's own memory, met once
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    pages = report.render_trajectories(traj, tmp_path / "out")
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    # 1,500 rounds cost no more than 10 (before: +590 MiB at 300 rounds, ~6 GB at 1,500)
    assert [p.name for p in pages] == ["long.html"] and grown_mib < 150, grown_mib
    with Image.open(tmp_path / "out" / "long.png") as im:
        assert im.size == (360 * (report.MAX_STRIP_FRAMES + 1), 720 + 24)
    assert (tmp_path / "out" / "long.html").read_text().count("<li>") == 1501
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3
    assert any("types.json" in line and "field 'outputs'" in line for line in err)
    assert any("list.json" in line and "not a trajectory object" in line for line in err)
    assert any("huge.json" in line and "an integer of 5000 digits" in line for line in err)


def test_results_and_samples_of_the_wrong_types_are_one_line_errors_in_every_reader(tmp_path, capsys):
    from gui_tasks.commands.cli import main
    from gui_core.errors import DataError
    from gui_tasks.runs.results_io import load_results, load_samples

    raw = {"results": {"t": {"acc,none": 1.0}}, "configs": {"t": {}}, "n-samples": {"t": "many"}, "config": {}}
    run = tmp_path / "run" / "m"
    run.mkdir(parents=True)
    (run / "20260101_000000_results.json").write_text(json.dumps(raw))
    with pytest.raises(DataError, match=r"field 'n-samples.t': expected"):
        load_results(run / "20260101_000000_results.json")
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"doc_id": 0}\n{"doc_id": [1]}\n')
    with pytest.raises(DataError, match=r"row 1, field 'doc_id': sample 2: doc_id is a list"):
        load_samples(samples)
    huge = tmp_path / "huge" / "m"
    huge.mkdir(parents=True)
    (huge / "20260101_000000_results.json").write_text('{"results": {"t": {"acc,none": ' + "1" * 5000 + "}}}")
    for argv in (["compare", str(tmp_path / "run"), str(tmp_path / "huge")], ["pss-report", str(tmp_path / "huge")],
                 ["view", str(tmp_path / "run"), "--out", str(tmp_path / "site")]):
        assert main(argv) != 0
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err and "results.json" in captured.err, (argv, captured.err[-500:])
