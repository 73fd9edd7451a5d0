"""The vocabulary stage."""
