"""Every parser of model output in the project, by name, and the adversarial texts they must read in linear time.

Model outputs are untrusted: a parser that backtracks (nested or overlapping unbounded quantifiers) can hang an
evaluation on one hostile answer. ``tests/test_parser_speed.py`` feeds each parser ``adversarial_inputs`` of
100k characters; ``benchmarks/parser_speed.py`` prints the worst time per parser. A new parser of model output
belongs in ``PARSERS`` here.
"""

from __future__ import annotations

from typing import Any, Callable

from gui_core.action_parsers import OFFICIAL_READINGS, STAR_OFFICIAL_READINGS
from gui_core.action_parsers import PARSERS as _ACTION_REGISTRY
from gui_core.family import agents_of, default_agent, grounding_families


def _action(family: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_core.action_parsers import parse_action

        return parse_action(text, family)

    return run


def _reading(family: str, reading: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_core.action_parsers import parse_action

        return parse_action(text, family, reading=reading)  # type: ignore[arg-type]

    return run


def _own_history_entry(text: str) -> Any:
    from gui_tasks.star.own_history import history_entry

    return history_entry(text)


def _point(family: str, strictness: str = "official") -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_core.grounding import parse_point

        return parse_point(text, family, strictness)

    return run


# every grounding family, read from the family registry (gui_core/families.py)
GROUNDING_FAMILIES = tuple(f.name for f in grounding_families())
# StaR's agent parse (the family's parser, its point tagged with the agent frame): the default agent, and the agents
# whose frame under the agent prompt is not the frame of their grounding answers (GUI-Owl: original pixels)
STAR_AGENTS = (default_agent("star").name,
               *(f.name for f in agents_of("star") if f.agent is not None and f.agent.frame != f.frame))


def _star_readers() -> tuple[str, ...]:
    """The families whose answers StaR's evaluator reads with its own extractor (the star judge's record)."""
    from gui_tasks.star.judges import STAR_READERS

    return tuple(STAR_READERS)
ACTION_PARSERS = tuple(_ACTION_REGISTRY)  # every registered action parser (gui_core.action_parsers.register_parser)


def _star(fam: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_core.agents import parse

        return parse(text, fam)

    return run


def _star_official(fam: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_tasks.star import judges, star_official

        try:
            atlas = judges.STAR_READERS[fam](text)
        except star_official.Raised:  # the official code raises here; the judge gives (no, no)
            return None
        try:
            return star_official.star_kind(atlas)
        except star_official.Raised:
            return None

    return run


def _mpr(text: str) -> Any:
    from gui_core.letters import extract_letter

    return extract_letter(text, ["Settings", "Wi-Fi", "Bluetooth", "Display"])


def _gkb(qtype: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_tasks.knowledge.answer import parse_answer

        return parse_answer(text, qtype, options=["Settings", "Wi-Fi", "Bluetooth", "Display"])

    return run


def _sphinx(name: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_tasks.sphinx import actions

        return getattr(actions, name)(text)

    return run


def _sphinx_static(kind: str) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_tasks.sphinx import static_tasks

        if kind == "completion":
            return static_tasks.score_completion({"task": "t", "group": "g", "answer": "stop"}, text)
        return static_tasks.score_knowledge({"capability": "c", "probe": kind, "qid": "q", "answer": "A"}, text)

    return run


def _sphinx_official(name: str, **kwargs: Any) -> Callable[[str], Any]:
    def run(text: str) -> Any:
        from gui_tasks.sphinx import official_parse

        return getattr(official_parse, name)(text, **kwargs)

    return run


def _key_numbers(text: str) -> Any:
    from gui_core.logit_capture import coordinate_numbers

    return coordinate_numbers(text, (0.5, 0.25))


def _gkb_call(text: str) -> Any:
    from gui_core.actions import from_call

    try:
        return from_call(text, "original_px")
    except ValueError:  # data, not model output: it raises on what it cannot read
        return None


PARSERS: dict[str, Callable[[str], Any]] = {
    **{f"action:{f}": _action(f) for f in ACTION_PARSERS},
    **{f"action:{f}:star_official": _reading(f, "star_official") for f in sorted(STAR_OFFICIAL_READINGS)},
    **{f"action:{f}:official": _reading(f, "official") for f in sorted(OFFICIAL_READINGS)},
    "star:own_history_entry": _own_history_entry,
    **{f"grounding:{f}": _point(f) for f in GROUNDING_FAMILIES},
    **{f"grounding:{f}:benchmark": _point(f, "benchmark") for f in GROUNDING_FAMILIES},
    **{f"grounding:{f}:lenient": _point(f, "lenient") for f in GROUNDING_FAMILIES},
    **{f"star:{f}": _star(f) for f in STAR_AGENTS},
    **{f"star_judge:{f}": _star_official(f) for f in _star_readers()},  # StaR's own grammar
    "mpr:extract_letter": _mpr,
    "gkb:multiple_choice": _gkb("multiple_choice"),
    "gkb:yes_or_no": _gkb("yes_or_no"),
    "gkb:from_call": _gkb_call,
    "sphinx:parse_action": _sphinx("parse_action"),
    "sphinx:repair_action": _sphinx("repair_action"),
    "sphinx:score_knowledge_mcq": _sphinx_static("mcq"),
    "sphinx:score_knowledge_tf": _sphinx_static("tf"),
    "sphinx:score_completion": _sphinx_static("completion"),
    "sphinx:official_action": _sphinx_official("parse_official_action", by_point=False),
    "sphinx:official_action_by_point": _sphinx_official("parse_official_action", by_point=True),
    "sphinx:official_completion": _sphinx_official("judge_completion_official"),
    "sphinx:parse_react_action": _sphinx_official("parse_react_action"),  # the official navigation agents
    "sphinx:parse_plan": _sphinx_official("parse_plan"),
    "pss:coordinate_numbers": _key_numbers,
}


def clear_caches() -> None:
    """Forget what parsers cache per text (``action_reading._json_spans``), so a timing measures a first reading."""
    from gui_core.action_reading import _json_spans

    _json_spans.cache_clear()


def adversarial_inputs(n: int) -> dict[str, str]:
    """Texts of about ``n`` characters built to trigger super-linear backtracking or scanning."""

    def rep(unit: str, prefix: str = "", suffix: str = "") -> str:
        return prefix + unit * max(1, (n - len(prefix) - len(suffix)) // len(unit)) + suffix

    return {
        "spaces": rep(" ", "x", "y"),
        "newlines": rep("\n", "Action:", "z"),
        "open_braces": rep("{"),
        "close_braces": rep("}"),
        "nested_json": rep('{"a":', "", "1"),
        "nested_valid_json": rep('{"a":', "") + "1" + "}" * (n // 5),
        "open_brackets": rep("["),
        "open_parens": rep("("),
        "digits": rep("1"),
        "digits_in_brackets": rep("1", "[", ""),
        "digit_pairs": rep("1,"),
        "point_pairs": rep("[1, 1] "),
        "openapp_spaces": rep(" ", "Action: OPENAPP x", "y"),
        "click_digits": rep("1", "Action: CLICK <point>[[", ""),
        "tars_box_digits": rep("1", "Action: click(start_box='(", ""),
        "tars_args_spaces": rep(" ", "Action: click(", "x"),
        "tars_type_unclosed": rep("a", "Action: type(content='", ""),
        "tars_calls": rep("click("),
        "labels": rep("Action: "),
        "words": rep("CLICK "),
        "tool_calls": rep("<tool_call>{"),
        "point_tags": rep("<point>1 "),
        "letters": rep("A "),
        "answer_markers": rep("answer: "),
        "boxed": rep("\\boxed{"),
        "answer_tags": rep("<answer>"),
        "quotes": rep('"'),
        "apostrophes": rep("'"),
        "backslashes": rep("\\"),
        "sphinx_swipe": rep(" ", "swipe [1] [", ""),
        "sphinx_text": rep("text [1] [", ""),
        "dots": rep("1."),
        "alt_spaces": rep(" ", "I think A or", "x"),
        "marker_spaces": rep(" ", "Answer:", "x"),
        "json_answer_spaces": rep(" ", '{"answer":', ""),
        "fence_spaces": rep(" ", "```json", ""),
        "yes_no_spaces": rep(" ", "answer is", "x"),
        "answer_pairs": rep('"answer": '),
        "sphinx_click_spaces": rep(" ", "click [", "x"),
        "sphinx_press_spaces": rep(" ", "press [", "x"),
        "fences": rep("```json "),
        "r1_pairs_unclosed": rep("{[1, 1] ", "<answer>", "</answer>"),
        "r1_pairs_spaces": rep(" ", "<answer>{[1, 1]", "</answer>"),
        "r1_input_text_unclosed": rep("'input_text': '", "<answer>", "</answer>"),
        "r1_action_words": rep("'action': 'x", "<answer>", "</answer>"),
        "tars_thoughts": rep("Thought: ", "", "Action: x"),
        "tars_reflections": rep("Reflection: ", "Reflection: ", "Action: x"),
    }


def hostile_numbers(digits: int = 5000) -> dict[str, str]:
    """Answers whose numbers are unbounded digit runs, non-finite or outside the plausible range, in every syntax the
    parsers read (each must be a format error or leave the number out, never raise nor yield it)."""
    big = "9" * digits
    texts: dict[str, str] = {}
    for label, number in (("digits", big), ("inf_digits", "9" * 400), ("far", "2000000"), ("far_negative", "-2000000"),
                          ("exponent", "1e999"), ("nan", "nan"), ("long_fraction", "0." + big)):
        texts.update({
            f"sphinx_click_{label}": f"click [{number},5]",
            f"sphinx_text_{label}": f"text [5,{number}] [hello]",
            f"sphinx_swipe_{label}": f"swipe [1,2] [3,{number}]",
            f"sphinx_official_{label}": f"```\nclick [{number},5]\n```",
            f"os_atlas_{label}": f"Action: CLICK <point>[[{number}, 5]]</point>",
            f"tars_{label}": f"Action: click(start_box='({number},5)')",
            f"tars_box_{label}": f"Action: click(start_box='<|box_start|>({number},5,7,9)<|box_end|>')",
            f"json_point_{label}": f'{{"POINT": [{number}, 5], "duration": {number}}}',
            f"point_2d_{label}": f'{{"point_2d": [{number}, 5]}}',
            f"tool_call_{label}": f'<tool_call>{{"name": "mobile_use", "arguments": {{"action": "click", '
                                  f'"coordinate": [{number}, 5]}}}}</tool_call>',
            f"pair_{label}": f"[{number}, 0.5]",
            f"paren_{label}": f"({number}, 0.5)",
            f"call_{label}": f"click(x={number}, y=5)",
            f"gkb_call_{label}": f"click(point='{number} 5')",
            f"gui_r1_{label}": f"<answer>[{{'action': 'click', 'point': [{number}, 5], 'input_text': 'no input text'}}]</answer>",
        })
    texts.update({
        "sphinx_click_index_digits": f"click [{big}]", "sphinx_click_index_4301": "click [" + "1" * 4301 + "]",
        "sphinx_text_index_digits": f"text [{big}] [hello]", "sphinx_swipe_index_digits": f"swipe [{big}] [up]",
        "sphinx_official_index_digits": f"```\nclick [{big}]\n```", "sphinx_repair_digits": f"I will click [{big}] now",
        "letter_after_digits": f"{big} Answer: B", "digits_only": big,
    })
    return texts
