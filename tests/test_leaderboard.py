"""Leaderboard submissions: re-scored from documents and parser, hashed by us, every tampering refused."""

from __future__ import annotations

import copy
import hashlib
import json
import math

import pytest
from submission_helpers import LANGS, NULL_DOC_HASH, edit_results, edit_samples, honest_run, respond, samples_file

from gui_tasks.commands.cli import main as cli_main
from gui_tasks.submit.leaderboard import (SCHEMA, SubmissionError, build_submission, main, sample_hash, submission_hash,
                                   validate_submission)
from gui_tasks.harness.rescore import doc_sha256, load_task, task_docs

EN = "mpr_gui_synth_en"
# respond(): per 64 docs, i % 5 in {2, 3, 4} right (38), i % 5 == 0 malformed (13), i % 5 == 1 wrong (13)


@pytest.fixture(scope="session")
def mpr_tasks(session_cache):
    return {lang: load_task(f"mpr_gui_synth_{lang}") for lang in LANGS}


def test_lmms_eval_doc_hash_is_the_same_for_every_sample_so_we_hash_documents_ourselves(mpr_tasks):
    from lmms_eval.utils import hash_string

    assert hash_string(json.dumps(None, indent=2, ensure_ascii=False)) == NULL_DOC_HASH  # requests[0].doc is None in 0.7.3
    docs = task_docs(mpr_tasks["en"])
    hashes = [doc_sha256(d) for d in docs]
    assert len(set(hashes)) == len(docs) == 64
    assert hashes == [doc_sha256(d) for d in task_docs(mpr_tasks["en"])]


def test_doc_hash_covers_image_bytes_not_paths(tmp_path):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    a.write_bytes(b"one")
    b.write_bytes(b"one")
    doc = {"id": "x", "images": [str(a)], "meta": json.dumps({"scene": str(a)})}
    assert doc_sha256(doc) == doc_sha256({**doc, "images": [str(b)], "meta": json.dumps({"scene": str(b)})})
    b.write_bytes(b"two")
    assert doc_sha256(doc) != doc_sha256({**doc, "images": [str(b)]})


def test_honest_submission_passes_and_is_rescored(honest, tmp_path):
    sub = copy.deepcopy(honest)
    assert sub["schema"] == SCHEMA and [t["task"] for t in sub["tasks"]] == sorted(f"mpr_gui_synth_{x}" for x in LANGS)
    assert sub["model"] == {"backend": "gui_hf", "name": "Org/Tiny-VL-2B", "args": "pretrained=Org/Tiny-VL-2B,device=cpu",
                            "interventions": []}
    en = next(t for t in sub["tasks"] if t["task"] == EN)
    assert (en["version"], en["prompt_protocol"], en["parser_protocol"], en["protocol"], en["n_samples"]) == \
        ("1.0", "mpr-direct-v1", "mcq-letter-v2", "mpr-direct-v1", 64)
    assert en["metrics"]["mcq_acc"] == 38 / 64 and en["metrics"]["format_error_rate"] == 13 / 64
    assert en["samples"][2]["response"] == respond(task_docs(load_task(EN))[2], 2)
    assert len({s["doc_sha256"] for s in en["samples"]}) == 64
    validate_submission(json.loads(json.dumps(sub)))
    path = tmp_path / "sub.json"
    path.write_text(json.dumps(sub))
    assert cli_main(["validate", str(path)]) == 0


def test_submit_and_validate_commands(mpr_tasks, tmp_path, capsys):
    honest_run(tmp_path / "run")
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "out" / "sub.json")]) == 0
    assert cli_main(["validate", str(tmp_path / "out" / "sub.json")]) == 0
    assert "384 responses re-scored" in capsys.readouterr().out


def _rehash(sub, samples=False):
    if samples:
        for t in sub["tasks"]:
            for s in t["samples"]:
                s["sha256"] = sample_hash(s)
    sub["submission_sha256"] = submission_hash(sub)


def _en(sub):
    return next(t for t in sub["tasks"] if t["task"] == EN)


def _edit_protocol(sub):
    for t in sub["tasks"]:
        t["prompt_protocol"] = t["metadata"]["prompt_protocol"] = t["protocol"] = "mpr-cot-v1"


def _edit_response(sub):
    s = _en(sub)["samples"][0]  # was malformed; now right: scores no longer match
    s["response"] = "Answer: " + s["target"]


def _copy_response(sub):
    samples = _en(sub)["samples"]
    samples[0]["response"] = samples[2]["response"]


def _shift_ids(sub):
    for s in _en(sub)["samples"]:
        s["doc_id"] += 1


def _cut(sub):
    t = _en(sub)
    t["samples"].pop()
    t["n_samples"] = 63
    t["docs_sha256"] = hashlib.sha256(json.dumps([s["doc_sha256"] for s in t["samples"]], separators=(",", ":")).encode()).hexdigest()


def _null_with_reason(sub):
    _en(sub)["metrics"]["mcq_acc"] = None  # a defined metric passed off as undefined
    _en(sub)["undefined"] = {"mcq_acc": "no sample"}


def _intervened(sub):
    sub["model"]["args"] += ",interventions=prompt_affix"


def _intervened_hidden(sub):
    _intervened(sub)
    sub["model"]["interventions"] = ["prompt_affix"]  # protocol labels stay plain


@pytest.mark.parametrize("tamper, rehash, message", [
    (lambda s: _en(s)["metrics"].update(mcq_acc=7.0), None, "submission_sha256 does not match"),
    (lambda s: _en(s)["metrics"].update(mcq_acc=0.9), "file", r"mcq_acc is 0.9 in the file but 0.59375 when the responses are re-scored"),
    (lambda s: _en(s)["metrics"].update(mcq_acc=math.nan), None, r"\['mcq_acc'\] not finite and without a reason"),
    (_null_with_reason, "file", r"mcq_acc is None in the file but 0.59375 when the responses are re-scored"),
    (lambda s: s["model"].update(name="Org/Big-VL-72B"), "file", r"model name 'Org/Big-VL-72B' is not the checkpoint in the model args"),
    (_edit_protocol, "file", r"metadata differs from the installed task in \['prompt_protocol'\]"),
    (_edit_response, None, "submission_sha256 does not match"),
    (_edit_response, "file", "doc 0: sample sha256 does not match its content"),
    (_edit_response, "samples", "doc 0: scores differ when the response is re-scored"),
    (_copy_response, "samples", "doc 0: scores differ when the response is re-scored"),
    (lambda s: _en(s)["samples"][5].update(doc_sha256="0" * 64), "samples", "docs_sha256 does not match"),
    (_shift_ids, "samples", r"doc ids must be 0..63 in order \(duplicated or shifted ids\)"),
    (lambda s: _en(s)["samples"][3].update(doc_id=2), "samples", "doc ids must be 0..63 in order"),
    (_cut, "samples", "the installed task has 64 documents, the run has 63 samples"),
    (lambda s: s["tasks"].pop(), "file", r"language\(s\) \['zh'\] missing; a submission needs all six: add --tasks mpr_gui_synth_zh"),
    (_intervened, "file", r"model interventions \[\] differ from the model args \(\['prompt_affix'\]\)"),
    (_intervened_hidden, "file", "labelled 'mpr-direct-v1' but the run used 'mpr-direct-v1\\+prompt_affix'"),
    (lambda s: s.update(schema="other/9"), None, "unknown submission schema"),
    (lambda s: _en(s)["metadata"].update(bad_rows_skipped=2), "file", r"2 bad data row\(s\) were skipped"),
    (lambda s: s["tasks"][0].update(comment="x"), "file", "unexpected field 'comment'"),
    (lambda s: s["tasks"].append(copy.deepcopy(s["tasks"][0])), "file", "lists a task twice"),
    # validate checks what it signs (issue 37): the task version and the package versions
    (lambda s: _en(s).update(version="2.0"), "file", r"task mpr_gui_synth_en: version '2.0' differs from the task metadata's '1.0'"),
    (lambda s: (_en(s).update(version="2.0"), _en(s)["metadata"].update(version="2.0")), "file",
     r"metadata differs from the installed task in \['version'\]"),
    (lambda s: s["versions"].update(gui_eval="9.9.9"), "file", r"versions.gui_eval is '9.9.9' but this installation has gui-eval"),
    (lambda s: s["versions"].update(lmms_eval="0.1"), "file", r"versions.lmms_eval is '0.1' but this installation has lmms_eval"),
])
def test_validate_refuses_tampered_submissions(honest, tmp_path, capsys, tamper, rehash, message):
    sub = copy.deepcopy(honest)
    tamper(sub)
    if rehash:
        _rehash(sub, samples=rehash == "samples")
    with pytest.raises(SubmissionError, match=message):
        validate_submission(sub)
    path = tmp_path / "sub.json"
    path.write_text(json.dumps(sub))
    assert cli_main(["validate", str(path)]) == 1
    assert "refused" in capsys.readouterr().err


def _refused(root, message):
    with pytest.raises(SubmissionError, match=message):
        build_submission(root)
    assert main([str(root), "--out", str(root / "s.json")]) == 1 and not (root / "s.json").exists()


def test_forged_per_sample_values_are_never_read(honest, tmp_path):
    path = honest_run(tmp_path)
    edit_samples(path, EN, lambda lines: [{**x, **{m: {**x[m], "correct": True} for m in ("mcq_acc", "fpr_acc")}} for x in lines])
    assert build_submission(tmp_path)["submission_sha256"] == honest["submission_sha256"]
    edit_results(path, lambda raw: raw["results"][EN].update({k: 1.0 for k in raw["results"][EN] if k.endswith(",none")
                                                                and "stderr" not in k}))
    _refused(tmp_path, r"mcq_acc is 1.0 in the file but 0.59375 when the responses are re-scored")


def test_copied_response_is_refused(mpr_tasks, tmp_path):
    path = honest_run(tmp_path)
    edit_samples(path, EN, lambda lines: [{**lines[0], "filtered_resps": lines[2]["filtered_resps"]}, *lines[1:]])
    _refused(tmp_path, "when the responses are re-scored")


def test_shifted_doc_ids_are_refused(mpr_tasks, tmp_path):
    path = honest_run(tmp_path)
    edit_samples(path, EN, lambda lines: [{**x, "doc_id": (x["doc_id"] + 1) % 64} for x in lines])
    _refused(tmp_path, r"doc 0: the sample's target is 'D', the document's 'A' \(shifted doc ids\?\)")


def test_duplicated_doc_ids_are_refused(mpr_tasks, tmp_path):
    path = honest_run(tmp_path)
    edit_samples(path, EN, lambda lines: [*lines[:-1], {**lines[-1], "doc_id": 3}])
    _refused(tmp_path, r"duplicate doc ids \[3\]")


def test_run_on_a_cut_cache_is_refused(mpr_tasks, tmp_path):
    path = honest_run(tmp_path)
    edit_samples(path, EN, lambda lines: lines[:56])  # a run whose data file held 56 rows: n-samples says 56 of 56
    edit_results(path, lambda raw: raw["n-samples"][EN].update(original=56, effective=56))
    _refused(tmp_path, "the installed task has 64 documents, the run has 56 samples")


def test_missing_language_and_incomplete_group_are_refused(mpr_tasks, tmp_path):
    honest_run(tmp_path / "a", LANGS[:5])
    _refused(tmp_path / "a", r"language\(s\) \['th'\] missing")
    honest_run(tmp_path / "b", LANGS[:5], groups={"mpr_gui_synth": [f"mpr_gui_synth_{x}" for x in LANGS]})
    _refused(tmp_path / "b", r"group mpr_gui_synth lacks its task\(s\) \['mpr_gui_synth_th'\]")


def test_missing_dimension_in_the_data_is_refused(mpr_tasks, tmp_path):
    class WithoutSI:  # the installed task as it would be with an empty official SI file
        def __init__(self, task):
            self._task = task
            self.eval_docs = [d for d in task.eval_docs if d["dimension"] != "SI"]

        def __getattr__(self, name):
            return getattr(self._task, name)

    honest_run(tmp_path)
    with pytest.raises(SubmissionError, match=r"no documents of dimension\(s\) \['SI'\]"):
        build_submission(tmp_path, loader=lambda name: WithoutSI(load_task(name)))


def test_intervened_run_is_labelled_with_its_interventions(mpr_tasks, tmp_path):
    honest_run(tmp_path, model_args="pretrained=Org/Tiny-VL-2B,interventions=prompt_affix,prompt_affix.suffix=Think")
    sub = build_submission(tmp_path)
    assert sub["model"]["interventions"] == ["prompt_affix"]
    assert {t["protocol"] for t in sub["tasks"]} == {"mpr-direct-v1+prompt_affix"}


def test_refuses_limit_fewer_documents_and_mixed_models(mpr_tasks, tmp_path):
    honest_run(tmp_path / "a", limit=4)
    _refused(tmp_path / "a", "run with --limit 4")
    path = honest_run(tmp_path / "b")
    edit_results(path, lambda raw: raw["n-samples"][EN].update(effective=60))
    _refused(tmp_path / "b", "ran on 60 of 64 documents")
    honest_run(tmp_path / "c", LANGS[:3])
    honest_run(tmp_path / "c", LANGS[3:], model_args="pretrained=Org/Tiny-VL-2B,device=cuda", stamp="20260101_000001")
    _refused(tmp_path / "c", "several models or model args")


def test_run_that_skipped_bad_rows_is_refused(mpr_tasks, tmp_path):
    path = honest_run(tmp_path)
    edit_results(path, lambda raw: raw["configs"][EN]["metadata"].update(bad_rows_skipped=1))
    _refused(tmp_path, r"1 bad data row\(s\) were skipped \(GUI_EVAL_SKIP_BAD_ROWS\)")


def test_refuses_missing_samples_protocol_metadata_and_bad_lines(mpr_tasks, tmp_path):
    path = honest_run(tmp_path / "a")
    samples_file(path, EN).unlink()
    _refused(tmp_path / "a", r"samples file not found \(was lmms-eval run with --log_samples\?\)")
    path = honest_run(tmp_path / "b")
    edit_results(path, lambda raw: raw["configs"][EN]["metadata"].pop("parser_protocol"))
    _refused(tmp_path / "b", r"task metadata lacks parser_protocol; a submission names the prompt the model saw "
                             r"\(prompt_protocol\) and the reader that scored its answers \(parser_protocol, grounding "
                             r"tasks: grounding-point-v1:<family>\): add them to the task's metadata \(docs/adding.md")
    path = honest_run(tmp_path / "c")
    samples_file(path, EN).write_text(samples_file(path, EN).read_text() + "{oops\n")
    _refused(tmp_path / "c", r"row 64: line 65: invalid JSON")


@pytest.fixture(scope="module")
def real_submission(tmp_path_factory, tiny_checkpoint, session_cache):
    """A real lmms-eval 0.7.3 run of the tiny checkpoint on the synthetic MPR-GUI group, then ``gui-eval submit``."""
    import subprocess
    import sys

    from conftest import lmms_subprocess_env

    subprocess_env = lmms_subprocess_env(session_cache)
    from gui_tasks.commands.cli import lmms_eval_command
    from lmms_helpers import run, samples

    tmp = tmp_path_factory.mktemp("real")
    out = tmp / "run"
    proc, log = run(lmms_eval_command(f"pretrained={tiny_checkpoint},device=cpu", ["mpr_gui_synth"], out, limit=None,
                                      batch_size=8), subprocess_env)
    assert {s["doc_hash"] for s in samples(out, EN)} == {NULL_DOC_HASH}, log[-2000:]
    sub = tmp / "sub.json"
    proc = subprocess.run([sys.executable, "-m", "gui_tasks.commands.cli", "submit", str(out), "--out", str(sub)], env=subprocess_env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "DEBUG" not in proc.stderr, proc.stderr[-3000:]
    return sub


@pytest.mark.slow
def test_real_lmms_eval_run_is_submitted_validated_and_tampering_refused(real_submission, tmp_path, subprocess_env):
    """What lmms-eval 0.7.3 really writes (flattened responses, sha256('null') doc hashes, a group) goes through."""
    import subprocess
    import sys

    gui_eval = [sys.executable, "-m", "gui_tasks.commands.cli"]
    proc = subprocess.run(gui_eval + ["validate", str(real_submission)], env=subprocess_env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "384 responses re-scored" in proc.stdout and "DEBUG" not in proc.stderr
    data = json.loads(real_submission.read_text())
    sub = tmp_path / "sub.json"
    from gui_core.letters import extract_letter

    first = _en(data)["samples"][0]
    options = ["a", "b", "c", "d"]
    before = extract_letter(first["response"], options)
    first["response"] = next(r for r in ("Answer: A", "Answer: B", "???")
                             if (extract_letter(r, options).letter, extract_letter(r, options).status) != (before.letter, before.status))
    _rehash(data, samples=True)
    sub.write_text(json.dumps(data))
    proc = subprocess.run(gui_eval + ["validate", str(sub)], env=subprocess_env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1 and "refused" in proc.stderr


def _forge_right_letters(data):
    """Every response replaced by the right letter, every hash and metric recomputed as submit would."""
    from gui_tasks.harness.rescore import aggregate, score, scores_sha256

    for t in data["tasks"]:
        task = load_task(t["task"])
        docs, values = task_docs(task), []
        for s in t["samples"]:
            s["response"] = f"Answer: {s['target']}"
            v = score(task, docs[s["doc_id"]], s["response"])
            values.append(v)
            s["scores_sha256"] = scores_sha256(v)
            s["sha256"] = sample_hash(s)
        t["metrics"] = dict(sorted(aggregate(task, values).items()))
    data["submission_sha256"] = submission_hash(data)
    return data


@pytest.mark.slow
def test_verify_reproduces_a_genuine_submission_and_catches_forged_responses(real_submission, tmp_path, tiny_checkpoint,
                                                                             subprocess_env):
    """validate cannot tell right letters with recomputed hashes from the model's answers; running the model can."""
    import subprocess
    import sys

    verify = [sys.executable, "-m", "gui_tasks.commands.cli", "verify"]
    args = ["--checkpoint", str(tiny_checkpoint), "--docs", "3", "--seed", "7", "--device", "cpu"]
    proc = subprocess.run(verify + [str(real_submission), *args], env=subprocess_env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "seed 7 (repeat this draw with --seed 7)" in proc.stdout
    assert proc.stdout.count(": reproduced") == 3 and "3/3 responses reproduced" in proc.stdout

    forged = _forge_right_letters(json.loads(real_submission.read_text()))
    assert all(t["metrics"]["mcq_acc"] == 1.0 for t in forged["tasks"])
    validate_submission(forged)  # the hashes and re-scoring accept it
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    proc = subprocess.run(verify + [str(path), *args], env=subprocess_env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-3000:]
    # each forged answer is explained: where it parts from the re-run, and both texts from there, escaped
    assert proc.stdout.count("DIFFERS: first difference at character ") == 3 and "0/3 responses reproduced" in proc.stdout
    assert "NOT verified" in proc.stdout


def test_verify_draw_and_model_args(honest):
    from gui_tasks.submit.verify import choose_docs, logged_form, with_checkpoint

    picks = choose_docs(honest, 5, seed=1)
    assert picks == choose_docs(honest, 5, seed=1) and len(set(picks)) == 5 and picks == sorted(picks)
    assert picks != choose_docs(honest, 5, seed=2)
    assert len(choose_docs(honest, 10_000, seed=1)) == 384  # never more than the submission holds
    assert with_checkpoint("pretrained=Org/X,device=cuda,system_prompt='a, b'", "/ck", "cpu") == \
        "pretrained=/ck,device=cpu,system_prompt='a, b'"
    assert logged_form(["Answer: B"]) == "Answer: B" and logged_form([["a", 1]]) == ["a", "1"]


def test_a_capture_run_whose_answers_lack_their_capture_is_refused_naming_pss():
    """Issue 53: answers replayed without their digit capture (lmms-eval's --use_cache) would leave PSS missing."""
    from gui_tasks.submit.submission_rules import capture_gap

    metrics = ["grounding_acc,none", "pss_mean,none", "perplexity_mean,none", "pss_correct,none"]
    whole = [{"doc_id": i, "response_side": {"capture": {"form": "key-digits-v1"}}} for i in range(3)]
    assert capture_gap("pretrained=x,capture_logits=digits", metrics, whole) is None
    bare = whole[:1] + [{"doc_id": 1}, {"doc_id": 2, "response_side": {"extras": {}}}]
    gap = capture_gap("pretrained=x,capture_logits=digits", metrics, bare)
    assert gap.startswith("2 of 3 answers of this capture_logits=digits run carry no digit capture (doc ids [1, 2]")
    assert "pss_mean, perplexity_mean and 1 other capture figure(s) would be missing" in gap
    assert capture_gap("pretrained=x", metrics, bare) is None  # no capture asked: nothing promised
    assert capture_gap("pretrained=x,capture_logits=digits", ["mpr_acc,none"], bare) is None  # no capture metric
