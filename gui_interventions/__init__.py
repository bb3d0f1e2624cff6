"""Inference-time interventions as pluggy plugins (project and entry-point group ``gui_interventions``).

A run selects interventions by name (``--model_args ...,interventions=a+b``); only the
selected ones are instantiated and registered, in that order.
"""

import pluggy

PROJECT = "gui_interventions"
hookimpl = pluggy.HookimplMarker(PROJECT)

from gui_interventions.payloads import ForwardContext, RequestContext, ResponseContext  # noqa: E402
from gui_interventions.manager import InterventionRun, available, build_run  # noqa: E402

__all__ = ["PROJECT", "hookimpl", "RequestContext", "ForwardContext", "ResponseContext", "InterventionRun", "available", "build_run"]
