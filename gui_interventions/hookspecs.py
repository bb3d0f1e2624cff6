"""Hook specifications: the three stages an intervention can act on.

Hooks are called with keyword arguments; an implementation may accept fewer arguments
than the spec, so specs can grow. The backend calls each stage for the selected plugins
in selection order (``interventions=a+b``: a, then b).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import pluggy

from gui_interventions.payloads import ForwardContext, RequestContext, ResponseContext

hookspec = pluggy.HookspecMarker("gui_interventions")


# --- before inference -------------------------------------------------------------


@hookspec
def gui_intervention_request(request: RequestContext) -> RequestContext | None:
    """Rewrite a request (prompt text, images, metadata) before it is batched.

    Return a new ``RequestContext`` (``request.with_(...)``) or None to leave it unchanged.
    """


# --- inside the forward pass -----------------------------------------------------------


@hookspec
def gui_intervention_forward(forward: ForwardContext) -> AbstractContextManager | None:
    """Return a context manager that is active while the batch is generated, or None.

    Use it to attach forward hooks (e.g. residual-stream steering); its ``__exit__``
    must remove them. The backend enters it right before ``generate`` and always
    exits it, also when generation raises.
    """


# --- after inference -----------------------------------------------------------------


@hookspec
def gui_intervention_response(response: ResponseContext) -> str | None:
    """Rewrite a response, or run the model again through ``response.rerun``.

    Return the new response text, or None to keep it.
    """
