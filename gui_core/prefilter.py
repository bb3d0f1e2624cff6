"""Fast scanning for case-insensitive word alternations, with the same matches.

``re`` tries every alternative of ``(?i)(?:answer|final answer|...)`` at every position of a long model output;
a lookahead on the characters a match can start with (read off the pattern by the stdlib's own parser, matched
with the pattern's own flags) rejects most positions in one step. The lookahead is implied by the pattern, so the
matches are exactly those of the plain pattern (``tests/test_parser_prefilter.py``).
"""

from __future__ import annotations

import re


def first_chars(pattern: str, flags: int = 0) -> str | None:
    """A character class of every character a match of ``pattern`` can start with; None when that is not a
    finite set of literals (a pattern that may start with a class, a wildcard or match the empty string)."""
    from re import _constants as c
    from re import _parser

    def firsts(items) -> set[int] | None:
        for op, av in items:
            if op in (c.ASSERT, c.ASSERT_NOT, c.AT):  # zero width: the next item consumes the first character
                continue
            if op is c.LITERAL:
                return {av}
            if op is c.SUBPATTERN:
                return firsts(av[-1])
            if op is c.BRANCH:
                out: set[int] = set()
                for branch in av[1]:
                    got = firsts(branch)
                    if got is None:
                        return None
                    out |= got
                return out
            if op is c.IN and all(o is c.LITERAL for o, _ in av):
                return {v for _, v in av}
            return None
        return None  # the pattern can match the empty string

    chars = firsts(_parser.parse(pattern, flags))
    return None if not chars else "[" + "".join(re.escape(chr(ch)) for ch in sorted(chars)) + "]"


def compile_prefiltered(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, led by a lookahead on its possible first characters when there is one."""
    first = first_chars(pattern, flags)
    return re.compile(f"(?={first})(?:{pattern})" if first else pattern, flags)
