"""Static SPHINX tasks on official-schema fixtures: loading, prompts, Original/Repaired scoring and the metrics."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from gui_metrics.manager import get_metric
from gui_core.errors import ConfigError, DataError
from gui_tasks.sphinx import check, release
from gui_tasks.sphinx import static_tasks as stt

FIX = Path(__file__).parent / "fixtures" / "sphinx"


def rows(kind: str, mode: str = "full_text", root: Path = FIX, rendering: str = "official") -> list[dict]:
    return stt.SphinxStaticTask.rows({"kind": kind, "source": "official", "data_dir": str(root), "observation": mode,
                                      "rendering": rendering})


def values(doc: dict, text: str) -> dict:
    return next(iter(stt.process_results(doc, [text]).values()))


def test_questions_expand_to_the_mcq_and_four_true_false_probes():
    docs = rows("knowledge")
    assert len(docs) == 10 and [d["probe"] for d in docs[:5]] == ["mcq", "bq", "bq", "bq", "bq"]
    assert [d["capability"] for d in docs[::5]] == ["app", "goal"]  # app_level / intention_level
    assert [d["answer"] for d in docs[1:5]] == ["T", "F", "F", "F"]
    assert stt.doc_to_text(docs[0]) == (
        "Given the app name Money Manager in the category 'Finance', answer the following multiple-choice question:\n\n"
        "Which feature lets you record what you spent on groceries?\n\nOptions:\nA. Add expense\nB. Backup\nC. Currency converter\n"
        "D. Themes\n\nPlease answer with only the option character (A, B, C, or D).")
    assert stt.doc_to_text(docs[6]).endswith("Statement: Ring at 10:00\nPlease answer with only 'T' for yes or 'F' for no.")
    assert stt.doc_to_visual(docs[0]) == []


def test_table6_accuracy_counts_the_mcq_and_its_probes_alike():
    docs = rows("knowledge")
    # app question: MCQ right but chatty (wrong as written, right repaired); probes T, F, T, "no" -> 2 of 4 as written
    app = [values(docs[0], "The answer is A."), values(docs[1], "T"), values(docs[2], "F"), values(docs[3], "T"), values(docs[4], "no")]
    goal = [values(d, d["answer"]) for d in docs[5:]]
    recs = app + goal
    # official evaluate_binary_questions: "no" is not 'T', so it reads as F (right for this probe): 3 of 5 as written
    assert get_metric("sphinx_app_acc_original").aggregate(recs) == pytest.approx(3 / 5)
    stripped = [values({**d, "knowledge_scoring": "stripped"}, t) for d, t in
                zip(docs[:5], ("The answer is A.", "T", "F", "T", "no"))]
    assert get_metric("sphinx_app_acc_original").aggregate(stripped + goal) == pytest.approx(2 / 5)
    assert get_metric("sphinx_app_acc_repaired").aggregate(recs) == pytest.approx(4 / 5)
    assert get_metric("sphinx_goal_acc_original").aggregate(recs) == 1.0
    assert get_metric("sphinx_probe_format_error_rate").aggregate(recs) == pytest.approx(2 / 10)
    assert values(docs[0], "")["status"] == "empty"


def test_knowledge_scoring_reads_answers_as_the_official_evaluate_mcqa():
    """knowledge_probing.py: ground_truth.upper() == answer.upper(), nothing stripped; a probe is T iff answer.upper() == 'T'."""
    docs = rows("knowledge")
    mcq, tf_true, tf_false = docs[0], docs[1], docs[2]  # gold A, T, F
    assert docs[0]["knowledge_scoring"] == "official" and values(mcq, "A")["scoring"] == "official"
    assert values(mcq, "a")["correct"] is True and values(mcq, "a")["status"] == "parsed"  # refused before
    assert values(mcq, " A")["correct"] is False and values(mcq, " A")["status"] == "malformed"  # counted right before
    assert values(mcq, "A\n")["correct"] is False and values(mcq, " A")["correct_repaired"] is True
    assert values(tf_true, "t")["correct"] is True and values(tf_true, " T")["correct"] is False
    assert values(tf_false, "maybe")["correct"] is True  # anything but t/T is False: right for a false statement
    strip = {**mcq, "knowledge_scoring": "stripped"}
    assert values(strip, " A")["correct"] is True and values(strip, "a")["correct"] is False  # the earlier reading
    with pytest.raises(DataError, match="knowledge_scoring must be one of"):
        stt.SphinxStaticTask.rows({"kind": "knowledge", "source": "official", "knowledge_scoring": "loose", "data_dir": str(FIX)})


def test_official_knowledge_tasks_receive_the_answer_unstripped():
    """lmms-eval strips whitespace in its reasoning-tag pass; the official-scoring YAMLs switch that pass off."""
    import yaml

    from gui_tasks.sphinx.yaml_spec import render_all

    files = render_all()
    for name in ("sphinx_knowledge.yaml", "sphinx_knowledge_synth.yaml"):
        spec = yaml.safe_load(files[name].replace("!function", ""))
        assert spec["reasoning_tags"] == "none" and spec["metadata"]["knowledge_scoring"] == "official"
        assert spec["metadata"]["parser_protocol"] == "sphinx-official-mcqa-v1"
    stripped = yaml.safe_load(files["sphinx_knowledge_stripped.yaml"].replace("!function", ""))
    assert "reasoning_tags" not in stripped and stripped["metadata"]["parser_protocol"] == "sphinx-table2-v2"


def test_completion_rows_come_from_task_info_all_and_label_the_last_step_stop():
    docs = rows("completion")
    assert [d["id"] for d in docs] == ["101/money/0", "101/money/1", "101/money/2", "101/money/3", "608/yelp/0", "608/yelp/1"]
    assert [d["answer"] for d in docs] == ["continue", "continue", "continue", "stop", "continue", "stop"]  # testing task 1201 left out
    assert docs[0]["group"] == "user" and release.task_group(1201) == "testing"
    assert {d["rendering"] for d in docs} == {"official"}


def test_official_completion_prompt_is_run_complete_py_with_the_id_less_tree():
    doc = rows("completion")[2]
    assert stt.doc_to_text(doc) == (
        "You are an Android UI testing expert helping me write a UI test case.\n"
        "In our conversation, I will provide you with a list of widgets with texts on the last screen and the testcase you have "
        "generated.\nYour task is to determine whether the test objective has been completed.\n\n"
        "This is a test case description of a particular APP: Create an expense for today: groceries 10 in the default currency.\n"
        "You are trying to perform the task on an APP.\n"
        "These are the actions we already performed in sequential order: \n"
        "- Click on a View (resource-id: line1, text: Food/Groceries, class: android.widget.TextView).\n"
        "- Type 10 on a View (resource-id: amount, class: android.widget.EditText).\n"
        "Here is the current screen: \n"
        "\ta View (resource-id: content, class: android.widget.FrameLayout)\n"
        "\t\ta View (resource-id: title, text: Food/Groceries, class: android.widget.TextView)\n"
        "\t\ta View (resource-id: amount, text: 10, class: android.widget.EditText)\n"
        "\t\ta View (resource-id: save, text: Save, class: android.widget.Button)\n\n"
        "Do you think that we have finished this particular goal: Create an expense for today: groceries 10 in the default currency?\n"
        "The UI element in current screen maybe not touched. If an necessary element is not touched, the goal is not finished.\n"
        "If we have finished, say YES, else say NO.")
    image = rows("completion", "screenshot")[0]
    text = stt.doc_to_text(image)
    assert "the last UI screen" in text and "These are the actions we already performed in sequential order: \n\n" in text
    assert "The observation of the current app screen is the image provided below." in text
    assert len(stt.doc_to_visual(rows("completion", "set_of_mark")[0])) == 1


def test_paper_prose_completion_keeps_its_own_prompt():
    doc = rows("completion", rendering="paper-prose")[2]
    text = stt.doc_to_text(doc)
    assert 'Actions performed so far: click [TextView "Food/Groceries"]; input [EditText "amount"] [10]' in text
    assert "[1] Button \"Save\" id=save clickable" in text and "status_bar" not in text


def test_table7_official_yes_no_reading():
    docs = rows("completion")[:4]
    # run_complete.py: substring yes/no, the later one wins; neither word counts as NO (= continue)
    recs = [values(d, a) for d, a in zip(docs, ["NO.", "I don't know", "Yes, no wait: NO", "YES"])]
    assert [r["predicted"] for r in recs] == ["continue", "continue", "continue", "stop"]
    assert [r["status"] for r in recs] == ["parsed", "parsed", "parsed", "parsed"]  # "know" holds "no", as officially
    assert values(docs[0], "maybe")["status"] == "malformed" and values(docs[0], "maybe")["correct"] is True
    assert get_metric("sphinx_continue_acc").aggregate(recs) == 1.0
    assert get_metric("sphinx_stop_acc").aggregate(recs) == 1.0
    assert get_metric("sphinx_perfect").aggregate(recs + [values(d, "no") for d in rows("completion")[4:]]) == 0.5


def test_table7_paper_prose_continue_stop_and_perfect():
    docs = rows("completion", rendering="paper-prose")[:4]
    recs = [values(d, a) for d, a in zip(docs, ["Continue.", "I would continue", "stop", "stop"])]
    assert get_metric("sphinx_continue_acc").aggregate(recs) == pytest.approx(1 / 3)  # only one word (any case) counts as written
    assert get_metric("sphinx_stop_acc").aggregate(recs) == 1.0
    assert get_metric("sphinx_perfect").aggregate(recs) == 0.0
    assert get_metric("sphinx_perfect").aggregate([values(d, d["answer"]) for d in docs]) == 1.0
    assert values(docs[0], "I think we should continue")["correct_repaired"] is True


def test_grounding_reads_lowlevel_tasks_with_gaps_in_ids():
    docs = rows("grounding")
    assert [d["id"] for d in docs] == ["1", "4", "7", "9"]  # lowlevel_tasks/5.xml has no task: not a row
    assert [d["gold_type"] for d in docs] == ["click", "text", "click", "back"]
    assert docs[2]["gold_box"] == [0, 160, 768, 400] and docs[3]["gold_box"] is None
    assert docs[2]["xml"].endswith("lowlevel_tasks/7.xml") and docs[2]["image"].endswith("lowlevel_tasks/7.png")


def test_official_grounding_answers_are_read_as_run_lowlevel_py_reads_them():
    docs = rows("grounding")
    say = "In summary, the next action I will perform is ```{}```"
    # breadth-first ids: [0] the review list, [1] search, [2] navigate up, [3] first review, [4] second review
    assert values(docs[2], say.format("click [3]"))["correct"] is True
    assert values(docs[2], say.format("click [2]"))["correct"] is False
    assert values(docs[2], "click [3]")["status"] == "malformed"  # no backticks: the official script finds no action
    assert values(docs[2], "click [3]")["correct_repaired"] is True
    assert values(docs[2], say.format("\nclick [3]\n"))["correct"] is False  # the official pattern is anchored, nothing stripped
    assert values(docs[1], say.format("text [0] [10]"))["correct"] is True  # money screen: [0] the amount field
    assert values(docs[1], say.format("text [0] [10 ]"))["correct"] is False  # the message must be equal
    assert values(docs[3], say.format("press [back]"))["correct"] is True
    assert values(docs[3], say.format("press [home]"))["correct"] is False  # home is the official restart
    assert values(docs[2], say.format("click [99]"))["correct"] is False
    prose = rows("grounding", rendering="paper-prose")
    assert values(prose[2], "click [2]")["correct"] is True  # document order: [2] is the first review there
    assert values(prose[1], "text [0] [ 10]")["correct"] is True


def test_official_grounding_prompts_per_mode():
    tree, simple, image, som = (rows("grounding", m)[2] for m in ("full_text", "simplified_text", "screenshot", "set_of_mark"))
    t = stt.doc_to_text(tree)
    assert t.startswith("You are an autonomous intelligent agent tasked with navigating a mobile app.")
    assert "\n\nHere's the information you'll have:\n" in t and "`click [index]`" in t
    assert t.endswith("Observation: a View (class: android.widget.FrameLayout)\n"
                      "\ta View (resource-id: toolbar, class: android.widget.LinearLayout)\n"
                      "\t\t[2] a View (content-desc: Navigate up, resource-id: up, class: android.widget.ImageButton) to click\n"
                      "\t\ta View (resource-id: logo, class: android.widget.ImageView)\n"
                      "\t[0] a View (resource-id: reviews, class: androidx.recyclerview.widget.RecyclerView) to swipe\n"
                      "\t\t[3] a View (resource-id: review_0, class: android.widget.LinearLayout) to click or longclick\n"
                      "\t\t\ta View (resource-id: rating_row, class: android.widget.LinearLayout)\n"
                      "\t\t\t\ta View (resource-id: rating, text: 4 stars, class: android.widget.TextView)\n"
                      "\t\t\t\ta View (resource-id: body, text: Great tacos, open late, class: android.widget.TextView)\n"
                      "\t\t[4] a View (resource-id: review_1, class: android.widget.LinearLayout) to click\n"
                      "\t\t\ta View (resource-id: body, text: Closed at 9:00 on Sunday, class: android.widget.TextView)\n"
                      "\ta View (resource-id: footer, text: 12 reviews, class: android.widget.TextView)\n"
                      "\t[1] a View (resource-id: search, text: Search reviews, class: android.widget.EditText) to text\n"
                      "\nTask: Open the first review\n")
    assert stt.doc_to_text(simple).endswith(
        "Observation: [0] a View (resource-id: reviews, class: androidx.recyclerview.widget.RecyclerView) to swipe\n"
        "[1] a View (resource-id: search, text: Search reviews, class: android.widget.EditText) to text\n"
        "[2] a View (content-desc: Navigate up, resource-id: up, class: android.widget.ImageButton) to click\n"
        "[3] a View (resource-id: review_0, class: android.widget.LinearLayout) to click or longclick\n"
        "[4] a View (resource-id: review_1, class: android.widget.LinearLayout) to click\nTask: Open the first review\n")
    assert "red indicates click action, purple indicates longclick action" in stt.doc_to_text(som)
    i = stt.doc_to_text(image)
    assert "`click [x,y]`" in i and "The resolution of the screenshot is 768 * 1280." in i and "[index]" not in i
    say = "In summary, the next action I will perform is ```{}```"
    assert values(image, say.format("click [384,280]"))["correct"] is True
    assert values(image, say.format("click [384,500]"))["correct"] is False
    assert stt.doc_to_visual(tree) == [] and len(stt.doc_to_visual(som)) == 1


def test_focused_context_asks_for_every_action_form_and_counts_violations():
    docs = stt.SphinxStaticTask.rows({"kind": "focused", "seed": 0})
    assert len(docs) == 141 and len({d["expected"] for d in docs}) > 100
    kinds = {re.sub(r"\[.*", "", d["expected"]).strip() for d in docs}
    assert {"click", "longclick", "text", "input", "swipe", "press"} <= kinds
    d = docs[4]
    assert stt.doc_to_text(d) == f"Respond with '{d['expected']}'."
    assert values(d, d["expected"])["violation"] is False
    assert values(d, f"Sure! {d['expected']}")["violation"] is True
    assert values(d, "press [stop]")["violation"] is True


def test_missing_screen_and_bad_rows_name_file_row_and_field(tmp_path):
    root = tmp_path / "sphinx"
    shutil.copytree(FIX, root)
    (root / "groundtruth/101/money/2.png").unlink()
    rows("completion", root=root)  # text modes need no screenshot
    with pytest.raises(DataError, match=r"2.png, row 2, field 'png'"):
        rows("completion", "screenshot", root)
    q = json.loads((FIX / "questions.json").read_text())
    del q[1]["app_cateory"]
    (root / "questions.json").write_text(json.dumps(q))
    with pytest.raises(DataError, match=r"questions.json, row 1, field 'app_cateory'"):
        rows("knowledge", root=root)
    (root / "lowlevel_tasks/4.xml").unlink()
    with pytest.raises(DataError, match=r"lowlevel_tasks.json, row 1, field 'id'"):
        rows("grounding", root=root)
    with pytest.raises(ConfigError, match=r"\$SPHINX_DATA_DIR is not set: .*; see docs/sphinx.md"):
        release.data_root({})


def test_skipping_bad_rows_is_opt_in_and_counted(tmp_path, monkeypatch):
    root = tmp_path / "sphinx"
    shutil.copytree(FIX, root)
    low = json.loads((FIX / "lowlevel_tasks.json").read_text())
    low[0]["groundtruth"]["element"]["bounds"] = "[1,2]"
    (root / "lowlevel_tasks.json").write_text(json.dumps(low))
    with pytest.raises(DataError, match=r"row 0, field 'groundtruth.element.bounds'"):
        rows("grounding", root=root)
    monkeypatch.setenv("GUI_EVAL_SKIP_BAD_ROWS", "1")
    docs = rows("grounding", root=root)
    assert [d["id"] for d in docs] == ["4", "7", "9"] and {d["bad_rows_skipped"] for d in docs} == {1}


def test_data_check_counts_documents_against_the_release(tmp_path):
    found = check.data_check(FIX)
    assert [(c.task, c.found, c.expected) for c in found.counts] == [
        ("sphinx_knowledge", 10, 890), ("sphinx_completion", 6, 1434), ("sphinx_grounding", 4, 457),
        ("sphinx evaluators (groundtruth/*/*/evaluator.json)", 2, 288)]
    assert found.errors == [] and not found.ok  # a fixture is not the release
    root = tmp_path / "sphinx"
    shutil.copytree(FIX, root)
    (root / "lowlevel_tasks/7.png").unlink()
    info = json.loads((root / "task_info_all.json").read_text())
    info[1]["apps"].append("doordash")  # a trajectory without its folder
    (root / "task_info_all.json").write_text(json.dumps(info))
    (root / "groundtruth/608/yelp/evaluator.json").write_text('[{"type": "findelement", "match_type": "similar"}]')
    broken = check.data_check(root)
    assert [c.found for c in broken.counts] == [10, 6, 3, 1]
    assert sorted((Path(e.file).name, e.row, e.field) for e in broken.errors) == [
        ("evaluator.json", None, "evaluators[0].match_type"), ("lowlevel_tasks.json", 2, "id"), ("task_info_all.json", 1, "apps")]
    empty = check.data_check(tmp_path / "nope")
    assert empty.counts == [] and len(empty.errors) == 1 and not empty.ok


@given(st.text(max_size=80))
def test_static_scorers_never_raise(text):
    docs = rows("knowledge")[:2] + rows("completion")[:1] + rows("grounding") + rows("grounding", "screenshot")
    docs += rows("completion", rendering="paper-prose")[:1] + rows("grounding", rendering="paper-prose")
    for doc in docs + stt.SphinxStaticTask.rows({"kind": "focused"})[:9]:
        rec = values(doc, text)
        assert rec["status"] in ("parsed", "malformed", "empty")


def test_official_history_describes_actions_as_run_complete_py():
    acts = [{"action_type": "swipe", "element": {"class": "android.widget.ListView", "resource-id": "a.b:id/list"}},
            {"action_type": "input", "message": "hi", "element": {"text": " Name ", "class": "android.widget.EditText"}},
            {"action_type": "longclick", "element": {"content-desc": "More"}}, {"action_type": "back"}, {"action_type": "enter"}]
    assert stt.official_history(acts) == (
        "- Swipe on a View (resource-id: list, class: android.widget.ListView) in up direction.\n"  # direction dropped, as officially
        "- Type hi on a View (text: Name, class: android.widget.EditText).\n"
        "- Long click on a View (content-desc: More).\n- Go back.\n- Press enter.")
    with pytest.raises(DataError, match=r"row 0, field 'type'"):
        stt.official_history([{"action_type": "teleport"}])
