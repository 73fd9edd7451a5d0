"""The HTML readers, tried in order: the marked main region, trafilatura's main content, the whole page."""
