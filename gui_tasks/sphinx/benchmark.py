"""SPHINX as ``gui_core.benchmark`` records: the official static tasks (knowledge probing, completion judgment,
grounding), the synthetic corpus in the official layout, the toggle/navigation simulator and the official user tasks
on a device."""

from __future__ import annotations

from gui_core.benchmark import Benchmark, BenchmarkData, Report, Sources, register_benchmark

_PAPER = "SPHINX (Ran et al., seed sphinx-multidim-ui-navigation), sections 3.3.2-3.3.4, Tables 4-9"
_REPO = "PKU-ASE-RISE/Sphinx"
_SPEC = "gui_tasks.sphinx.yaml_spec:render_all"
_STATIC = "gui_tasks.sphinx.static_tasks:SphinxStaticTask"
_REPORT = "gui_tasks.sphinx.report:build_report"
_COMMAND = Report("sphinx-report", "gui_tasks.sphinx.report:main",
                  help="SPHINX Tables 4-9, capability chart and trajectory viewer from lmms-eval results")
_VIEWING = "gui_tasks.sphinx.viewing"
_OFFICIAL_DATA = BenchmarkData(
    env="SPHINX_DATA_DIR", meta_key="data_dir", page="docs/sphinx.md",
    layouts=("task_info_all.json + groundtruth/<id>/<app>/ + questions.json + lowlevel_tasks.json + lowlevel_tasks/",),
    unset="point it at a checkout of https://github.com/PKU-ASE-RISE/Sphinx (or the task metadata data_dir)")

register_benchmark(Benchmark(
    "sphinx", "SPHINX (static tasks)",
    Sources(_PAPER, _REPO, "run_complete.py, run_lowlevel.py (completion judgment, grounding)"), _OFFICIAL_DATA,
    match=(("benchmark", "sphinx"), ("source", "official")), yaml_folder="sphinx", task_class=_STATIC, yaml_spec=_SPEC,
    loader=_STATIC + ".rows", report=_COMMAND, data_check="gui_tasks.sphinx.check:data_check",
    cluster_key="per kind: question, episode or screenshot", official_report=_REPORT, docs="docs/sphinx.md", viewing=_VIEWING))

register_benchmark(Benchmark(
    "sphinx_synth", "SPHINX synthetic corpus (official layout, recorded from the simulator)",
    Sources(_PAPER + " (the layout; the apps are ours: docs/synthetic_world.md)", _REPO),
    BenchmarkData(generated="gui_tasks.sphinx.synth:load_or_build", layouts=(_OFFICIAL_DATA.layouts[0] + " (generated)",),
                  page="docs/sphinx.md"),
    match=(("benchmark", "sphinx"), ("source", "synthetic")), yaml_folder="sphinx", task_class=_STATIC,
    yaml_spec=_SPEC, loader=_STATIC + ".rows", report=_COMMAND,
    cluster_key="per kind: question, episode or screenshot", official_report=_REPORT, docs="docs/sphinx.md", viewing=_VIEWING))

register_benchmark(Benchmark(
    "sphinx_sim", "SPHINX navigation and toggles in the simulator",
    Sources(_PAPER + " (the metrics; the simulated apps are ours: docs/synthetic_world.md)", _REPO),
    BenchmarkData(generated="gui_tasks.sphinx.simulator:Simulator", layouts=("simulated apps (in memory)",),
                  page="docs/sphinx.md"),
    match=(("benchmark", "sphinx_sim"),), yaml_folder="sphinx", task_class="gui_tasks.sphinx.lmms_task:SphinxNavTask",
    yaml_spec=_SPEC, loader="gui_tasks.sphinx.lmms_task:SphinxNavTask.rows", report=_COMMAND,
    cluster_key="episode", official_report=_REPORT, docs="docs/sphinx.md", viewing=_VIEWING))

register_benchmark(Benchmark(
    "sphinx_device", "SPHINX user tasks on a device (adb)",
    Sources(_PAPER, _REPO, "task_info_all.json, groundtruth/<id>/<app>/evaluator.json"), _OFFICIAL_DATA,
    match=(("benchmark", "sphinx_sim"), ("source", "device")), yaml_folder="sphinx",
    task_class="gui_tasks.sphinx.device_task:SphinxDeviceTask", yaml_spec=_SPEC,
    loader="gui_tasks.sphinx.device_task:SphinxDeviceTask.rows", report=_COMMAND, cluster_key="episode", official_report=_REPORT,
    docs="docs/sphinx_device.md", viewing=_VIEWING))
