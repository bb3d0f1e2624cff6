"""The shared floor of gui-eval: what every benchmark, backend and plugin shares (actions, coordinate frames, answer
readers and action parsers, letters, languages, the model family records and registries). Imports nothing of ours."""
