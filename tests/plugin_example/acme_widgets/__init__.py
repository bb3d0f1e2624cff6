"""acme-widgets: widget colour questions for gui-eval (the worked example of docs/plugins.md)."""
