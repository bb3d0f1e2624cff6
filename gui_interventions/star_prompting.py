"""StaR's training-free prompting baselines (Table 7; prompts of appendix C, Figures 11-13) as interventions.

Each appends its supplementary text to the agent's own prompt ("we append additional prompt
to the original prompt", section A.1 baselines (i)-(iii)). The ground-truth variants read the
toggle's current state from the task document.
"""

from __future__ import annotations

from typing import Any, Mapping

from gui_interventions import hookimpl
from gui_interventions.payloads import RequestContext
from gui_interventions.prompting import PromptAffix

# Figure 11: supplementary prompt for state-focused prompt engineering.
STATE_FOCUSED = """Supplementary Notes for State Reasoning
When deciding the next action, always infer the **current state** of the interface from the latest screenshot.
- Identify whether the current screen already satisfies the user's instruction. If so, avoid redundant actions.
- When interacting with elements that represent **binary or toggle states** (e.g., switches, checkboxes, toggles, radio buttons):
 - **Compare** the current toggle state (ON/OFF, enabled/disabled, checked/unchecked) visible in the GUI with the **user's desired state** as specified in the instruction.
 - **Only click or toggle** the element **if** the current state does **not** match the user's desired state.
 - If the current state already matches the target state, **do nothing** and continue reasoning for the next relevant step.
- When multiple toggles or similar controls exist, carefully identify which one matches the user instruction before performing an action.
- If the toggle state is visually ambiguous, reason conservatively and take a minimal action (e.g., wait or inspect further) before interacting.
Always ensure actions are **state-aware**, **goal-directed**, and avoid unnecessary state changes."""

# Figure 12: supplementary prompt for StaR-style prompting.
STAR_STYLE = """Supplementary Notes for Toggle State Reasoning
- This reasoning procedure applies **only** when the user instruction explicitly involves a GUI toggle, switch, or checkbox (i.e., an element with ON/OFF or checked/unchecked states).
For all other types of actions (e.g., button clicks, typing, scrolling), follow the normal reasoning flow without this comparison logic.
- When the instruction targets a toggle element:
 - First, **infer the current state** of the toggle from the screenshot.
 - Then, **compare** it with the **desired state** implied by the user goal.
 - If multiple toggles or similar controls exist, carefully identify which one matches the user instruction before acting.
- Always ensure actions are **state-aware**, **goal-directed**, and avoid unnecessary toggles.
- Follow this explicit reasoning pattern when handling toggle-related instructions:
- Example reasoning template:
...
According to the screenshot, the switch `{feature}` is currently `{before_state}`, while according to the goal, it should be `{desired_state}`.
...
- If `{before_state}` == `{desired_state}`:
...
No toggle needed. Executing: `set the task as completed`.
...
- Else:
...
Switch needs to be toggled. Executing: `click on the {feature}`.
..."""

# Figure 13: ground-truth toggle state note.
GT_STATE = "Note\nThe target toggle is currently {state} on the screen."


class StateFocused(PromptAffix):
    """``interventions=star_state_focused``: Table 7 baseline (i)."""

    def __init__(self) -> None:
        super().__init__(suffix=STATE_FOCUSED)


class StarStyle(PromptAffix):
    """``interventions=star_style``: Table 7 baseline (ii)."""

    def __init__(self) -> None:
        super().__init__(suffix=STAR_STYLE)


def _lookup(doc: Mapping[str, Any] | None, path: str) -> Any:
    value: Any = doc
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise ValueError(f"ground-truth state prompting needs document field {path!r}; the task's documents lack it")
        value = value[part]
    return value


def state_word(value: Any) -> str:
    """The toggle state as the prompt says it: booleans and 0/1 become "on"/"off"."""
    if isinstance(value, bool) or value in (0, 1):
        return "on" if value else "off"
    text = str(value).strip().lower()
    return {"true": "on", "false": "off", "1": "on", "0": "off", "checked": "on", "unchecked": "off"}.get(text, text)


class GroundTruthState:
    """``interventions=star_gt_state``: Table 7 baseline (iii), the upper bound of a perfect state annotator.

    ``field`` is a dotted path into the document (official StaR rows: ``annotation.state_before_action``);
    ``star_style=True`` adds the StaR-style notes too (the Table 7 "GT state + StaR-style" row).
    """

    def __init__(self, field: str = "annotation.state_before_action", star_style: bool | str = False) -> None:
        self.field = str(field)
        self.star_style = star_style if isinstance(star_style, bool) else str(star_style).lower() in {"1", "true", "yes"}

    @hookimpl
    def gui_intervention_request(self, request: RequestContext) -> RequestContext:
        note = GT_STATE.format(state=state_word(_lookup(request.doc, self.field)))
        parts = [request.text, note] + ([STAR_STYLE] if self.star_style else [])
        return request.with_(text="\n".join(parts), metadata={**request.metadata, "star_gt_state": True})


class GroundTruthStateStarStyle(GroundTruthState):
    """``interventions=star_gt_state_star``: ground-truth state plus StaR-style prompting."""

    def __init__(self, field: str = "annotation.state_before_action") -> None:
        super().__init__(field=field, star_style=True)
