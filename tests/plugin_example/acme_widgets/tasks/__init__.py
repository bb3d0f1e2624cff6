"""The task YAMLs and their data (this folder is what lmms-eval indexes; relative paths in documents start here)."""
