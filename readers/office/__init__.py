"""The office readers: DOCX, XLSX, PPTX, OpenDocument and RTF."""
