"""load_or_build: cache reuse, atomic builds, two processes at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gui_tasks.mpr.schema import LANGS
from gui_tasks.mpr.synth import load_or_build, set_name


def test_cache_is_reused_and_paths_point_into_it(tmp_path):
    first = load_or_build(seed=3, per_dimension=1, root=tmp_path)
    assert set(first) == set(LANGS) and first["en"].parent.name == set_name(3, 1)
    stamp = first["en"].stat().st_mtime_ns
    second = load_or_build(seed=3, per_dimension=1, root=tmp_path, langs=("zh",))
    assert first["en"].stat().st_mtime_ns == stamp and set(second) == {"zh"}
    row = json.loads(second["zh"].read_text(encoding="utf-8").splitlines()[0])
    assert all(Path(p).is_file() and p.startswith(str(first["en"].parent.resolve())) for p in row["images"])
    assert Path(json.loads(row["meta"])["scene"]).is_file()
    assert not list(tmp_path.glob(".*.building-*"))


def test_half_written_set_is_not_reused(tmp_path):
    broken = tmp_path / set_name(4, 1)
    (broken / "images").mkdir(parents=True)
    (broken / "en.jsonl").write_text("{}\n")
    (tmp_path / f".{set_name(4, 1)}.building-x").mkdir()  # left by a crashed build
    files = load_or_build(seed=4, per_dimension=1, root=tmp_path)
    assert all(files[lang].is_file() for lang in LANGS)
    assert json.loads(files["en"].read_text(encoding="utf-8").splitlines()[0])["lang"] == "en"
    assert not list(tmp_path.glob(".*.building-*"))


def test_two_processes_at_once_share_one_complete_set(tmp_path):
    code = ("import sys, json; from pathlib import Path; from gui_tasks.mpr.synth import load_or_build; "
            "f = load_or_build(seed=5, per_dimension=1, root=Path(sys.argv[1])); print(json.dumps({k: str(v) for k, v in f.items()}))")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    a, b = (json.loads(o) for o in outs)
    assert a == b
    assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == [set_name(5, 1)]
    for path in a.values():
        rows = Path(path).read_text(encoding="utf-8").splitlines()
        assert len(rows) == 8 and all(Path(img).is_file() for r in rows for img in json.loads(r)["images"])
