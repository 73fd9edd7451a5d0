"""``assay eval``: the shared corpus's real documents as the referee of every change.

``sets.py`` runs assay over each labelled set as a user would; ``figures.py`` measures the homes against
the truths (text, facts, tables, and the runs' own robustness figures); ``baseline.py`` holds the committed
figures and the gate; ``command.py`` tells the story and prints it.
"""
