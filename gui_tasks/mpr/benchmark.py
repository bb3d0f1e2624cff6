"""MPR-GUI-Bench as ``gui_core.benchmark`` records: the official release and the synthetic six-language set."""

from __future__ import annotations

from gui_core.benchmark import Benchmark, BenchmarkData, Report, Sources, Submission, register_benchmark

_REPORT = Report("mpr-report", "gui_tasks.mpr.report:main", aliases=("report",),
                 help="Table 2-style language x dimension report from lmms-eval results")
_PAPER = "MPR-GUI (Chen et al., seed mpr-gui-bench_gui-xli), sections 3.2-3.3, Table 2"
# MPR-GUI is ranked per language set: every (source, protocol) family of whole-language tasks needs all six languages
_SUBMIT = Submission(completeness="gui_tasks.mpr.submission:completeness_gaps",
                     rule="all six whole-language tasks (all eight dimensions) of a source under one protocol",
                     required_metrics="gui_tasks.mpr.submission:REQUIRED_METRICS",
                     task_check="gui_tasks.mpr.submission:task_problem")

register_benchmark(Benchmark(
    "mpr_gui", "MPR-GUI-Bench",
    Sources(_PAPER, "chenruihan32/MPR-GUI-Bench", "qas/{dimension}_{lang}.jsonl"),
    BenchmarkData(env="MPR_GUI_DATA_DIR", layouts=("qas/*_{lang}.jsonl + images/ (or the hub snapshot's folders)",),
                  hub_repos=("chenruihan/MPR-GUI-Bench",), page="docs/mpr_gui.md#official-data",
                  unset="point it at a folder holding qas/ (the question files, github.com/chenruihan32/MPR-GUI-Bench "
                        "(folder qas/)) and images/ (the screenshots: the hub dataset chenruihan/MPR-GUI-Bench, or name a "
                        "snapshot kept elsewhere with $MPR_GUI_IMAGE_DIR); or run the synthetic mpr_gui_synth* tasks"),
    match=(("benchmark", "mpr_gui"), ("source", "official")), yaml_folder="mpr",
    task_class="gui_tasks.mpr.lmms_task:MPRTask", yaml_spec="gui_tasks.mpr.yaml_spec:render_all",
    loader="gui_tasks.mpr.lmms_task:task_rows", report=_REPORT, submission=_SUBMIT,
    data_check="gui_tasks.mpr.release:data_check", official_report="gui_tasks.mpr.report:build_table",
    docs="docs/mpr_gui.md", published_docs={"per_language": 2245}, viewing="gui_tasks.mpr.viewing"))  # the release audit (the paper says 2,156)

register_benchmark(Benchmark(
    "mpr_gui_synth", "MPR-GUI synthetic (six-language GUI world)",
    Sources(_PAPER + " (the dimensions; the screens are ours: docs/synthetic_world.md)"),
    BenchmarkData(generated="gui_tasks.mpr.synth:load_or_build", layouts=("qas/*_{lang}.jsonl + images/ (generated)",),
                  page="docs/synthetic_world.md"),
    match=(("benchmark", "mpr_gui"), ("source", "synthetic")), yaml_folder="mpr",
    task_class="gui_tasks.mpr.lmms_task:MPRTask", yaml_spec="gui_tasks.mpr.yaml_spec:render_all",
    loader="gui_tasks.mpr.lmms_task:task_rows", report=_REPORT, submission=_SUBMIT,
    official_report="gui_tasks.mpr.report:build_table", docs="docs/mpr_gui.md", viewing="gui_tasks.mpr.viewing"))
