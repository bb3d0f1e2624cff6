"""``gui-eval verify`` re-applies what the run recorded (--gen_kwargs, seeds) and explains a difference: where the
responses part, with the bytes escaped, and which recorded setting this installation could not re-apply."""

from __future__ import annotations

from gui_tasks.submit.leaderboard import _dist_version
from gui_tasks.submit.verify import _generation_kwargs, first_difference, setting_differences


def test_two_prefixes_that_look_alike_are_shown_escaped_with_the_position():
    assert first_difference("|is a\u200bcat", "|is a cat") == (
        'first difference at character 5 (word 1), after "|is a": logged "\\u200bcat" (9 chars), now " cat" (9 chars)')
    assert first_difference("hello world foo", "hello world bar") == (
        'first difference at character 12 (word 2), after "hello world ": logged "foo" (15 chars), now "bar" (15 chars)')
    assert first_difference("abc", "abcd").startswith('first difference at character 3 (word 0), after "abc": logged ""')


def test_the_recorded_generation_settings_become_simple_evaluate_arguments():
    assert _generation_kwargs({"gen_kwargs": "max_new_tokens=4", "seeds": [0, 1234, 7, None]}) == {
        "gen_kwargs": "max_new_tokens=4", "random_seed": 0, "numpy_random_seed": 1234, "torch_random_seed": 7}
    assert _generation_kwargs(None) == {"gen_kwargs": None}


def test_settings_that_could_not_be_reapplied_are_named():
    sub = {"versions": {"lmms_eval": "0.0.1", "gui_eval": _dist_version("gui-eval"), "lmms_eval_git": "main@abc"}}
    assert setting_differences(sub) == [
        "the file records no --gen_kwargs or seeds (older schema): the re-run used the task defaults",
        f"lmms_eval 0.0.1 in the file, {_dist_version('lmms_eval')} here"]
    assert setting_differences({**sub, "generation": {}, "versions": {}}) == []
