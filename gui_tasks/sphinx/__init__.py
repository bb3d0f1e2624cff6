"""SPHINX multi-dimensional UI navigation (seed sections 3-5): evaluators, observation modes, static
capability tasks, the simulator and devices, end-to-end navigation and the reports."""
