"""The chunk stage."""
