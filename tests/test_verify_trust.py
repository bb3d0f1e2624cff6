"""``gui-eval verify`` cannot be fooled: it re-runs only checkpoints it loads itself, or the verifier's own server."""

from __future__ import annotations

import copy
import json
import os
import re

import pytest
from fake_openai import FakeServer
from submission_helpers import honest_run

from gui_tasks.submit.leaderboard import SubmissionError, build_submission, submission_hash, validate_submission

SECRET = "sk-verifier-secret-0123456789"


def _always_a(doc, i):
    return "Answer: A"


def _write(sub, path):
    path.write_text(json.dumps(sub))
    return str(path)


@pytest.fixture()
def oracle():
    server = FakeServer(["ok"], text="Answer: A")
    yield server
    server.stop()


def test_forged_submission_from_lmms_evals_openai_backend_fails_verify_and_no_key_leaves(session_cache, oracle, tmp_path,
                                                                                        monkeypatch, capsys):
    """The issue's forgery: lmms-eval's own ``openai`` backend pointed at an oracle server, named as a real checkpoint."""
    from gui_tasks.submit import verify

    honest_run(tmp_path / "run", model_args=f"model_version=Qwen/Qwen2-VL-2B-Instruct,base_url={oracle.base_url}",
               rule=_always_a, backend="openai")
    sub = build_submission(tmp_path / "run")
    validate_submission(sub)  # the hashes and re-scoring cannot tell: only a re-run can
    assert sub["model"]["name"] == "Qwen/Qwen2-VL-2B-Instruct"
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    rc = verify.main([_write(sub, tmp_path / "forged.json"), "--checkpoint", str(tmp_path), "--docs", "3", "--seed", "1"])
    err = capsys.readouterr().err
    assert rc == 1 and "refused: backend 'openai' does not load the checkpoint itself" in err
    assert oracle.hits == 0 and not oracle.saw(SECRET)
    assert os.environ["OPENAI_API_KEY"] == SECRET  # the verifier's environment is left as it was


@pytest.mark.parametrize("backend, args, message", [
    ("vllm", "model=/ck,tensor_parallel_size=1", "backend 'vllm' does not load the checkpoint itself"),
    ("openai", "model_version=X,base_url=http://127.0.0.1:1/v1", "backend 'openai' does not load"),
    ("qwen2_5_vl", "pretrained=X,base_url=http://127.0.0.1:1/v1", "model arg base_url= can send requests elsewhere"),
    ("qwen2_5_vl", "pretrained=X,model=Y", "model arg model= can send requests elsewhere or name another model"),
    ("qwen2_5_vl", "pretrained=X,attn_implementation=http://evil/x", "is a URL"),
    ("gui_wrap", "backend=openai,model_version=X", "gui_wrap around 'openai'"),
    ("gui_wrap", "backend=qwen2_5_vl,pretrained=X,api_base=http://h/v1", "model arg api_base= can send requests"),
])
def test_rerun_args_refuse_backends_and_args_that_send_requests_elsewhere(backend, args, message):
    from gui_tasks.submit.verify import rerun_args

    with pytest.raises(SubmissionError, match=message):
        rerun_args({"backend": backend, "args": args}, checkpoint="/mine")


def test_rerun_args_set_the_verifiers_checkpoint_or_server():
    from gui_tasks.submit.verify import NO_KEY_ENV, rerun_args

    assert rerun_args({"backend": "gui_hf", "args": "pretrained=Org/X,device=cuda,system_prompt='a, b'"},
                      checkpoint="/ck", device="cpu") == "pretrained=/ck,device=cpu,system_prompt='a, b'"
    assert rerun_args({"backend": "gui_wrap", "args": "backend=qwen2_5_vl,pretrained=Org/X,interventions=blind"},
                      checkpoint="/ck") == "pretrained=/ck,backend=qwen2_5_vl,interventions=blind"
    served = {"backend": "gui_openai", "args": "base_url=http://submitter:8000/v1,model=Org/X,api_key_env=SUB_KEY,"
                                               "response_cache=/shared"}
    assert rerun_args(served, server="http://127.0.0.1:9000/v1") == \
        f"base_url=http://127.0.0.1:9000/v1,api_key_env={NO_KEY_ENV},response_cache=none,model=Org/X"
    assert rerun_args(served, server="http://127.0.0.1:9000/v1", served_model="mine", api_key_env="MY_KEY") == \
        "base_url=http://127.0.0.1:9000/v1,api_key_env=MY_KEY,response_cache=none,model=mine"
    with pytest.raises(SubmissionError, match="verified against a server you run: give --server"):
        rerun_args(served, checkpoint="/ck")
    with pytest.raises(SubmissionError, match="one http"):
        rerun_args(served, server="http://a/v1|http://b/v1")
    with pytest.raises(SubmissionError, match="--server verifies gui_openai submissions"):
        rerun_args({"backend": "gui_hf", "args": "pretrained=X"}, server="http://127.0.0.1:1/v1")


def test_verify_fails_when_the_backend_did_not_load_the_checkpoint(honest, monkeypatch):
    """A backend that answers without loading the named checkpoint (cached engine, remote code...) is refused."""
    from gui_tasks.submit import verify

    loaded = []
    monkeypatch.setattr(verify, "load_model", lambda backend, args: loaded.append(args) or object())
    monkeypatch.setattr(verify, "rerun", lambda *a: pytest.fail("re-ran without the checkpoint"))
    with pytest.raises(SubmissionError, match=r"did not load /mine \(transformers loaded nothing\)"):
        verify.verify(copy.deepcopy(honest), "/mine", docs=2)
    assert loaded == ["pretrained=/mine,device=cpu"]


def test_recording_loads_sees_from_pretrained_and_undoes_its_patch(tmp_path):
    from transformers import PreTrainedModel, Qwen2VLForConditionalGeneration

    from gui_tasks.submit.verify import recording_loads, same_checkpoint

    original = PreTrainedModel.__dict__["from_pretrained"]
    with recording_loads() as seen:
        with pytest.raises(OSError):
            Qwen2VLForConditionalGeneration.from_pretrained(str(tmp_path / "absent"), local_files_only=True)
    assert seen == [str(tmp_path / "absent")]
    assert PreTrainedModel.__dict__["from_pretrained"] is original
    assert same_checkpoint(str(tmp_path), str(tmp_path) + "/") and same_checkpoint(str(tmp_path), str(tmp_path / "." ))
    assert not same_checkpoint("Org/A", "Org/B")


def test_without_secrets_removes_keys_and_endpoints_and_restores_them(monkeypatch):
    from gui_tasks.submit.verify import without_secrets

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://evil/v1")
    monkeypatch.setenv("HF_TOKEN", "hf_x")
    monkeypatch.setenv("MY_SERVER_KEY_API_KEY", "mine")
    monkeypatch.setenv("GUI_EVAL_CACHE", os.environ.get("GUI_EVAL_CACHE", "/tmp"))
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws")
    with without_secrets(keep=["MY_SERVER_KEY_API_KEY"]) as removed:
        assert {"OPENAI_API_KEY", "OPENAI_BASE_URL", "HF_TOKEN", "AWS_SECRET_ACCESS_KEY"} <= set(removed)
        assert os.environ["TOKENIZERS_PARALLELISM"] == "false"  # not a secret
        assert "OPENAI_API_KEY" not in os.environ and "HF_TOKEN" not in os.environ
        assert os.environ["MY_SERVER_KEY_API_KEY"] == "mine" and "GUI_EVAL_CACHE" in os.environ
    assert os.environ["OPENAI_API_KEY"] == SECRET and os.environ["OPENAI_BASE_URL"] == "http://evil/v1"


def test_served_submission_is_verified_against_the_verifiers_server_only(session_cache, oracle, tmp_path, monkeypatch, capsys):
    """``gui_openai``: the re-run goes to --server (never the submitter's base_url), cache off, only the named key sent."""
    from gui_tasks.submit import verify

    submitter = FakeServer(["ok"], text="Answer: A")
    try:
        honest_run(tmp_path / "run", ["en", "zh", "fr", "ru", "ja", "th"], rule=_always_a, backend="gui_openai",
                   model_args=f"model=Org/Tiny-VL-2B,base_url={submitter.base_url}")
        sub = build_submission(tmp_path / "run")
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("VERIFIER_KEY", "sk-mine")
        path = _write(sub, tmp_path / "served.json")
        rc = verify.main([path, "--server", oracle.base_url, "--docs", "2", "--seed", "5", "--api-key-env", "VERIFIER_KEY"])
        out = capsys.readouterr()
        assert rc == 0, out.err[-2000:]
        assert "2/2 responses reproduced" in out.out
        assert submitter.hits == 0 and oracle.hits == 2
        assert not oracle.saw(SECRET) and {h.get("authorization") for h in oracle.headers} == {"Bearer sk-mine"}
        assert verify.main([path, "--checkpoint", str(tmp_path)]) == 1
        assert "verified against a server you run" in capsys.readouterr().err
    finally:
        submitter.stop()


def test_system_prompt_changes_the_protocol_label_and_a_plain_label_is_refused(session_cache, tmp_path):
    from gui_tasks.harness.rescore import sha256_text

    honest_run(tmp_path / "run", model_args="pretrained=Org/Tiny-VL-2B,device=cpu,system_prompt=Answer with A.")
    sub = build_submission(tmp_path / "run")
    label = f"mpr-direct-v1+system_prompt:sha256:{sha256_text('Answer with A.')[:12]}"
    assert {t["protocol"] for t in sub["tasks"]} == {label}
    validate_submission(sub)
    for t in sub["tasks"]:
        t["protocol"] = "mpr-direct-v1"
    sub["submission_sha256"] = submission_hash(sub)
    with pytest.raises(SubmissionError, match=re.escape(f"labelled 'mpr-direct-v1' but the run used '{label}'")):
        validate_submission(sub)


def test_submit_accepts_a_full_run_whose_model_never_answers_unknown(session_cache, tmp_path):
    """gkb_unknown_precision is undefined (NaN) without any "unknown" answer: recorded as null, not a refusal."""
    name = "gui_knowledge_synth_en_state"  # loading the task builds its synthetic data in the session cache
    path = honest_run(tmp_path / "run", tasks=[name], rule=lambda doc, i: "no" if doc["answer"] == "unknown" else doc["answer"])
    assert json.loads(path.read_text().replace("NaN", "null"))["results"][name]["gkb_unknown_precision,none"] is None
    sub = build_submission(tmp_path / "run", partial=True)  # one sub-task of eight: a partial submission
    assert sub["partial"]["incomplete"][0].startswith("GUI Knowledge Bench gui_knowledge_synth_en_* under protocol "
                                                      "gkb-a3-v3: sub-task(s) ['widget', 'layout'")
    (task,) = sub["tasks"]
    assert task["metrics"]["gkb_unknown_precision"] is None and task["metrics"]["gkb_acc"] < 1.0
    validate_submission(json.loads(json.dumps(sub)))
    assert task["undefined"]["gkb_unknown_precision"].startswith("undefined: no response (or no gold answer) is 'unknown'")
    task["metrics"]["gkb_acc"] = None  # only a metric with a recorded reason may be null
    sub["submission_sha256"] = submission_hash(sub)
    with pytest.raises(SubmissionError, match=r"\['gkb_acc'\] not finite and without a reason"):
        validate_submission(sub)


def test_gui_hf_loading_the_named_checkpoint_is_seen(tiny_checkpoint):
    """The honest path: gui_hf's load goes through from_pretrained with the verifier's checkpoint."""
    from gui_tasks.submit.verify import load_model, recording_loads, same_checkpoint

    with recording_loads() as seen:
        lm = load_model("gui_hf", f"pretrained={tiny_checkpoint},device=cpu")
    assert any(same_checkpoint(name, str(tiny_checkpoint)) for name in seen), seen
    lm.clean()


def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    """Opening a FIFO blocks until a writer comes: validate/verify must refuse it from its file type."""
    import threading

    from gui_tasks.submit.leaderboard import load_submission

    fifo = tmp_path / "sub.json"
    os.mkfifo(fifo)
    result = {}

    def load():
        try:
            load_submission(fifo)
        except SubmissionError as exc:
            result["error"] = str(exc)

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(timeout=10)
    if t.is_alive():  # unblock the reader of the old behaviour before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not t.is_alive() and "not a regular file (a device, pipe or socket)" in result.get("error", "")
    with pytest.raises(SubmissionError, match=r"not a regular file \(a device, pipe or socket\)"):
        load_submission("/dev/zero")  # refused from its type, not after reading 1 GiB


@pytest.mark.parametrize("command, shown, option", [
    ("grounding-report", "grounding-report", "--out"), ("pss-report", "grounding-report", "--out"),  # the old name: an alias
    ("verify", "verify", "--server"), ("view", "view", "--serve"), ("mpr-report", "mpr-report", "--out"),
    ("report", "mpr-report", "--out"), ("submit", "submit", "--out")])
def test_report_subcommands_help_shows_their_own_options(command, shown, option, capsys):
    from gui_tasks.commands.cli import main

    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and f"gui-eval {shown}" in out and option in out


def test_pss_report_on_a_missing_path_names_it_without_a_traceback(tmp_path, capsys):
    from gui_tasks.commands.cli import main

    assert main(["pss-report", str(tmp_path / "absent"), "--out", str(tmp_path / "out")]) == 2  # a configuration mistake
    err = capsys.readouterr().err
    assert err.startswith(f"gui-eval pss-report: {tmp_path / 'absent'}: no such file or directory") and err.count("\n") == 1


def test_a_submission_of_many_tiny_values_is_refused_before_parsing(tmp_path, monkeypatch):
    """Parsed JSON takes 25-50x its size in memory: the number of values, not only the bytes, is bounded."""
    import gui_tasks.submit.leaderboard as lb
    import gui_tasks.submit.submission_input as reading  # where the bound lives (leaderboard re-exports it)

    monkeypatch.setattr(reading, "MAX_VALUES", 1000)
    path = tmp_path / "many.json"
    path.write_text('{"a": [' + ",".join(["0"] * 2000) + "]}")
    with pytest.raises(SubmissionError, match="about 2002 JSON values, more than the 1000"):
        lb.load_submission(path)
    assert lb.parse_submission('{"a": [1, 2]}') == {"a": [1, 2]}
