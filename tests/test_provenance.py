"""Provenance of third-party plugins (issue 30): distribution, version and a hash of the installed files."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points

import pytest
from fake_dist import write_dist

from gui_tasks.runs.provenance import files_sha256, intervention_plugins, merged, record


@pytest.fixture()
def site(tmp_path, monkeypatch):
    root = tmp_path / "site"
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in [m for m in sys.modules if m.startswith("acme_prov")]:
        del sys.modules[name]


def _dist(group: str, name: str):
    [ep] = [ep for ep in entry_points(group=group) if ep.name == name]
    return ep.dist


def test_files_hash_follows_the_code_and_ignores_caches(site):
    write_dist(site, "acme-prov", {"acme_prov.__init__": "X = 1\n", "acme_prov.steer": "class Steer:\n    pass\n"},
               "[gui_interventions]\nacme_prov_steer = acme_prov.steer:Steer\n", version="0.3")
    dist = _dist("gui_interventions", "acme_prov_steer")
    first = files_sha256(dist)
    assert record("intervention", "acme_prov_steer", dist) == {
        "kind": "intervention", "entry_point": "acme_prov_steer", "distribution": "acme-prov", "version": "0.3",
        "files_sha256": first}
    (site / "acme_prov" / "__pycache__").mkdir()
    (site / "acme_prov" / "__pycache__" / "steer.cpython-311.pyc").write_bytes(b"compiled")
    assert files_sha256(dist) == first  # byte-code caches are not the plugin's code
    (site / "acme_prov" / "steer.py").write_text("class Steer:\n    level = 2\n", encoding="utf-8")
    assert files_sha256(dist) != first


def test_only_selected_third_party_interventions_are_recorded(site):
    write_dist(site, "acme-prov", {"acme_prov_iv": "class Steer:\n    pass\n"},
               "[gui_interventions]\nacme_prov_steer = acme_prov_iv:Steer\n")
    assert intervention_plugins(["blind", "crop"]) == []  # built-ins are covered by the gui_eval version
    [rec] = intervention_plugins(["blind", "acme_prov_steer"])
    assert (rec["kind"], rec["entry_point"], rec["distribution"], rec["version"]) == ("intervention", "acme_prov_steer",
                                                                                       "acme-prov", "0.1")
    assert merged([rec], [dict(rec)]) == [rec]
