"""The grounding benchmarks as ``gui_core.benchmark`` records: the PSS icon boards, ScreenSpot, ScreenSpot-v2,
ScreenSpot-Pro, UI-Vision, MMBench-GUI L2 and OSWorld-G (original and refined instructions: one release, one record).

Every grounding table reads these: the sources a task may name (``metadata.source``) and their rows loaders, the
default point-in-box rule, the cluster key, the report's benchmark list, the data checks and the official reports.
Hub repositories are the ones lmms-eval 0.7.3's own tasks read (``dataset_path``) or the authors publish in.
"""

from __future__ import annotations

from gui_core.benchmark import (BENCHMARKS, Benchmark, BenchmarkData, Report, Sources, Submission, benchmark,
                                register_benchmark)
from gui_core.hub_release import HubRelease
from gui_metrics.osworld_g_readings import READINGS

_HUB = "gui_tasks.grounding.hub_layout:"
# The Hub copies lmms-eval 0.7.3's own tasks read (their YAML's dataset_path), converted to the official layout. No file
# is pinned: the real hashes cannot be read without the network; the first fetch locks them (trust on first use) and a
# maintainer pins them from `gui-eval data fetch NAME --print-pins` (docs/data_checks.md#get-the-data).
SCREENSPOT_PRO_HUB = HubRelease("TIGER-Lab/ScreenSpot-Pro", "main", "screenspot_pro_hub_parquet_v1",
                                read_by="screenspot_pro", convert=_HUB + "convert_screenspot_pro")
# the card at commit e387cfd: one parquet file, 127,374,329 bytes, 510 rows (LFS sha256 53f28fb9...; not pinned: the
# revision lmms-eval reads is main)
OSWORLD_G_HUB = HubRelease("MMInstruction/OSWorld-G", "main", "osworld_g_hub_parquet_v1", read_by="osworld_g",
                           size_bytes=127374329, convert=_HUB + "convert_osworld_g")

# rootsautomation/ScreenSpot (lmms-eval 0.7.3's screenspot_rec_test / screenspot_reg_test, dataset_path): parquet, the
# box as fractions [x1, y1, x2, y2] (its card at commit 0be0878; lmms-eval screenspot/utils.py multiplies by the width),
# converted back to SeeClick's [x, y, w, h] pixels (gui_tasks/grounding/hub_layout.py).
SCREENSPOT_HUB = HubRelease("rootsautomation/ScreenSpot", "main", "screenspot_hub_parquet_v1",
                            read_by="screenspot_rec_test", size_bytes=602316816, convert=_HUB + "convert_screenspot",
                            evidence="rootsautomation/ScreenSpot card @ 0be08781 (file_name, bbox float64, instruction, "
                                     "data_type, data_source, image; (x, y, w, h) -> (x1, y1, x2, y2)); lmms-eval 0.7.3 "
                                     "tasks/screenspot/utils.py (bbox times width/height: fractions), utils_rec.py "
                                     "(data_source -> mobile/desktop/web)")
# ServiceNow/ui-vision: the official release itself (annotations/ + images/, what eval_uivision.py reads); only the
# element-grounding files (the repository also holds the layout-grounding set and the card's assets).
UIVISION_HUB = HubRelease("ServiceNow/ui-vision", "main", "uivision_repository",
                          allow_patterns=("annotations/element_grounding/*", "images/element_grounding/*"),
                          evidence="hub tree @ 766c66a (annotations/, images/, assets/); uivision/UI-Vision "
                                   "eval/grounding/sample_script.sh @ d814582 (--uivision_test_file .../"
                                   "element_grounding/element_grounding_<setting>.json, --uivision_imgs)")
# OpenGVLab/MMBench-GUI: L2_annotations.json + MMBench-GUI-OfflineImages.zip (the files open-compass/MMBench-GUI's
# utils/download.py fetches); the zip extracted to offline_images/; L1_annotations.json is not read.
MMBENCH_GUI_HUB = HubRelease("OpenGVLab/MMBench-GUI", "main", "mmbench_gui_l2_extracted_v1",
                             allow_patterns=("L2_annotations.json", "MMBench-GUI-OfflineImages.zip"),
                             convert=_HUB + "convert_mmbench_gui",
                             evidence="hub tree @ e27757e (L1_annotations.json, L2_annotations.json, "
                                      "MMBench-GUI-OfflineImages.zip); open-compass/MMBench-GUI utils/download.py @ "
                                      "025e9b6 (FILES: the images archive + the annotation JSON files)")

_TASK = "gui_tasks.grounding.lmms_task:GroundingTask"
_SPEC = "gui_tasks.grounding.yaml_spec:render_all"
_OFFICIAL = "gui_metrics.grounding_official:"
_REPORT = Report("grounding-report", "gui_tasks.grounding.report:main", aliases=("pss-report",),
                 help="PSS / response-type / cropping report (figures, tables) from grounding runs")
_SUBMIT = Submission(rule="each task complete on its own (every document); its prompt and parser protocols in its metadata")


def _grounding(name: str, title: str, sources: Sources, data: BenchmarkData, loader: str, *, data_check: str = "",
               official: str = "", inside: str = "inclusive", cluster: str = "screenshot", docs: str = "",
               published_docs: int | None = None, **extra: object) -> Benchmark:
    return register_benchmark(Benchmark(
        name, title, sources, data, match=(("benchmark", extra.pop("results", name)),  # type: ignore[arg-type]
                                           ("source", extra.pop("source", name))),  # type: ignore[arg-type]
        yaml_folder="grounding", task_class=_TASK, yaml_spec=_SPEC, loader=loader, report=_REPORT,
        submission=_SUBMIT, data_check=data_check, cluster_key=cluster, official_report=official, inside_rule=inside,
        docs=docs, published_docs={"release": published_docs} if published_docs is not None else {}, extra=extra,
        viewing="gui_tasks.grounding.viewing"))


# PSS appendix: synthetic icon boards, points strictly inside (Algorithm 1)
_grounding("icon_localization_synth", "Icon localization (synthetic boards)",
           Sources("PSS paper (seed peak-sharpness-score), section 4 and Algorithm 1 (synthetic icon boards)"),
           BenchmarkData(generated="gui_tasks.synth.icon_board:load_or_build", layouts=("icon boards JSONL + PNG",),
                         page="docs/screenspot_pss.md"),
           "gui_tasks.grounding.lmms_task:synthetic_rows", inside="strict", docs="docs/screenspot_pss.md", source="synthetic",
           results="icon_localization", every_element_boxed=True)  # a board knows every element's box (PSS Tables 2, 7)

_grounding("screenspot", "ScreenSpot",
           Sources("SeeClick (Cheng et al. 2024, arXiv 2401.10935), Table 1", "njucckevin/SeeClick",
                   "pretrain/screenspot_test.py"),
           BenchmarkData(env="SCREENSPOT_DATA_DIR", layouts=("screenspot_{desktop,mobile,web}.json + screenspot_imgs/",),
                         hub=(SCREENSPOT_HUB,), page="docs/screenspot_pss.md",
                         unset="point it at a local copy of the official screenspot release"),
           "gui_tasks.grounding.screenspot:task_rows", data_check="gui_tasks.grounding.screenspot:data_check_screenspot",
           official=_OFFICIAL + "screenspot_pro_report", docs="docs/screenspot_pss.md", published_docs=1272, clips_boxes=True,
           release_layouts=("seeclick",),  # SeeClick Table 1
           # the other harnesses that publish its numbers, each a reading (task metadata ``reading``, issue 52)
           readings=("official", "vlmevalkit"), reading_judge="gui_metrics.screenspot_readings:judge",
           harness={"vlmevalkit_box": "xywh_minus_one", "vlmevalkit_file": "screenspot.py"})

_grounding("screenspot_v2", "ScreenSpot-v2",
           Sources("OS-Atlas (Wu et al. 2024, arXiv 2410.23218), section 4.1", "OS-Copilot/OS-Atlas"),
           BenchmarkData(env="SCREENSPOT_V2_DATA_DIR",
                         layouts=("screenspot_{desktop,mobile,web}_v2.json + screenspotv2_image/ (OS-Atlas release)",
                                  "annotations/{desktop,mobile,web}.json + images/ (likaixin/ScreenSpot-v2-variants)"),
                         hub_repos=("HongxinLi/ScreenSpot_v2", "likaixin/ScreenSpot-v2-variants"),
                         page="docs/screenspot_pss.md",
                         unset="point it at a local copy of the official screenspot_v2 release"),
           "gui_tasks.grounding.screenspot:task_rows", data_check="gui_tasks.grounding.screenspot:data_check_v2",
           official=_OFFICIAL + "screenspot_pro_report", docs="docs/screenspot_pss.md", published_docs=1272,  # OS-Atlas 4.1: the same instructions, corrected
           clips_boxes=True, release_layouts=("seeclick", "variants"),  # the OS-Atlas release, or likaixin's re-annotated variants
           # the other harnesses that publish its numbers, each a reading (task metadata ``reading``, issue 52)
           readings=("official", "lmms_eval", "vlmevalkit"), reading_judge="gui_metrics.screenspot_readings:judge",
           harness={"lmms_task": "screenspot_v2", "vlmevalkit_box": "xywh_minus_one", "vlmevalkit_file": "screenspot_v2.py"})

_grounding("screenspot_pro", "ScreenSpot-Pro",
           Sources("ScreenSpot-Pro (Li et al. 2025, arXiv 2504.07981)", "likaixin2000/ScreenSpot-Pro-GUI-Grounding",
                   "eval_screenspot_pro.py", "bd8bbbb470fbc4fda2a4fa9ec90bd2572507794e"),
           BenchmarkData(env="SCREENSPOT_PRO_DATA_DIR", layouts=("annotations/*.json + images/",),
                         hub=(SCREENSPOT_PRO_HUB,), hub_repos=("likaixin/ScreenSpot-Pro",),
                         page="docs/screenspot_pro.md",
                         unset="point it at a local copy of the official screenspot_pro release"),
           "gui_tasks.grounding.screenspot:task_rows", data_check="gui_tasks.grounding.screenspot:data_check_pro",
           official=_OFFICIAL + "screenspot_pro_report", cluster="application", docs="docs/screenspot_pro.md",
           published_docs=1581, clips_boxes=True, release_layouts=("pro",),  # its README / HF card
           # the other harnesses that publish its numbers, each a reading (task metadata ``reading``, issue 52)
           readings=("official", "lmms_eval", "vlmevalkit"), reading_judge="gui_metrics.screenspot_readings:judge",
           harness={"lmms_task": "screenspot_pro", "lmms_img_size": True, "vlmevalkit_box": "xyxy", "vlmevalkit_file": "screenspot_pro.py"})

_grounding("uivision", "UI-Vision (element grounding)",
           Sources("UI-Vision (Nayak et al. 2025, arXiv 2503.15661)", "uivision/UI-Vision",
                   "eval/grounding/eval_uivision.py", "2b79355f962a2db1402ce0ad3d261aa9cb74b855"),
           BenchmarkData(env="UIVISION_DATA_DIR",
                         layouts=("annotations/element_grounding/element_grounding_{basic,functional,spatial}.json + "
                                  "images/",),
                         hub=(UIVISION_HUB,), page="docs/uivision.md",
                         unset="point it at a local copy of the official UI-Vision release"),
           "gui_tasks.grounding.uivision:task_rows", data_check="gui_tasks.grounding.uivision:data_check",
           official=_OFFICIAL + "uivision_report", docs="docs/uivision.md", clips_boxes=True)

_grounding("mmbench_gui_l2", "MMBench-GUI L2 (element grounding)",
           Sources("MMBench-GUI (Wang et al. 2025, arXiv 2507.19478)", "open-compass/MMBench-GUI",
                   "benchmarks/l2_element_grounding.py", "896ddf1d3aa4d6464d0c55c6416518f889d78d77"),
           BenchmarkData(env="MMBENCH_GUI_DATA_DIR", layouts=("L2_annotations.json + offline_images/<platform>/",),
                         hub=(MMBENCH_GUI_HUB,), page="docs/mmbench_gui_l2.md",
                         unset="point it at a local copy of the official MMBench-GUI release"),
           "gui_tasks.grounding.mmbench_gui:task_rows", data_check="gui_tasks.grounding.mmbench_gui:data_check",
           official=_OFFICIAL + "mmbench_l2_report", docs="docs/mmbench_gui_l2.md", clips_boxes=True,
           yaml_version="1.3")  # 1.3: every row evaluate scores is scored, UI-TARS with the row's image_size (issue 52)

_grounding("osworld_g", "OSWorld-G (original and refined instructions)",
           Sources("OSWorld-G / JEDI (Xie et al. 2025, arXiv 2505.13227), section 3", "xlang-ai/OSWorld-G",
                   "evaluation/eval.py (GroundingEval._eval, read in VLMEvalKit vlmeval/dataset/GUI/osworld_g.py)",
                   "d47d6c727344c3c80f5589878ea50e8148416af9"),
           BenchmarkData(env="OSWORLD_G_DATA_DIR",
                         layouts=("OSWorld-G.json + OSWorld-G_refined.json + classification_result.json + images/",),
                         hub=(OSWORLD_G_HUB,), page="docs/osworld_g.md",
                         unset="point it at a local copy of the official OSWorld-G release"),
           "gui_tasks.grounding.osworld_g:task_rows", data_check="gui_tasks.grounding.osworld_g:data_check",
           official=_OFFICIAL + "osworld_g_report", docs="docs/osworld_g.md",
           published_docs=564,  # OSWorld-G paper (arXiv 2505.13227, section 3) and the release: 564 in each set
           # the harnesses that publish OSWorld-G numbers, each a reading (task metadata ``reading``)
           readings=READINGS, check_reading="gui_metrics.osworld_g_readings:check_reading",
           yaml_version="1.3")  # 1.3: the readings (issue 52); gui_tasks/grounding/yaml_spec.py


def results_loaded_by(module: str) -> tuple[str, ...]:
    """The ``metadata.benchmark`` values of the grounding records whose loader is defined in ``module`` (e.g. the
    ScreenSpot releases, read by ``gui_tasks.grounding.screenspot``)."""
    return tuple(dict.fromkeys(b.results_name for b in grounding_records() if b.loader.partition(":")[0] == module))


def every_element_boxed(results_name: str) -> bool:
    """Whether the set's documents box every element on the screen (the synthetic icon boards): a miss is then
    misleading or confusion, and "other" is their subtotal (PSS paper, Tables 2 and 7)."""
    return any(b.extra.get("every_element_boxed") for b in grounding_records() if b.results_name == results_name)


def grounding_records() -> list[Benchmark]:
    """Every grounding benchmark record (those whose tasks are ``GroundingTask``s), in registration order."""
    return [b for b in BENCHMARKS.values() if b.task_class == _TASK]


def sources() -> tuple[str, ...]:
    """The ``metadata.source`` values a grounding task may name (one per record)."""
    return tuple(dict(b.match)["source"] for b in grounding_records())


def by_source(source: str) -> Benchmark | None:
    """The grounding record whose tasks name ``source``."""
    return next((b for b in grounding_records() if dict(b.match).get("source") == source), None)


__all__ = ["benchmark", "by_source", "grounding_records", "sources"]
