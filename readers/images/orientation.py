"""Cheap evidence that a page image is upright, so that Tesseract can read it as it is.

Tesseract's orientation detection (``--psm 1``) classifies up to 250 characters four ways round: about
9% of its time on an upright page of the corpus's scans, for nothing. Two facts about lines of writing,
read off ink profiles of the page at half resolution in about 10 ms, say when a page is upright:

- **its lines run across**: within a vertical strip of the page, the rows between two lines are blank,
  while few columns are blank all the way down a strip of columns (words do not line up); a page turned
  a quarter has it the other way round;
- **its ascenders rise above its lines**: Latin letters reach above the x-height band (b, d, h, k, l, t
  and capitals) more than they hang below it (g, j, p, q, y); a page upside down has it the other way round.

This is a shortcut, never a verdict: a page that shows both is read as it is first and kept only when the
reading is confident (``readers/images/tesseract.py``); every other page, and every page whose reading as
it is is doubtful, goes to orientation detection as before. On the corpus's scans, every upright page read
the same text with the same confidences and rotation both ways.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image

# The page is looked at at a half of its resolution (150 dpi for a 300 dpi render): 10 pt text keeps
# lines about 20 px high, and the profiles cost a quarter.
REDUCTION = 2
# A pixel darker than this is ink (MuPDF's grey render: paper near 255, print near 0).
INK_BELOW = 128
# Profiles are taken within this many strips, each a sixth of the page: narrow enough that two columns
# of text or a slightly skewed line do not blur one another's gaps.
STRIPS = 6
# A row with at most this share of its strip's fullest row's ink is a gap between lines.
GAP_SHARE = 0.05
# Rows of a line with at least this share of the line's fullest row are its x-height band.
BAND_SHARE = 0.5
# Lines fewer rows high than this (at the reduced resolution) are specks and rules, not writing.
MIN_LINE_ROWS = 4
# Ascenders outweigh descenders: the share of a line's ink outside its band that lies above it. On the
# corpus's 14 scanned pages, each turned every way, it was 0.48-0.87 upright (13 of 14 over 0.5) and
# 0.13-0.52 upside down (13 of 14 under it); a page on the wrong side of it costs one reading, never a
# wrong one.
UPRIGHT_MIN_ASCENDER_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class LineEvidence:
    """What a page's ink profiles say of its lines.

    ``across_gaps`` and ``down_gaps``: the share of blank rows (columns) between a strip's first and last
    inked row (column), for lines running across (down) the page. ``ascender_share``: of the ink of the
    lines across, outside their x-height bands, the share above them. ``lines``: how many lines of
    writing the page holds at least: the most runs of ink one strip holds, counted across and down and
    the fewer kept (across the way a page's lines run, its words and letters make runs too)."""

    across_gaps: float
    down_gaps: float
    ascender_share: float
    lines: int = 0

    @property
    def upright(self) -> bool:
        """Lines run across and their ascenders rise above them."""
        return self.across_gaps > self.down_gaps and self.ascender_share > UPRIGHT_MIN_ASCENDER_SHARE


def line_evidence(image: Image.Image) -> LineEvidence:
    """The ink profiles of ``image`` (any mode; looked at in grey at a :data:`REDUCTION` of its size)."""
    grey = image if image.mode == "L" else image.convert("L")
    small = grey.reduce(REDUCTION) if min(grey.size) >= 2 * REDUCTION else grey
    ink = np.asarray(small) < INK_BELOW
    across_gaps, above, below, across_lines = _profiles(ink)
    down_gaps, _, _, down_lines = _profiles(ink.T)
    outside = above + below
    return LineEvidence(
        round(across_gaps, 3),
        round(down_gaps, 3),
        round(above / outside, 3) if outside else 0.0,
        min(across_lines, down_lines),
    )


def looks_upright(image: Image.Image) -> bool:
    return line_evidence(image).upright


def _profiles(ink: np.ndarray) -> tuple[float, int, int, int]:
    """For lines running along axis 1 of ``ink``: the share of gap rows within the strips' inked extents,
    the ink above and below the lines' x-height bands, and the most lines one strip holds."""
    width = ink.shape[1]
    gaps = extent = above = below = most_lines = 0
    for strip in range(STRIPS):
        profile = ink[:, strip * width // STRIPS : (strip + 1) * width // STRIPS].sum(axis=1)
        inked = np.flatnonzero(profile)
        if not inked.size:
            continue
        profile = profile[inked[0] : inked[-1] + 1]
        written = profile > GAP_SHARE * profile.max()
        gaps += int(written.size - np.count_nonzero(written))
        extent += written.size
        edges = np.flatnonzero(np.diff(written.astype(np.int8), prepend=0, append=0))
        lines = 0
        for start, end in zip(edges[::2], edges[1::2], strict=True):
            if end - start < MIN_LINE_ROWS:
                continue
            lines += 1
            line = profile[start:end]
            band = np.flatnonzero(line >= BAND_SHARE * line.max())
            above += int(line[: band[0]].sum())
            below += int(line[band[-1] + 1 :].sum())
        most_lines = max(most_lines, lines)
    return (gaps / extent if extent else 0.0), above, below, most_lines
