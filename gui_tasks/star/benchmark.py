"""StaR as ``gui_core.benchmark`` records: the state-control benchmark (official and synthetic) and each step-wise
agentic set of appendix A.3 (AndroidControl, AITZ, GUI-Odyssey) plus the synthetic episodes."""

from __future__ import annotations

from gui_core.benchmark import Benchmark, BenchmarkData, Report, Sources, register_benchmark
from gui_core.hub_release import HubRelease

_REPORT = Report("star-report", "gui_tasks.star.report:main",
                 help="Table 7-style StaR state-control report (deltas against zero-shot)")
_PAPER = "StaR (seed star-toggle-state-control)"
_SPEC = "gui_tasks.star.yaml_spec:render_all"
_STATE = "gui_tasks.star.lmms_task:StarStateControlTask"
_AGENTIC = "gui_tasks.star.agentic_task:StarAgenticTask"
_STATE_REPORT = "gui_tasks.star.report:build_table"
_STEP_REPORT = "gui_tasks.star.report:build_step_table"
_VIEWING = "gui_tasks.star.viewing"

register_benchmark(Benchmark(
    "star", "StaR state control",
    Sources(_PAPER + ", appendix A.1-A.2, Table 2", "ZrW00/StaR", "data/state/state_control_benchmark_test.json",
            "3af0acd5"),
    BenchmarkData(env="STAR_DATA_DIR", layouts=("data/state/state_control_benchmark_{train,test,sample}.json + "
                                               "GUIData/stateControlBenchmark/",),
                  hub=(HubRelease("ZrW00/StaR_state_control_benchmark", "main", "star_repository"),),
                  page="docs/star.md",
                  unset="point it at a local copy of the official release, or use the star_state_control_synth* tasks"),
    match=(("benchmark", "star_state_control"), ("source", "official")), yaml_folder="star", task_class=_STATE,
    yaml_spec=_SPEC, loader="gui_tasks.star.lmms_task:task_rows", report=_REPORT,
    data_check="gui_tasks.star.release:data_check", official_report=_STATE_REPORT, docs="docs/star.md",
    # documents (records x 2): appendix A.1 (8,184 test and 73,652 training samples); the repository's sample file
    # holds 23 records
    published_docs={"state_control_benchmark_test.json": 8184, "state_control_benchmark_train.json": 73652,
                    "state_control_benchmark_sample.json": 46}, viewing=_VIEWING),
    aliases=("star_state_control",))

register_benchmark(Benchmark(
    "star_synth", "StaR state control, synthetic toggles",
    Sources(_PAPER + ", appendix A.1 (the protocol; the screens are ours: docs/synthetic_world.md)"),
    BenchmarkData(generated="gui_tasks.star.synth:load_or_build", layouts=("pair JSONL per language (generated)",),
                  page="docs/synthetic_world.md"),
    match=(("benchmark", "star_state_control"), ("source", "synthetic")), yaml_folder="star", task_class=_STATE,
    yaml_spec=_SPEC, loader="gui_tasks.star.lmms_task:task_rows", report=_REPORT,
    official_report=_STATE_REPORT, docs="docs/star.md", viewing=_VIEWING))


def _agentic(name: str, title: str, sources: Sources, data: BenchmarkData, dataset: str = "", *, steps: str = "",
             split: str = "", gold_scroll: str = "scroll", atlas_gold: str = "", **kw: str) -> Benchmark:
    """A step-wise agentic record; a release read from files names its step reader (``gui_tasks.star.agentic``), its
    default split, what its gold SCROLL direction names (``finger``: touch-to-lift, or ``scroll``) and StaR's
    transcription of its gold into OS-Atlas's action format (``gui_tasks.star.star_official``)."""
    extra = {"read_steps": steps, "split": split, "gold_scroll": gold_scroll, "atlas_gold": atlas_gold} if steps else {}
    return register_benchmark(Benchmark(
        name, title, sources, data, match=(("benchmark", "star_agentic"), ("dataset", dataset or name)), yaml_folder="star",
        task_class=_AGENTIC, yaml_spec=_SPEC, loader="gui_tasks.star.agentic_task:task_rows", report=_REPORT,
        cluster_key="episode", official_report=_STEP_REPORT, docs="docs/star.md", viewing=_VIEWING, extra=extra,
        **kw))


_agentic("androidcontrol", "AndroidControl (StaR step-wise)",
         Sources("AndroidControl (Li et al. 2024, arXiv 2406.03679); " + _PAPER + ", appendix A.3, Table 4",
                 "google-research/google-research", "android_control/"),
         BenchmarkData(env="ANDROIDCONTROL_DATA_DIR", page="docs/star.md",
                       layouts=("android_control_splits.json + jsons/metadata_episode_<id>.json + images/ + layouts/",),
                       unset="point it at a local export of AndroidControl (see gui_tasks/star/agentic.py)"),
         data_check="gui_tasks.star.agentic_check:data_check_androidcontrol",
         steps="gui_tasks.star.agentic:read_androidcontrol", split="test",
         atlas_gold="gui_tasks.star.star_official:gold_androidcontrol")
_agentic("aitz", "AITZ (StaR step-wise)",
         Sources("Android in the Zoo (Zhang et al. 2024, arXiv 2403.02713); " + _PAPER + ", appendix A.3, Table 4",
                 "IMNearth/CoAT", "data-example/"),
         BenchmarkData(env="AITZ_DATA_DIR", page="docs/star.md",
                       layouts=("<split>/<category>/<episode>/<episode>.json + screenshots",),
                       unset="point it at a local copy of AITZ (see gui_tasks/star/agentic.py)"),
         data_check="gui_tasks.star.agentic_check:data_check_aitz",
         steps="gui_tasks.star.agentic:read_aitz", split="test", gold_scroll="finger",
         atlas_gold="gui_tasks.star.star_official:gold_aitz")
_agentic("gui_odyssey", "GUI-Odyssey (StaR step-wise)",
         Sources("GUI Odyssey (Lu et al. 2024, arXiv 2406.08451); " + _PAPER + ", appendix A.3, Table 4",
                 "OpenGVLab/GUI-Odyssey"),
         BenchmarkData(env="GUI_ODYSSEY_DATA_DIR", page="docs/star.md",
                       layouts=("splits/<split>.json + annotations/<id>.json + screenshots/",),
                       hub=(HubRelease("OpenGVLab/GUI-Odyssey", "main", "gui_odyssey_repository"),)),
         data_check="gui_tasks.star.agentic_check:data_check_gui_odyssey",
         steps="gui_tasks.star.agentic:read_gui_odyssey", split="random_split", gold_scroll="finger",
         atlas_gold="gui_tasks.star.star_official:gold_odyssey")
_agentic("star_agentic_synth", "StaR step-wise, synthetic episodes",
         Sources(_PAPER + ", appendix A.3 (the protocol; the episodes are ours: docs/synthetic_world.md)"),
         BenchmarkData(generated="gui_tasks.star.synth:load_or_build_agentic", page="docs/synthetic_world.md",
                       layouts=("step JSONL per language (generated)",)), dataset="synthetic")
