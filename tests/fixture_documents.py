"""Documents only the tests need, generated in code with the demo corpus's builders
(orchestration/document_builders.py): the builders the demo corpus itself uses stay beside it.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from orchestration.document_builders import _layout, _set_fixed_metadata, _write_atomic

__all__ = ["make_encrypted_pdf"]

_DEFAULT_OWNER_PASSWORD = "assay-owner"  # a fixture's documented owner password


def make_encrypted_pdf(
    path: Path,
    user_password: str,
    text: str,
    *,
    owner_password: str | None = None,
) -> Path:
    """Write a one-page PDF with ``text``, encrypted with AES-256 (standard security handler, R6).

    An empty ``user_password`` makes a PDF that opens without a password (readers authenticate with the
    empty string) while still being encrypted with a non-empty owner password. The owner password is
    ``owner_password`` or ``"assay-owner"``. The bytes are not deterministic (encryption salts are
    random), which does not matter for a test fixture.
    """
    owner = owner_password or _DEFAULT_OWNER_PASSWORD
    if owner == user_password:
        owner = f"{user_password}-owner"
    doc = _layout([text], title=None, fontsize=11)
    _set_fixed_metadata(doc, None)
    data = doc.tobytes(
        garbage=4,
        deflate=True,
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        owner_pw=owner,
        user_pw=user_password,
        permissions=int(pymupdf.PDF_PERM_ACCESSIBILITY | pymupdf.PDF_PERM_PRINT | pymupdf.PDF_PERM_COPY),
    )
    return _write_atomic(path, data)
