"""Simulator steps per second for the SPHINX world, with and without observation rendering."""

from __future__ import annotations

import time

from gui_tasks.sphinx.observation import full_text, set_of_mark
from gui_tasks.sphinx.toggle_tasks import oracle_actions, table5_tasks
from gui_tasks.sphinx.simulator import Simulator


def main(rounds: int = 3) -> None:
    plans = [(t, oracle_actions(t)) for t in table5_tasks()]
    for label, render in (("state+tree only", None), ("+ accessibility text", "text"), ("+ screenshot", "png"), ("+ Set-of-Mark", "som")):
        steps, t0 = 0, time.perf_counter()
        for _ in range(rounds):
            for task, plan in plans:
                sim = Simulator()
                obs = sim.reset(task.initial)
                for a in plan:
                    obs = sim.act(a)
                    steps += 1
                    if render == "text":
                        full_text(obs.hierarchy)
                    elif render == "png":
                        obs.screenshot()
                    elif render == "som":
                        set_of_mark(obs.screenshot(), obs.hierarchy)
        dt = time.perf_counter() - t0
        print(f"{label:24s} {steps:5d} steps  {steps / dt:10.1f} steps/s")


if __name__ == "__main__":
    main()
