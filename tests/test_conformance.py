"""Per family, every output of the conformance corpus (written from the family's public docs and code) parses to
the action its entry expects; every entry names its source."""

from __future__ import annotations

import pytest

from gui_core.conformance import FAMILIES, check, load

ENTRIES = [(fam, e) for fam in FAMILIES for e in load(fam)]


@pytest.mark.parametrize("family, entry", ENTRIES, ids=[e["id"] for _, e in ENTRIES])
def test_corpus_entry_parses_as_its_source_says(family, entry):
    ok, got = check(entry, family)
    assert ok, f"{entry['output']!r}: expected {entry['expected']}, got {got}"


@pytest.mark.parametrize("family", FAMILIES)
def test_corpus_covers_each_family_with_sources_and_format_errors(family):
    entries = load(family)
    assert len(entries) >= 10 and all(e["source"].strip() for e in entries)
    assert any(e["expected"]["status"] == "malformed" for e in entries)  # malformed outputs are classified, not raised
    assert len({e["output"] + str(e.get("options")) for e in entries}) == len(entries)
