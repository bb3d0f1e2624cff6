"""One typed action space for mobile GUI agents (StaR appendix A.2, Table 3, plus LONG_PRESS and IMPOSSIBLE).

Points carry their coordinate frame (``gui_models.coords``); nothing is inferred from
the size of the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gui_models.coords import FRAMES, Frame, Geometry, convert

ActionType = Literal["CLICK", "LONG_PRESS", "TYPE", "SCROLL", "OPENAPP", "PRESS_BACK", "PRESS_HOME", "PRESS_ENTER",
                     "WAIT", "COMPLETE", "IMPOSSIBLE"]
ACTION_TYPES: tuple[str, ...] = ("CLICK", "LONG_PRESS", "TYPE", "SCROLL", "OPENAPP", "PRESS_BACK", "PRESS_HOME",
                                 "PRESS_ENTER", "WAIT", "COMPLETE", "IMPOSSIBLE")
Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]
DIRECTIONS: tuple[str, ...] = ("UP", "DOWN", "LEFT", "RIGHT")
POINT_ACTIONS = frozenset({"CLICK", "LONG_PRESS"})
TEXT_ACTIONS = frozenset({"TYPE", "OPENAPP"})


@dataclass(frozen=True)
class Action:
    """A parsed or ground-truth action; fields beyond ``type`` are set exactly when the type needs them."""

    type: ActionType
    point: tuple[float, float] | None = None  # CLICK, LONG_PRESS
    frame: Frame | None = None  # the frame ``point`` is expressed in
    text: str | None = None  # TYPE content, OPENAPP app name
    direction: Direction | None = None  # SCROLL

    def __post_init__(self) -> None:
        if self.type not in ACTION_TYPES:
            raise ValueError(f"unknown action type {self.type!r}; known: {', '.join(ACTION_TYPES)}")
        if (self.point is not None) != (self.type in POINT_ACTIONS):
            raise ValueError(f"{self.type} {'needs' if self.type in POINT_ACTIONS else 'takes no'} point")
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
