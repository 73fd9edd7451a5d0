"""The sanitize stage."""
