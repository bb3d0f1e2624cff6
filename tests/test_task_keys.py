"""A task YAML key that nothing reads, or two fields that disagree, is a configuration error of that task only."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

from gui_tasks.grounding.lmms_task import GroundingTask
from gui_tasks.mpr.lmms_task import MPRTask
from gui_tasks.harness.task_keys import COMMON_METADATA, config_problems
from gui_tasks.harness.thin_yaml import load_plain

ROOT = Path(__file__).resolve().parent.parent
JEDI_META = {"version": "1.1", "benchmark": "screenspot_pro", "source": "screenspot_pro", "prompt": "jedi",
             "prompt_protocol": "grounding-jedi-computer-use-v1", "coordinate_frame": "resized_px", "resize_budget": "jedi"}


def _jedi(meta=None, prompt="jedi"):
    return {"task": "gui_screenspot_pro_jedi", "metadata": {**JEDI_META, **(meta or {})},
            "lmms_eval_specific_kwargs": {"default": {"prompt": prompt}}}


def _class(dotted: str) -> type:
    module, name = str(dotted).rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def test_every_generated_task_config_passes_its_class_check():
    spec = importlib.util.spec_from_file_location("gen_yaml_tasks", ROOT / "scripts" / "gen_yaml_tasks.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    checked = 0
    for files in gen.folders().values():
        for name, text in files.items():
            config = load_plain(text)
            if "class" in config:
                cls = _class(config["class"])
                assert cls.METADATA_KEYS is not None, cls  # every task class of ours declares what it reads
                assert config_problems(cls, config) == [], name
                checked += 1
    assert checked >= 500


def test_an_unknown_metadata_key_names_the_key_the_accepted_ones_and_a_close_match():
    problems = config_problems(GroundingTask, _jedi({"coordinate_frme": "resized_px"}))
    accepted = ", ".join(sorted(COMMON_METADATA | GroundingTask.METADATA_KEYS))
    assert problems == [f"metadata key 'coordinate_frme' is read by nothing (did you mean 'coordinate_frame'?); "
                        f"accepted: {accepted}"]


def test_an_unknown_lmms_eval_specific_kwargs_key_is_an_error_in_any_section():
    config = _jedi()
    config["lmms_eval_specific_kwargs"]["qwen2_5_vl"] = {"promt": "jedi"}
    assert config_problems(GroundingTask, config) == [
        "lmms_eval_specific_kwargs key 'promt' is read by nothing (did you mean 'prompt'?); accepted: prompt, refusal, "
        "resize_budget"]


def test_the_prompt_sent_and_the_prompt_scored_must_agree():
    problems = config_problems(GroundingTask, _jedi(prompt="relative"))
    assert len(problems) == 1
    assert problems[0].endswith("the task sends prompt 'relative' (lmms_eval_specific_kwargs) but scores answers for "
                                "prompt 'jedi' (metadata.prompt): set both to the same prompt")


def test_a_grounding_coordinate_frame_other_than_the_family_s_is_an_error():
    problems = config_problems(GroundingTask, _jedi({"coordinate_frame": "grid1000"}))
    assert len(problems) == 1
    assert problems[0].startswith("coordinate_frame 'grid1000' differs from family 'jedi''s frame 'resized_px'")
    assert problems[0].endswith("see docs/grounding_families.md")  # a configuration error, with the page to read


def test_mpr_report_label_must_be_the_prompt_the_model_gets():
    config = {"task": "t", "metadata": {"lang": "en", "prompt_protocol": "mpr-cot-v1"},
              "lmms_eval_specific_kwargs": {"default": {"prompt_protocol": "mpr-direct-v1"}}}
    assert config_problems(MPRTask, config) == [
        "metadata prompt_protocol 'mpr-cot-v1' (what the report says) is not the prompt the model gets ('mpr-direct-v1', "
        "lmms_eval_specific_kwargs prompt_protocol)"]


def test_a_task_with_a_configuration_error_builds_no_request_and_others_still_run(session_cache, capsys):
    from lmms_eval.tasks import TaskManager

    from gui_tasks.harness.lmms_integration import attach

    attach()
    tm = TaskManager("WARNING", include_defaults=False)
    meta = tm._get_config("mpr_gui_synth_en")["metadata"]
    bad = tm.load_config({"task": "mpr_gui_synth_en", "metadata": {**meta, "per_dimensions": 1}})["mpr_gui_synth_en"]
    good = tm.load_task_or_group(["mpr_gui_synth_en"])["mpr_gui_synth_en"]
    for task in (bad, good):
        task.build_all_requests(limit=2, rank=0, world_size=1)
    assert len(bad.instances) == 0 and len(good.instances) == 2
    assert bad.config.metadata["not_run"].startswith(
        "configuration error: metadata key 'per_dimensions' is read by nothing (did you mean 'per_dimension'?)")
    assert "gui-eval: mpr_gui_synth_en: configuration error: metadata key 'per_dimensions'" in capsys.readouterr().err


def test_a_prompt_stating_the_image_size_and_scoring_must_use_one_resize_budget():
    config = {"task": "t", "metadata": {"prompt": "gta1", "resize_budget": "qwen2_5_vl"},
              "lmms_eval_specific_kwargs": {"default": {"prompt": "gta1"}}}
    assert config_problems(GroundingTask, config) == [
        "the prompt states the 'gta1' resize budget's size but scoring maps answers back with 'qwen2_5_vl' (metadata "
        "resize_budget): set both"]
    config["lmms_eval_specific_kwargs"]["default"]["resize_budget"] = "qwen2_5_vl"
    assert config_problems(GroundingTask, config) == []


def test_a_knowledge_record_other_than_what_the_variant_does_is_an_error():
    from gui_tasks.knowledge.lmms_task import KnowledgeTask

    config = {"task": "gui_knowledge_plain_state", "metadata": {"variant": "plain", "knowledge_tip": True,
                                                                "interface_perception_prompt": "plain"}}
    assert config_problems(KnowledgeTask, config) == [
        "metadata knowledge_tip True is not what variant 'plain' does (False); pick the variant that does it"]
