"""The e-mail readers: ``.eml`` (MIME) and Outlook ``.msg`` (OLE2 compound files)."""
