"""SPHINX multi-dimensional UI navigation (seed sections 3-5): trajectory evaluators first."""
