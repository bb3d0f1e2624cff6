"""GUI-XLI (seed section 4-6): memory building, layer/strength search, analysis plots and with/without reports."""
