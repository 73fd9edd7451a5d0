"""The small core every reader and stage shares: the vocabulary (model), the error hierarchy, the row
records of the walk and extract tables, the reader interface, the reader table and the versions."""
