"""Prints samples/s, time to first request and peak memory of ``gui_openai`` and lmms-eval's ``openai`` on official-layout
data at real scale, side by side, through the real lmms-eval CLI, against an instant local server (issue 31).

    python benchmarks/bench_served_scale.py [--data DIR] [--fractions 0.1,0.25,1] [--benchmarks mpr_en,screenspot_pro]
                                            [--concurrency 32] [--latency-ms 20] [--keep]

Data (built once under ``--data``, default a temporary folder removed at the end unless ``--keep``), in the
published layouts the loaders read (docs/mpr_gui.md, docs/screenspot_pss.md; synthetic pixels):

- ``mpr_en``: MPR-GUI-Bench English, 2,245 questions as released (366 per single-image dimension, 365 for one,
  25 RI and 25 SI episodes of 4 frames), ``qas/<stem>_en.jsonl`` + ``images/{1..6}/en/<app>_en_<n>.jpg`` and
  ``images/{rich,sparse}/en/<episode>/``, 1080x2400 JPEG phone screenshots; task ``mpr_gui_en``.
- ``screenspot_pro``: 1,581 rows in ``annotations/<app>_<platform>.json`` + ``images/``, 2560x1440 and 3840x2160 RGB
  PNG desktop screenshots (half each); task ``gui_screenspot_pro``.

Each file is its own path; the pixels come from a pool of distinct screens (hard links where the file system allows)
so the data costs little disk. The server (tests/fake_openai.py's ``FakeServer``, keeping no bodies, in a thread of
this process) answers every request after ``--latency-ms``. Per run (fraction = lmms-eval's ``--limit``):
samples/s over the whole CLI call (start-up included) and between the first request and the last, time from the
CLI's start to the first request, peak RSS of the lmms-eval process tree (sampled every 0.2 s), and the load average.
The floor: one screenshot decoded (``load_image``) and its file base64-encoded, on one thread (ScreenSpot-Pro: the mean
over its two sizes); harness cost per sample
= (last request - first request) / samples, against that floor.
"""

from __future__ import annotations

import argparse
import base64
import functools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

SINGLE = {"au": "1", "ap": "2", "wf": "3", "wi": "4", "abs_el": "5", "rel_el": "6"}  # stem -> folder (release layout)
MPR_SINGLE_ROWS = {"au": 366, "ap": 366, "wf": 366, "wi": 366, "abs_el": 366, "rel_el": 365}  # + 25 RI + 25 SI = 2,245
EPISODES, FRAMES = 25, 4
PRO_ROWS = 1581
PRO_SIZES = ((2560, 1440), (3840, 2160))
PRO_GROUPS = {"dev": ("vscode", "pycharm"), "creative": ("photoshop", "blender"), "cad": ("autocad", "solidworks"),
              "scientific": ("matlab", "stata"), "office": ("excel", "word"), "os": ("linux", "windows")}
DISTINCT = 24  # distinct screens per size in the pool
# share of each screen that is a photo-like texture, so files weigh about what real ones do (phone JPEG ~0.4 MB,
# desktop PNG ~1.5-3 MB)
PHONE_PHOTO, DESKTOP_PHOTO = 0.03, 0.05
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def _screen(size: tuple[int, int], seed: int, photo: float) -> Any:
    """A synthetic GUI screenshot: bars, panels, buttons and text lines on a flat background (compresses like one)."""
    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    w, h = size
    im = Image.new("RGB", size, tuple(rng.randrange(200, 256) for _ in range(3)))
    d = ImageDraw.Draw(im)
    d.rectangle([0, 0, w, h // 20], fill=tuple(rng.randrange(0, 120) for _ in range(3)))
    for _ in range(60):
        x, y = rng.randrange(0, w - 40), rng.randrange(h // 20, h - 40)
        bw, bh = rng.randrange(40, w // 3), rng.randrange(20, h // 12)
        d.rectangle([x, y, min(w - 1, x + bw), min(h - 1, y + bh)], fill=tuple(rng.randrange(0, 256) for _ in range(3)),
                    outline=(40, 40, 40))
    for k in range(120):
        x, y = rng.randrange(0, w - 200), rng.randrange(0, h - 20)
        d.text((x, y), f"Item {seed}-{k} {'lorem ipsum dolor'[:rng.randrange(5, 17)]}", fill=(20, 20, 20))
    pw, ph = int(w * photo ** 0.5), int(h * photo ** 0.5)  # a photo or thumbnail: texture that compresses poorly
    im.paste(Image.frombytes("RGB", (pw, ph), rng.randbytes(pw * ph * 3)), (rng.randrange(0, w - pw), rng.randrange(0, h - ph)))
    return im


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _built_once(build: Callable[[Path, Path], None]) -> Callable[[Path], Path]:
    """``build(root, pool)`` run once per data folder (a ``BUILT`` marker skips it later); ``pool`` holds the distinct
    screenshots the rows link to and is removed afterwards. The wrapped builder returns the data folder."""

    @functools.wraps(build)
    def once(root: Path) -> Path:
        done = root / "BUILT"
        if done.is_file():
            return root
        pool = root / "_pool"
        pool.mkdir(parents=True, exist_ok=True)
        build(root, pool)
        shutil.rmtree(pool)
        done.write_text("ok\n")
        return root

    return once


@_built_once
def build_mpr_en(root: Path, pool: Path) -> None:
    """MPR-GUI-Bench English in the release layout (see module docstring)."""
    shots = []
    for i in range(DISTINCT):
        p = pool / f"phone_{i}.jpg"
        _screen((1080, 2400), i, PHONE_PHOTO).save(p, quality=90)
        shots.append(p)
    qas = root / "qas"
    qas.mkdir(exist_ok=True)
    opts = ("Opens settings", "Deletes the item", "Lower-left quadrant", "Starts a search")
    n = 0
    for stem, folder in SINGLE.items():
        rows = []
        for k in range(MPR_SINGLE_ROWS[stem]):
            rel = f"images/{folder}/en/app{k % 40}_en_{k}.jpg"
            _link(shots[n % DISTINCT], root / rel)
            n += 1
            question = f"What does the highlighted element {k} do? " + " ".join(f"{c}: {o}" for c, o in zip("ABCD", opts))
            rows.append({"question": question, "answer": "ABCD"[k % 4], "image_path": "../" + rel})
        (qas / f"{stem}_en.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for stem, kind in (("knowledge_rich", "rich"), ("knowledge_sparse", "sparse")):
        rows = []
        for e in range(EPISODES):
            folder = f"images/{kind}/en/episode_{e}"
            for f in range(1, FRAMES + 1):
                name = f"episode_{e}_en_{f}.jpg" if kind == "rich" else f"episode_{e}_{f}.jpg"
                _link(shots[(n + f) % DISTINCT], root / folder / name)
            n += 1
            question = f"What did the user do in episode {e}?\nOptions:\n" + "\n".join(f"{c}: {o}" for c, o in zip("ABCD", opts))
            rows.append({"question": question, "answer": "A", "image_folder_path": "../" + folder})
        (qas / f"{stem}_en.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@_built_once
def build_screenspot_pro(root: Path, pool: Path) -> None:
    """ScreenSpot-Pro in its published layout (see module docstring)."""
    shots = {size: [] for size in PRO_SIZES}
    for size in PRO_SIZES:
        for i in range(DISTINCT // 2):
            p = pool / f"desk_{size[0]}_{i}.png"
            _screen(size, 1000 + i, DESKTOP_PHOTO).save(p)
            shots[size].append(p)
    apps = [(g, a, plat) for g, names in PRO_GROUPS.items() for a in names for plat in ("windows", "macos")]
    per_app: dict[str, list[dict]] = {}
    for k in range(PRO_ROWS):
        group, app, plat = apps[k % len(apps)]
        size = PRO_SIZES[k % 2]
        name = f"{app}_{plat}"
        img = f"{name}/shot_{k}.png"
        _link(shots[size][k % len(shots[size])], root / "images" / img)
        x, y = (k * 37) % (size[0] - 100), (k * 53) % (size[1] - 60)
        per_app.setdefault(name, []).append({"img_filename": img, "bbox": [x, y, x + 80, y + 40],
                                             "instruction": f"click the control {k}", "id": f"{name}_{k}",
                                             "application": app, "platform": plat, "img_size": list(size),
                                             "ui_type": "icon" if k % 3 else "text", "group": group.capitalize()
                                             if group != "os" else "OS", "instruction_cn": "点击"})
    ann = root / "annotations"
    ann.mkdir(exist_ok=True)
    for name, rows in per_app.items():
        (ann / f"{name}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")


BENCHMARKS = {  # name -> (builder, task, data variable, screenshots of each size for the floor)
    "mpr_en": (build_mpr_en, "mpr_gui_en", "MPR_GUI_DATA_DIR", ("images/1/en/app0_en_0.jpg",)),
    "screenspot_pro": (build_screenspot_pro, "gui_screenspot_pro", "SCREENSPOT_PRO_DATA_DIR",
                       ("images/vscode_windows/shot_0.png", "images/vscode_macos/shot_1.png")),
}


def floor_ms(path: Path, repeats: int = 5) -> float:
    """Median ms to decode one screenshot (as the tasks do) and base64-encode its file, on one thread."""
    import statistics

    from gui_tasks.harness.lmms_rows import load_image

    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        load_image(str(path)).close()
        base64.b64encode(path.read_bytes())
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def _tree_rss(proc) -> int:
    import psutil

    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run_once(backend: str, task: str, env: dict, fraction: float, server, concurrency: int, out: Path) -> dict:
    """One lmms-eval CLI call; its figures, or an error naming what the CLI printed last."""
    import psutil

    lmms = str(Path(sys.executable).with_name("lmms-eval"))
    if backend == "gui_openai":
        args = f"base_url={server.base_url},model=m,concurrency={concurrency},response_cache=none"
    else:
        args = f"model_version=m,base_url={server.base_url},num_concurrent={concurrency}"
    cmd = [lmms, "--model", backend, "--model_args", args, "--tasks", task, "--output_path", str(out), "--log_samples"]
    if fraction != 1:
        cmd += ["--limit", str(fraction if fraction < 1 else int(fraction))]
    before = len(server.times)
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ps = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(ps))
        time.sleep(0.2)
    t1 = time.monotonic()
    log = proc.stdout.read()
    times = server.times[before:]
    files = sorted(out.rglob("*_samples_*.jsonl"))
    n_samples = sum(sum(1 for line in f.read_text(encoding="utf-8").splitlines() if line.strip()) for f in files)
    if not times or not n_samples:
        return {"error": (log.strip().splitlines() or ["no output"])[-1][:300], "requests": len(times)}
    first, last = times[0] - t0, times[-1] - t0
    return {"samples": n_samples, "requests": len(times), "wall_s": t1 - t0, "first_s": first,
            "rate": n_samples / (t1 - t0), "steady_rate": n_samples / max(1e-9, last - first),
            "per_sample_ms": (last - first) / n_samples * 1e3, "peak_gb": peak / 1e9, "load": load}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", help="folder for the generated data (kept); default: a temporary folder, removed")
    ap.add_argument("--fractions", default="0.1,0.25,1")
    ap.add_argument("--benchmarks", default="mpr_en,screenspot_pro")
    ap.add_argument("--backends", default="gui_openai,openai")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency-ms", type=float, default=20.0)
    ap.add_argument("--keep", action="store_true", help="keep the temporary data folder")
    args = ap.parse_args(argv)
    from fake_openai import FakeServer

    data = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="bench-served-"))
    fractions = [float(f) for f in args.fractions.split(",")]
    server = FakeServer(["sleep"], text="A", sleep_s=args.latency_ms / 1e3, keep_bodies=False)
    rows = []
    try:
        for name in args.benchmarks.split(","):
            build, task, var, shot = BENCHMARKS[name]
            t = time.perf_counter()
            folder = build(data / name)
            print(f"{name}: data in {folder} ({time.perf_counter() - t:.0f} s to build or find)", flush=True)
            floor = sum(floor_ms(folder / s) for s in shot) / len(shot)  # the sizes are equally frequent
            cache = data / "cache"
            env = {**os.environ, **OFFLINE, "GUI_EVAL_CACHE": str(cache), "HF_DATASETS_CACHE": str(cache / "hf_datasets"),
                   "LMMS_EVAL_DATASETS_CACHE": str(cache / "hf_datasets"), var: str(folder), "OPENAI_API_KEY": "EMPTY"}
            with tempfile.TemporaryDirectory() as out:  # warm-up, not counted: lmms-eval caches the task's rows once
                run_once("gui_openai", task, env, 2, server, args.concurrency, Path(out))
            backends = args.backends.split(",")
            for k, fraction in enumerate(fractions):
                for backend in (backends if k % 2 == 0 else backends[::-1]):  # alternate: no backend always runs first
                    with tempfile.TemporaryDirectory() as out:
                        r = run_once(backend, task, env, fraction, server, args.concurrency, Path(out))
                    r.update(benchmark=name, backend=backend, fraction=fraction, floor_ms=floor)
                    rows.append(r)
                    print(_line(r), flush=True)
    finally:
        server.stop()
        if not args.data and not args.keep:
            shutil.rmtree(data, ignore_errors=True)
    _summary(rows, args.concurrency)
    return 0


def _line(r: dict) -> str:
    head = f"{r['benchmark']:>14s} {r['fraction']:>5.0%} {r['backend']:>10s}"
    if "error" in r:
        return f"{head}  FAILED ({r['requests']} requests): {r['error']}"
    return (f"{head}  {r['samples']:5d} samples  {r['rate']:6.2f}/s end to end  {r['steady_rate']:6.2f}/s steady  "
            f"first request {r['first_s']:5.1f} s  peak {r['peak_gb']:5.2f} GB  {r['per_sample_ms']:6.1f} ms/sample "
            f"({r['per_sample_ms'] / r['floor_ms']:.1f}x floor {r['floor_ms']:.1f} ms)  load {r['load']:.1f}")


def _summary(rows: list[dict], concurrency: int) -> None:
    ok = [r for r in rows if "error" not in r]
    print(f"\nratios (concurrency {concurrency}; 2-core machine shared with other sessions: see the load column)")
    for name in dict.fromkeys(r["benchmark"] for r in ok):
        for fraction in dict.fromkeys(r["fraction"] for r in ok if r["benchmark"] == name):
            pair = {r["backend"]: r for r in ok if r["benchmark"] == name and r["fraction"] == fraction}
            if {"gui_openai", "openai"} <= set(pair):
                g, o = pair["gui_openai"], pair["openai"]
                print(f"  {name} {fraction:.0%}: gui_openai / openai samples/s = {g['rate'] / o['rate']:.2f}x end to end, "
                      f"{g['steady_rate'] / o['steady_rate']:.2f}x steady; peak memory {g['peak_gb']:.2f} vs {o['peak_gb']:.2f} GB")
        mine = {r["fraction"]: r for r in ok if r["benchmark"] == name and r["backend"] == "gui_openai"}
        if 1.0 in mine and 0.25 in mine:
            print(f"  {name}: gui_openai peak memory 100% / 25% = {mine[1.0]['peak_gb'] / mine[0.25]['peak_gb']:.2f}x "
                  f"({mine[1.0]['peak_gb']:.2f} GB at 100%)")


if __name__ == "__main__":
    raise SystemExit(main())
