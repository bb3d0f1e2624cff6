"""One typed action space for GUI agents (StaR appendix A.2, Table 3, plus LONG_PRESS and IMPOSSIBLE; the
desktop actions of GUI Knowledge Bench appendix A.3: double click, right click, drag, hotkey).

Points carry their coordinate frame (``gui_core.coords``); nothing is inferred from
the size of the numbers. ``to_call`` / ``from_call`` read and write the call syntax of the
GUI Knowledge Bench action space (``click(point='x1 y1')``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from gui_core.coords import FRAMES, MAX_COORD, MAX_NUMBER_CHARS, Frame, Geometry, convert

ActionType = Literal["CLICK", "LONG_PRESS", "TYPE", "SCROLL", "OPENAPP", "PRESS_BACK", "PRESS_HOME", "PRESS_ENTER",
                     "PRESS_RECENT", "WAIT", "COMPLETE", "IMPOSSIBLE", "DOUBLE_CLICK", "RIGHT_CLICK", "DRAG", "HOTKEY"]
ACTION_TYPES: tuple[str, ...] = ("CLICK", "LONG_PRESS", "TYPE", "SCROLL", "OPENAPP", "PRESS_BACK", "PRESS_HOME",
                                 "PRESS_ENTER", "PRESS_RECENT", "WAIT", "COMPLETE", "IMPOSSIBLE", "DOUBLE_CLICK", "RIGHT_CLICK", "DRAG",
                                 "HOTKEY")
Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]
DIRECTIONS: tuple[str, ...] = ("UP", "DOWN", "LEFT", "RIGHT")
POINT_ACTIONS = frozenset({"CLICK", "LONG_PRESS", "DOUBLE_CLICK", "RIGHT_CLICK", "DRAG"})  # DRAG: its start point
OPTIONAL_POINT_ACTIONS = frozenset({"SCROLL"})  # GUI Knowledge Bench scrolls at a point; StaR scrolls do not
TEXT_ACTIONS = frozenset({"TYPE", "OPENAPP", "HOTKEY"})  # HOTKEY: keys separated by spaces ("ctrl c")

# GUI Knowledge Bench unified action space (seed section 3.4 and appendix A.3): seven desktop, four mobile types,
# named as in its call syntax, in the order of the appendix's action-space text.
DESKTOP_CALLS: tuple[str, ...] = ("click", "left_double", "right_single", "drag", "hotkey", "type", "scroll")
MOBILE_CALLS: tuple[str, ...] = ("click", "long_press", "type", "scroll")
CALL_TYPES: dict[str, str] = {"click": "CLICK", "left_double": "DOUBLE_CLICK", "right_single": "RIGHT_CLICK", "drag": "DRAG",
                              "hotkey": "HOTKEY", "type": "TYPE", "scroll": "SCROLL", "long_press": "LONG_PRESS"}
TYPE_CALLS: dict[str, str] = {v: k for k, v in CALL_TYPES.items()}


@dataclass(frozen=True)
class Action:
    """A parsed or ground-truth action; fields beyond ``type`` are set exactly when the type needs them."""

    type: ActionType
    point: tuple[float, float] | None = None  # CLICK, LONG_PRESS
    frame: Frame | None = None  # the frame ``point`` is expressed in
    text: str | None = None  # TYPE content, OPENAPP app name
    direction: Direction | None = None  # SCROLL
    end_point: tuple[float, float] | None = None  # DRAG, in the same frame as ``point``

    def __post_init__(self) -> None:
        if self.type not in ACTION_TYPES:
            raise ValueError(f"unknown action type {self.type!r}; known: {', '.join(ACTION_TYPES)}")
        if (self.point is None and self.type in POINT_ACTIONS) or (
                self.point is not None and self.type not in POINT_ACTIONS | OPTIONAL_POINT_ACTIONS):
            raise ValueError(f"{self.type} {'needs' if self.type in POINT_ACTIONS else 'takes no'} point")
        if (self.end_point is not None) != (self.type == "DRAG"):
            raise ValueError(f"{self.type} {'needs' if self.type == 'DRAG' else 'takes no'} end_point")
        if self.point is not None and self.frame not in FRAMES:
            raise ValueError(f"{self.type} point needs a coordinate frame, one of {', '.join(FRAMES)}")
        if (self.text is not None) != (self.type in TEXT_ACTIONS):
            raise ValueError(f"{self.type} {'needs' if self.type in TEXT_ACTIONS else 'takes no'} text")
        if (self.direction is not None) != (self.type == "SCROLL") or (self.direction is not None and self.direction not in DIRECTIONS):
            raise ValueError(f"{self.type} direction must be one of {DIRECTIONS} for SCROLL and absent otherwise")

    def point_in(self, frame: Frame, geometry: Geometry) -> tuple[float, float]:
        """The action's point converted to ``frame``."""
        if self.point is None or self.frame is None:
            raise ValueError(f"{self.type} has no point")
        return convert(self.point, self.frame, frame, geometry)


_NUM = r"-?\d+(?:\.\d+)?"


def _xy(value: str) -> tuple[float, float]:
    nums = re.findall(_NUM, value)
    if len(nums) != 2:
        raise ValueError(f"expected two numbers 'x y', got {value!r}")
    if any(len(n) > MAX_NUMBER_CHARS or abs(float(n)) > MAX_COORD for n in nums):
        raise ValueError(f"coordinates of {value[:80]!r} are beyond the plausible range (|x| <= {MAX_COORD:g})")
    return float(nums[0]), float(nums[1])


def _fmt_xy(p: tuple[float, float]) -> str:
    return " ".join(str(int(v)) if float(v).is_integer() else f"{v:g}" for v in p)


def to_call(action: Action) -> str:
    """The action in GUI Knowledge Bench call syntax, e.g. ``click(point='120 480')`` (point in its own frame)."""
    name = TYPE_CALLS.get(action.type)
    if name is None:
        raise ValueError(f"{action.type} is not in the GUI Knowledge Bench action space")
    if action.type == "DRAG":
        return f"drag(start_point='{_fmt_xy(action.point)}', end_point='{_fmt_xy(action.end_point)}')"
    if action.type == "HOTKEY":
        return f"hotkey(key='{action.text}')"
    if action.type == "TYPE":
        return f"type(content='{action.text}')"
    if action.type == "SCROLL":
        where = f"point='{_fmt_xy(action.point)}', " if action.point is not None else ""
        return f"scroll({where}direction='{action.direction.lower()}')"
    return f"{name}(point='{_fmt_xy(action.point)}')"


def from_call(text: str, frame: Frame) -> Action:
    """Parse one call of the GUI Knowledge Bench action space (data, not model output: raises ValueError)."""
    m = re.fullmatch(r"\s*([a-z_]+)\s*\((.*)\)\s*", str(text), flags=re.S)
    if not m or m.group(1) not in CALL_TYPES:
        raise ValueError(f"not a GUI Knowledge Bench action call: {text!r}")
    name, body = m.group(1), m.group(2)
    args = {k: v for k, _, v in re.findall(r"(\w+)\s*=\s*(['\"])(.*?)\2", body, flags=re.S)}
    kind = CALL_TYPES[name]
    try:
        if kind == "DRAG":
            return Action("DRAG", point=_xy(args["start_point"]), end_point=_xy(args["end_point"]), frame=frame)
        if kind in ("TYPE", "HOTKEY"):
            return Action(kind, text=args["content" if kind == "TYPE" else "key"])
        if kind == "SCROLL":
            point = _xy(args["point"]) if "point" in args else None
            return Action("SCROLL", point=point, frame=frame if point else None, direction=args["direction"].strip().upper())
        return Action(kind, point=_xy(args["point"]), frame=frame)
    except KeyError as exc:
        raise ValueError(f"{name} call without its {exc.args[0]!r} argument: {text!r}") from None
