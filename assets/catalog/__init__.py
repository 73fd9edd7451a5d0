"""The catalog stage."""
