"""Judges of the step-wise agentic benchmarks: each the whole reading of one official evaluator, selected by name.

Task metadata ``judge`` (YAML, or per run ``--metadata '{"judge": "aitw"}'``) picks one; results and submissions carry
it (the task config's metadata and every per-step record). A judge decides which steps exist (``drop_reason``), how
the gold is derived from the dataset's own fields (``doc["judge_data"]``), how the model's text is read, and the
(type match, exact match) verdict. Names and what each reads (``docs/star_judges.md`` lists what differs from
``paper``):

- ``star``: ZrW00/StaR ``evaluator/`` + ``dataPreprocessor/`` (``gui_tasks.star.star_official``); the default of
  StaR's tasks, the reading behind its published numbers.
- ``paper``: StaR appendix A.2 as written (inside the gold element's box, else d <= 140 on the 0-1000 grid; text
  lower-cased exact; scroll by direction; OPENAPP stemmed substring); ``match_rule`` picks the variant.
- ``aitw``: google-research ``android_in_the_wild/action_matching.py`` (used for AITZ by CoAT).
- ``odyssey``: OpenGVLab/GUI-Odyssey ``src/eval_mm/GUIOdyssey_action_matching.py`` + ``evaluate_GUIOdyssey.py``.
- ``os_atlas``: OS-Copilot/OS-Atlas ``eval/eval_scripts/{android_control,odyssey}/evaluation_unify.py``.
- ``qwen_agentcpm``: OpenBMB/AgentCPM-GUI ``eval/utils/evaluator.py`` (after the Qwen2.5-VL evaluator), on AITZ and
  AndroidControl and GUI-Odyssey as ``eval/eval_data/process_{aitz,ac,odyssey}.py`` prepare them.
- ``guievalkit``: xiaomi-research/guievalkit ``guieval/eval/evaluator.py`` + ``data/process_*.py``: AgentCPM-GUI's
  evaluator with a LONG_POINT gold for AndroidControl long presses, OPEN_APP steps scored, and WAIT its own type.
- ``gui_r1``: ritzz-ai/GUI-R1 ``guir1/eval/eval_omni.py`` on what its inference scripts extract.

Each judge is a frozen ``Judge`` record (``gui_tasks.star.judge_record``) in ``JUDGE_REGISTRY`` (collision and "did you
mean" checks) carrying its rules: ``step`` (the verdict), ``drop`` (which steps exist), ``native_family`` (the family it
reads with its authors' own reading); ``judge_step`` and ``drop_reason`` only call them, so a judge a plugin registers
behaves by its record (the rules: ``judge_rules``, ``judge_cpm``). The docs' table is ``judge_table()``. An AgentCPM-GUI answer is read whole by the pipeline's own reading (``cpm_official``), a GUI-R1
answer by GUI-R1's extractors; every judge agrees 100% with its authors' code on ``tests/fixtures/differential/judges``.
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_core.actions import Action
from gui_core.coords import Geometry
from gui_tasks.star import judge_cpm as cpm
from gui_tasks.star import judge_rules, star_official
from gui_tasks.star.judge_record import JUDGE_REGISTRY, Judge, Source, Verdict, raw, register_judge
from gui_tasks.star.judge_rules import odyssey_text_match, os_atlas_action, star_gold_atlas

__all__ = ["DEFAULT_JUDGE", "JUDGE_DATASETS", "JUDGE_REGISTRY", "JUDGES", "Judge", "RECENT_APPS_JUDGES", "STAR_READERS",
           "Source", "Verdict", "check", "drop_reason", "judge_step", "judge_table", "odyssey_text_match",
           "os_atlas_action", "raw", "register_judge", "star_gold_atlas"]


_STAR = "3af0acd5c393c5eaa5253f411d7c22fba35b6f67"
register_judge(Judge("star", ("androidcontrol", "aitz", "gui_odyssey"),
                     "StaR's extractors and Atlas grammar; snapped gold; inside the smallest holding box, else d <= 140; "
                     "scroll direction part of the type",
                     (Source("ZrW00/StaR", ("evaluator/", "dataPreprocessor/"), _STAR),),
                     step=judge_rules.star_step, drop=judge_rules.star_steps, type_names="star-actiontype",
                     # evaluators.py predictionExtractor; dataPreprocessor/actions.py translateAtlas2ACG / 2Uitars
                     readers={"os_atlas": star_official.atlas_of_os_atlas, "ui_tars": star_official.atlas_of_ui_tars,
                              "agentcpm_gui": star_official.atlas_of_agentcpm},
                     labels={"agentcpm_gui": star_official.acg_gold, "ui_tars": star_official.uitars_gold}))
register_judge(Judge("paper", ("androidcontrol", "aitz", "gui_odyssey", "synthetic"),
                     "inside the gold element's box, else d <= 140 (match_rule); text lower-cased equal; scroll by "
                     "direction; app names stemmed substring",
                     (Source("paper: StaR appendix A.2", ("seeds/star-toggle-state-control.txt",)),),
                     step=judge_rules.paper_step, drop=judge_rules.family_steps, takes_match_rule=True))
register_judge(Judge("aitw", ("aitz",),
                     "taps in the same 2.4x-grown box or <= 0.14 apart; drags by main axis; other actions by type "
                     "(a long press is no action)",
                     (Source("google-research/google-research", ("android_in_the_wild/action_matching.py",),
                             "1d49f2c0d5506a6e11115726164d42f6b7b7b95a"),),
                     step=judge_rules.aitw_step, drop=judge_rules.family_steps))
register_judge(Judge("odyssey", ("gui_odyssey",),
                     "same action name; clicks inside sam2_bbox or <= 0.14 (points scaled first); text ANLS >= 0.5; "
                     "scroll word; recent-apps steps scored",
                     (Source("OpenGVLab/GUI-Odyssey", ("src/eval_mm/GUIOdyssey_action_matching.py",
                                                       "src/eval_mm/evaluate_GUIOdyssey.py", "data/format_converter.py"),
                             "fefcbe9d76e2f010c68225ae7f378c4c550a89c1"),), recent_apps=True,
                     step=judge_rules.odyssey_step, drop=judge_rules.family_steps))
register_judge(Judge("os_atlas", ("androidcontrol", "gui_odyssey"),
                     "first word after actions:; clicks <= 140 on integer digit runs; TYPE/OPEN_APP by F1; the rest "
                     "by string or type",
                     (Source("OS-Copilot/OS-Atlas", ("eval/eval_scripts/android_control/evaluation_unify.py",
                                                     "eval/eval_scripts/odyssey/evaluation_unify.py"),
                             "bad08407ab54b5bf6c17a69fe1ced476b9494926"),), recent_apps=True,
                     step=judge_rules.os_atlas_step, drop=judge_rules.family_steps, native_family="os_atlas"))
register_judge(Judge("qwen_agentcpm", ("androidcontrol", "aitz", "gui_odyssey"),
                     "AgentCPM-GUI answers: json.loads + schema of the whole answer; 1.2x boxes, else 0.14 "
                     "(AndroidControl 0.04); finger word; text containment; stops match",
                     (Source("OpenBMB/AgentCPM-GUI", ("eval/utils/evaluator.py", "eval/utils/convert_output.py",
                                                      "eval/utils/schema/schema_for_extraction.json",
                                                      "eval/run_predict_minicpm.py", "eval/eval_data/process_ac.py",
                                                      "eval/eval_data/process_aitz.py", "eval/eval_data/process_odyssey.py"),
                             "acbaf509b8afb3f58b782486f4e8c0e33d8a486b"),), recent_apps=True,
                     step=cpm.qwen_agentcpm_step, drop=cpm.agentcpm_steps, native_family="agentcpm_gui"))
register_judge(Judge("guievalkit", ("androidcontrol", "aitz", "gui_odyssey"),
                     "AgentCPM-GUI's evaluator; first JSON block, only STATUS finish, own schema; OPEN_APP scored; "
                     "WAIT and LONG_POINT own types",
                     (Source("xiaomi-research/guievalkit", ("guieval/eval/evaluator.py", "guieval/models/agentcpm_gui.py",
                                                            "guieval/utils/action_space.py", "guieval/main/step_task.py",
                                                            "guieval/eval/convert_output.py", "data/process_ac.py",
                                                            "data/process_odyssey.py"),
                             "d5e954e5865eebaa10729c8ef38c8bda6025afde"),), recent_apps=True,
                     step=cpm.guievalkit_step, drop=cpm.guievalkit_steps, native_family="agentcpm_gui"))
register_judge(Judge("gui_r1", ("androidcontrol", "gui_odyssey"),
                     "eval_omni: type = action word; click < 0.14 and text F1 >= 0.5 without a type check; other "
                     "actions by type",
                     (Source("ritzz-ai/GUI-R1", ("guir1/eval/eval_omni.py", "guir1/inference/inference_vllm_android.py"),
                             "d43eea2f1c52356077034ff2524642fc05e06c6a"),),
                     step=cpm.gui_r1_step, drop=judge_rules.family_steps, native_family="gui_r1", variant_family="gui_r1"))
JUDGE_DATASETS: dict[str, tuple[str, ...]] = {j.name: j.datasets for j in JUDGE_REGISTRY.values()}
JUDGES = tuple(JUDGE_DATASETS)
RECENT_APPS_JUDGES = tuple(j.name for j in JUDGE_REGISTRY.values() if j.recent_apps)
DEFAULT_JUDGE = {"androidcontrol": "star", "aitz": "star", "gui_odyssey": "star", "synthetic": "paper"}
# families whose text StaR's evaluator reads with its own extractor (evaluators.py predictionExtractor)
STAR_READERS = JUDGE_REGISTRY["star"].readers


def check(judge: str, dataset: str) -> str | None:
    """Why ``judge`` cannot score ``dataset`` (None: it can)."""
    if judge not in JUDGE_REGISTRY:
        return JUDGE_REGISTRY.unknown_message(judge)
    covered = JUDGE_REGISTRY[judge].datasets
    if dataset not in covered:
        return f"judge {judge!r} is not defined for {dataset} (it judges {', '.join(covered)})"
    return None


def judge_table() -> str:
    """The docs' judge table (docs/star_judges.md), from the registry."""
    sets = ("androidcontrol", "aitz", "gui_odyssey", "synthetic")
    rows = ["| judge | official code it reads | rule | AndroidControl | AITZ | GUI-Odyssey | synthetic |",
            "|---|---|---|---|---|---|---|"]
    for j in JUDGE_REGISTRY.values():
        code = "; ".join(f"{s.repo}" + (f"@{s.commit[:7]}" if s.commit else "") + " " + ", ".join(f"`{f}`" for f in s.files)
                         for s in j.sources)
        rows.append(f"| `{j.name}` | {code} | {j.rule} | " + " | ".join("yes" if d in j.datasets else "no" for d in sets) + " |")
    return "\n".join(rows) + "\n"


def drop_reason(judge: str, doc: Mapping[str, Any]) -> str | None:
    """Why ``judge`` leaves this step out for the doc's agent family (None: the step is scored): its record's rule."""
    rec = JUDGE_REGISTRY.get(judge)
    assert rec.drop is not None  # register_judge refuses a record without one
    return rec.drop(rec, doc)


def judge_step(judge: str, doc: Mapping[str, Any], response: str | None, parsed_action: Action | None,
               geometry: Geometry) -> Verdict:
    """The verdict of ``judge`` on one step (its record's rule); ``parsed_action`` is our family parser's reading of
    ``response``."""
    rec = JUDGE_REGISTRY.get(judge)
    assert rec.step is not None  # register_judge refuses a record without one
    return rec.step(rec, doc, response, parsed_action, geometry)
