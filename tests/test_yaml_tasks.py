"""The generated task YAMLs: fresh, indexed by lmms-eval, named without collisions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


from gui_tasks.harness import lmms_integration
from gui_tasks.harness.lmms_integration import yaml_tasks_dir

ROOT = Path(__file__).resolve().parent.parent


def test_generated_yamls_are_up_to_date():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_yaml_tasks.py"), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_task_index_of_our_folder_alone():
    from lmms_eval.tasks import TaskManager

    tm = TaskManager("ERROR", include_path=str(yaml_tasks_dir()), include_defaults=False)
    names = set(tm.all_tasks)
    langs = ("en", "zh", "fr", "ru", "ja", "th")
    assert {f"mpr_gui_{l}" for l in langs} <= names
    assert {f"mpr_gui_synth_{l}" for l in langs} <= names
    assert {f"mpr_gui_cot_{l}" for l in langs} <= names
    assert {"mpr_gui", "mpr_gui_synth", "mpr_gui_cot", "mpr_gui_synth_cot"} <= set(tm.all_groups)
    assert len([n for n in names if n.startswith("mpr_gui_zh_") and not n.endswith("_circular")]) == 8
    circular = {"mpr_gui_zh_circular", "mpr_gui_synth_zh_circular", "gui_knowledge_type_circular",
                "gui_knowledge_synth_ja_effect_circular", "sphinx_knowledge_circular", "sphinx_knowledge_synth_circular"}
    assert circular <= names and {"mpr_gui_circular", "gui_knowledge_synth_circular"} <= set(tm.all_groups)
    assert {"star_state_control", "star_state_control_synth", "star_state_control_synth_th", "star_state_control_ui_tars",
            "star_androidcontrol_low", "star_aitz_gui_owl", "star_gui_odyssey", "star_agentic_synth_ja"} <= names
    assert {"star_state_control_synth_6lang", "star_agentic"} <= set(tm.all_groups)
    sphinx = {f"sphinx_{kind}{src}{mode}" for kind in ("completion", "grounding") for src in ("", "_synth")
              for mode in ("", "_simplified", "_image", "_som")}
    assert sphinx | {"sphinx_knowledge", "sphinx_knowledge_synth", "sphinx_focused_synth", "sphinx_sim", "sphinx_sim_nav_som",
                     "sphinx_sim_toggle_image"} <= names


def test_our_names_do_not_collide_with_builtin_tasks():
    import os

    import lmms_eval.tasks as lt

    tm = lt.TaskManager("ERROR", include_path=str(yaml_tasks_dir()), include_defaults=False)
    builtin = set(tm._get_task_and_group(os.path.dirname(lt.__file__)))
    assert builtin and not set(tm.all_tasks) & builtin


def test_explicit_include_path_is_not_indexed_twice():
    ours = str(yaml_tasks_dir())
    assert lmms_integration._with_our_path([ours + "/"]) == [ours + "/"]
    assert lmms_integration._with_our_path(None) == [ours]
    assert lmms_integration._with_our_path("/x") == ["/x", ours]


def test_pth_hook_is_written_and_removed(tmp_path):
    path = lmms_integration.install_lmms_hook(site_dir=str(tmp_path))
    line = path.read_text(encoding="utf-8")
    assert line.startswith("import ") and line.count("\n") == 1 and "register_import_hook" in line
    lmms_integration.install_lmms_hook(remove=True, site_dir=str(tmp_path))
    assert not path.exists()


def test_gui_knowledge_tasks_and_groups_are_indexed():
    from lmms_eval.tasks import TaskManager

    from gui_metrics.knowledge import SUBTASKS

    tm = TaskManager("ERROR", include_path=str(yaml_tasks_dir()), include_defaults=False)
    names, groups = set(tm.all_tasks), set(tm.all_groups)
    ip = ("state", "widget", "layout")
    assert {f"gui_knowledge_{s}" for s in SUBTASKS} | {f"gui_knowledge_{v}_{s}" for v in ("plain", "tip") for s in ip} <= names
    assert not {f"gui_knowledge_plain_{s}" for s in SUBTASKS if s not in ip} & names  # ablations of Interface Perception only
    assert {f"gui_knowledge_synth_{lang}_{s}" for lang in ("en", "zh", "th") for s in SUBTASKS} <= names
    assert {"gui_knowledge", "gui_knowledge_plain", "gui_knowledge_tip", "gui_knowledge_synth", "gui_knowledge_synth_ja",
            "gui_knowledge_synth_aug"} <= groups


def test_every_yaml_metric_direction_is_the_metric_definition_s():
    """``higher_is_better`` in every generated file (tasks and bases) is what the metric's own spec says."""
    from gui_metrics.manager import all_metrics
    from gui_tasks.harness.thin_yaml import BASE_SUFFIX, load_plain

    specs = all_metrics()
    entries = [(p.name, e) for p in sorted(yaml_tasks_dir().glob(f"*/*[._]yaml")) if p.name.endswith((".yaml", BASE_SUFFIX))
               for e in (load_plain(p.read_text(encoding="utf-8")) or {}).get("metric_list") or []]
    assert len({e["metric"] for _, e in entries}) > 150
    wrong = [(name, e["metric"]) for name, e in entries if e["higher_is_better"] is not specs[e["metric"]].higher_is_better]
    assert not wrong
    assert {e["metric"]: e["higher_is_better"] for _, e in entries}["format_error_rate"] is False
