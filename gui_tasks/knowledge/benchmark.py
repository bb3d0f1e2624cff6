"""GUI Knowledge Bench as ``gui_core.benchmark`` records: the official release and the synthetic set."""

from __future__ import annotations

from gui_core.benchmark import Benchmark, BenchmarkData, Report, Sources, Submission, register_benchmark
from gui_core.hub_release import HubRelease

_REPORT = Report("knowledge-report", "gui_tasks.knowledge.report:main",
                 help="GUI Knowledge Bench report: Table 2, calibration, action-type confusion PNGs")
_PAPER = "GUI Knowledge Bench (seed gui-knowledge-bench), section 3.3, Table 2"
# ranked per set of sub-tasks: every task set (<set>_<sub-task>) needs all its sub-tasks
_SUBMIT = Submission(completeness="gui_tasks.knowledge.submission:completeness_gaps",
                     rule="every sub-task of a task set (<set>_<sub-task>) under one protocol")

register_benchmark(Benchmark(
    "gui_knowledge", "GUI Knowledge Bench",
    Sources(_PAPER, "Kendrick-Stein/GUI_Knowledge_Bench_Official_Repo", "Inference/tools/message_gen_tools.py",
            "378add4a612de5026944591218d984a3ea01b9b7"),
    BenchmarkData(env="GUI_KNOWLEDGE_DATA_DIR",
                  layouts=("KnowledgeBench/<KnowledgeType>/<SubType>-<uuid>.json (one question per file)",
                           "JSON list / JSONL / the hub's parquet"),
                  hub=(HubRelease("KendrickShi/GUI-Knowledge-Bench", "main", "gui_knowledge_hub", read_by=""),),
                  page="docs/gui_knowledge_bench.md",
                  unset="point it at a local copy of the official release, or use the gui_knowledge_synth tasks"),
    match=(("benchmark", "gui_knowledge"), ("source", "official")), yaml_folder="knowledge",
    task_class="gui_tasks.knowledge.lmms_task:KnowledgeTask", yaml_spec="gui_tasks.knowledge.yaml_spec:render_all",
    loader="gui_tasks.knowledge.lmms_task:task_rows", report=_REPORT, submission=_SUBMIT,
    data_check="gui_tasks.knowledge.release:data_check", official_report="gui_tasks.knowledge.report:build_report",
    docs="docs/gui_knowledge_bench.md", viewing="gui_tasks.knowledge.viewing"))

register_benchmark(Benchmark(
    "gui_knowledge_synth", "GUI Knowledge Bench synthetic",
    Sources(_PAPER + " (the sub-tasks; the screens are ours: docs/synthetic_world.md)"),
    BenchmarkData(generated="gui_tasks.knowledge.synth:load_or_build", layouts=("question JSONL + images (generated)",),
                  page="docs/synthetic_world.md"),
    match=(("benchmark", "gui_knowledge"), ("source", "synthetic")), yaml_folder="knowledge",
    task_class="gui_tasks.knowledge.lmms_task:KnowledgeTask", yaml_spec="gui_tasks.knowledge.yaml_spec:render_all",
    loader="gui_tasks.knowledge.lmms_task:task_rows", report=_REPORT, submission=_SUBMIT,
    official_report="gui_tasks.knowledge.report:build_report", docs="docs/gui_knowledge_bench.md", viewing="gui_tasks.knowledge.viewing"))
