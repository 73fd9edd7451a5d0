"""Plain text, and the decision of a text document's encoding."""
