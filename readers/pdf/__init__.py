"""The PDF readers: PyMuPDF (primary), pdfplumber (fallback and second opinion), and the page facts,
ruled tables, figures and embedded files they report."""
