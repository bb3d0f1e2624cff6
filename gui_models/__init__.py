"""Model side of the harness: the gui_hf lmms-eval backend and the tiny-checkpoint builder."""
