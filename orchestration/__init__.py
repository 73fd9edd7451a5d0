"""assay: orchestration."""
