"""UI-TARS's own history (StaR appendix A.5): each step's history is the model's own previous predictions.

StaR A.5: "For UI-TARS, which adopts multi screenshot history modeling, we evaluate each episode independently, adopting
the previously predicted four steps within the same episode as the historical input." Its released evaluator
(ZrW00/StaR ``evaluator/evaluators.py``) does it so:

- ``predChunk`` runs an episode's records in step order; ``updateHistory4UITARS`` appends, after each step, the step's
  screenshot (a user turn) and ``f"Thought: {predThought}\\nAction: {predAction}"`` (an assistant turn);
- ``preprocessMessage4UITARS`` sends the prompt, then ``history[-8:]`` (the last four steps: screenshot and answer),
  then the current screenshot;
- ``predThought`` / ``predAction`` come from ``extractUITARSPrediction`` (``evaluator/utils.py``): the text after
  ``Thought: `` up to the next ``Action: `` (None when absent), and everything after the last ``Action: ``; an answer
  without ``Action:`` makes ``generatePrediction`` return ``""`` and ``"NoneAction"``. In the low setting a missing
  thought is replaced by the label's thought (``generatePrediction``), here the step's low-level instruction.

lmms-eval's request types carry one user turn (text and images), so the four answers are written as the prompt's
``## Action History`` lines, each ``Step <n>: Thought: ...\\nAction: ...`` as the model wrote it, and their four
screenshots precede the current one: the layout of the ground-truth history (``history: ground_truth``) with the
model's answers in place of the gold actions. Recorded as ``history_layout: single_turn``.

An episode is one document; lmms-eval runs its steps in order as rounds (``generate_until_multi_round``, or its own
agentic loop on backends without multi-round generation), and every step is scored by the task's judge.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

HISTORY_PROTOCOLS = ("ground_truth", "own")
HISTORY_STEPS = 4  # StaR evaluator: history[-8:] = four (screenshot, answer) pairs
HISTORY_LAYOUT = "single_turn"
# families StaR gives their own history: UI-TARS (evaluators.py builds it only for agentType "uitars"; its "gemini" and
# "gpt" agents, which borrow the UI-TARS prompt like our alias "proprietary", get none) and the UI-TARS-1.5 checkpoints


def own_history_families() -> list[str]:
    """The families whose records say their own answers are replayed as history (``AgentProtocol.own_history``)."""
    from gui_core.agents import agent_families

    return [name for name, f in agent_families().items() if f.own_history]


# Most steps one episode may have: lmms-eval's agentic loop stops at max_agentic_steps without telling the task.
MAX_EPISODE_STEPS = 128

def _until_action(text: str, start: int) -> str | None:
    """``(.+?)(?=\\s*Action: |$)`` (DOTALL) from ``start``, stripped, found with ``str.find`` (linear): the text up to the
    first ``Action: `` at least one character on, else to the end; None when nothing follows ``start``."""
    if start >= len(text):
        return None
    a = text.find("Action: ", start + 1)
    return text[start:a if a >= 0 else len(text)].strip()


def thought_of(text: str) -> str | None:
    """``extractUITARSPrediction``'s thought: after ``Thought: `` (or ``Action_Summary: ``; after ``Reflection: ... ``
    its ``Action_Summary: ``) up to the next ``Action: ``; None when the pattern finds none."""
    if text.startswith("Reflection:"):
        i = text.find("Reflection: ")
        j = text.find("Action_Summary: ", i + len("Reflection: ") + 1) if i >= 0 else -1
        return _until_action(text, j + len("Action_Summary: ")) if j >= 0 else None
    label = "Action_Summary: " if text.startswith("Action_Summary:") else "Thought: "
    i = text.find(label)
    return _until_action(text, i + len(label)) if i >= 0 else None


# translateUITARS2Atlas (evaluator/actions.py) knows actions that start so; any other raises NotImplementedError
TRANSLATABLE = ("click", "finished", "long_press", "press_back", "press_home", "scroll", "open_app", "wait", "type",
                "enter", "press_enter", "drag", "noneaction")
NONE_ACTION = "Thought: \nAction: NoneAction"


def history_entry(text: str, low_level: str | None = None) -> str:
    """One step's history text as StaR's ``updateHistory4UITARS`` writes it from the model's answer ``text``: where
    ``generatePrediction`` fails (no ``Action:``, so ``extractUITARSPrediction`` asserts; or an action
    ``translateUITARS2Atlas`` does not know, such as ``hotkey``, ``left_double``, ``call_user``, ``Click(``), it
    returns ``""`` and ``"NoneAction"``, and the history says ``Thought: \nAction: NoneAction``."""
    text = str(text)
    if "Action:" not in text or not text.split("Action: ")[-1].startswith(TRANSLATABLE):
        return NONE_ACTION
    thought = thought_of(text)
    if thought is None and low_level:  # low setting: the label's thought (here the step's instruction)
        thought = low_level
    return f"Thought: {thought}\nAction: {text.split('Action: ')[-1]}"


def episodes(steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Step documents grouped into one document per episode (steps in order), in first-seen episode order."""
    order: list[tuple[str, str]] = []
    grouped: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for s in steps:
        key = (str(s["dataset"]), str(s["episode_id"]))
        if key not in grouped:
            grouped[key] = []
            order.append(key)
        grouped[key].append(s)
    out = []
    for key in order:
        ep = sorted(grouped[key], key=lambda s: int(s["step"]))
        first = ep[0]
        out.append({"id": f"{key[0]}-{key[1]}", "dataset": key[0], "episode_id": key[1], "n_steps": len(ep),
                    "history": "own", "agent_family": first["agent_family"], "setting": first["setting"],
                    "lang": first.get("lang", "en"), "judge": first.get("judge", ""),
                    "steps": json.dumps([dict(s) for s in ep], ensure_ascii=False, sort_keys=True)})
    return out


def steps_of(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The step documents of an episode document."""
    return json.loads(doc["steps"])


def history_lines(steps: Sequence[Mapping[str, Any]], outputs: Sequence[str], k: int) -> tuple[list[str], list[str]]:
    """``(lines, screenshots)`` of step ``k``'s history: the last ``HISTORY_STEPS`` earlier steps, each the model's own
    answer (``history_entry``) under its step number, and those steps' screenshots in the same order."""
    first = max(0, k - HISTORY_STEPS)
    lines, images = [], []
    for j in range(first, k):
        low = steps[j]["low_level"] if steps[j]["setting"] == "low" and steps[j]["low_level"] else None
        lines.append(f"Step {j + 1}: {history_entry(outputs[j] if j < len(outputs) else '', low)}")
        images.append(steps[j]["images"][-1])
    return lines, images
