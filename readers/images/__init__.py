"""Images and OCR: the image reader and Tesseract on one page image."""
