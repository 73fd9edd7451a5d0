"""The engine: one document's reader chain (dispatch), run in worker processes under budgets (isolation)."""
