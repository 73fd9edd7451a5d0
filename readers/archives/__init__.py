"""Zip archives: the archive reader and the bounded zip reader the office and mail readers share."""
