"""The walk stage."""
