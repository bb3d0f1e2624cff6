"""Built-in prompt interventions: add an instruction before or after the task's prompt."""

from __future__ import annotations

from gui_interventions import hookimpl
from gui_interventions.payloads import RequestContext


class PromptAffix:
    """``interventions=prompt_affix,prompt_affix.suffix=...``: wraps every prompt in fixed text.

    Useful on its own for prompt-sensitivity studies (e.g. "Think in English."), and the
    base of the StaR-style prompting baselines.
    """

    def __init__(self, prefix: str = "", suffix: str = "", separator: str = "\n") -> None:
        if not prefix and not suffix:
            raise ValueError("prompt_affix needs prefix= or suffix=")
        self.prefix, self.suffix, self.separator = str(prefix), str(suffix), str(separator)

    @hookimpl
    def gui_intervention_request(self, request: RequestContext) -> RequestContext:
        parts = [p for p in (self.prefix, request.text, self.suffix) if p]
        return request.with_(text=self.separator.join(parts), metadata={**request.metadata, "prompt_affix": True})
