"""Versions of the signal code: part of every reader chain's signature, so that rows carried over to a new
extractor version were computed by the same signal code."""

SIGNALS_VERSION = "1"
