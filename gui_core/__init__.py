"""The bottom floor every benchmark shares; imports nothing from gui_models, gui_metrics, gui_interventions, gui_tasks."""
