"""``gui-eval view``: a static, offline HTML viewer of lmms-eval runs (run page, sample list, overlays, diffs)."""
