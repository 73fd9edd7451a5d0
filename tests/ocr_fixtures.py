"""Pages that are hard for an OCR engine trained on clean print, generated in code.

Two scans, each built from a fixed seed so that the same call writes the same bytes:

- :func:`cover_image`: a cover or poster, a photograph-like picture (gradients, clouds of colour, shapes,
  grain) filling the page, with a large title and a byline set over it in a light colour that stands out
  from the picture only moderately;
- :func:`block_letters_image`: a note hand-printed in capitals, each letter drawn as strokes that wobble,
  overshoot, lean and vary in width, in pencil-grey on ruled paper.

Either is written as a PNG with its resolution (:func:`write_png`) or as a PDF whose one page is only that
image, with no text layer (:func:`write_image_pdf`). The words a reader should find are in
:data:`COVER_WORDS` and :data:`NOTE_WORDS`.
"""

from __future__ import annotations

import io
import itertools
import math
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image, ImageDraw, ImageFilter, ImageFont

#: The resolution both pages are drawn at: an A4 page is 1240 x 1754 pixels.
DPI = 150
PAGE_SIZE = (1240, 1754)

COVER_TITLE = ("QUIET RIVER", "SUMMER DAYS")
COVER_BYLINE = "Stories by Anna Green"
#: The words of the cover a reading should hold.
COVER_WORDS = ("quiet", "river", "summer", "days", "stories", "by", "anna", "green")

NOTE_LINES = ("PLEASE KEEP", "THIS GARDEN", "GATE CLOSED", "AT NIGHT", "THE DOG", "RUNS AWAY")
#: The words of the hand-printed note a reading should hold.
NOTE_WORDS = tuple(word.lower() for line in NOTE_LINES for word in line.split())


# --- writing ---------------------------------------------------------------------------------------------


def png_bytes(image: Image.Image) -> bytes:
    """``image`` as PNG bytes that carry :data:`DPI`."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(DPI, DPI))
    return buffer.getvalue()


def write_png(path: Path, image: Image.Image) -> Path:
    """Write ``image`` to ``path`` as a PNG with its resolution and return ``path``."""
    path.write_bytes(png_bytes(image))
    return path


def write_image_pdf(path: Path, image: Image.Image) -> Path:
    """Write a scanned PDF of one page, an A4 page covered by ``image`` as a scanner stores it (a JPEG) and
    nothing else (no font, no text operator), and return ``path``."""
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=85, dpi=(DPI, DPI))
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE_SIZE[0] * 72 / DPI, height=PAGE_SIZE[1] * 72 / DPI)
    page.insert_image(page.rect, stream=buffer.getvalue())
    doc.set_metadata({})
    path.write_bytes(doc.tobytes(garbage=3, deflate=True, no_new_id=True))
    return path


# --- the cover -------------------------------------------------------------------------------------------


def _smooth_noise(rng: np.random.Generator, size: tuple[int, int], cells: int) -> np.ndarray:
    """Noise that varies smoothly over the page: a ``cells``-wide grid of random values, enlarged."""
    width, height = size
    grid = rng.random((max(2, cells * height // width), cells)).astype(np.float32)
    small = Image.fromarray((grid * 255).astype(np.uint8), mode="L")
    return np.asarray(small.resize(size, Image.Resampling.BICUBIC), dtype=np.float32) / 255


def _picture(rng: np.random.Generator) -> Image.Image:
    """A busy, photograph-like picture: a sky-to-ground gradient, clouds of colour at several scales,
    blurred discs and leaves of colour, branch-like strokes and film grain."""
    width, height = PAGE_SIZE
    y = np.linspace(0, 1, height, dtype=np.float32)[:, None, None]
    top = np.array([70, 110, 150], dtype=np.float32)
    bottom = np.array([120, 95, 60], dtype=np.float32)
    pixels = np.broadcast_to(top * (1 - y) + bottom * y, (height, width, 3)).copy()
    for cells, strength in ((4, 70), (12, 45), (40, 25)):
        for channel in range(3):
            pixels[..., channel] += (_smooth_noise(rng, PAGE_SIZE, cells) - 0.5) * strength
    picture = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), mode="RGB")

    shapes = Image.new("RGB", PAGE_SIZE)
    mask = Image.new("L", PAGE_SIZE, 0)
    draw, draw_mask = ImageDraw.Draw(shapes), ImageDraw.Draw(mask)
    for _ in range(140):
        cx, cy = rng.integers(0, width), rng.integers(0, height)
        r = int(rng.integers(20, 160))
        colour = tuple(int(c) for c in rng.integers(30, 235, 3))
        if rng.random() < 0.5:
            box = (cx - r, cy - r // 2, cx + r, cy + r // 2)
            draw.ellipse(box, fill=colour)
            draw_mask.ellipse(box, fill=int(rng.integers(90, 200)))
        else:
            points = [
                (cx + r * math.cos(a), cy + r * math.sin(a)) for a in np.sort(rng.random(5) * 2 * math.pi)
            ]
            draw.polygon(points, fill=colour)
            draw_mask.polygon(points, fill=int(rng.integers(90, 200)))
    picture = Image.composite(
        shapes.filter(ImageFilter.GaussianBlur(3)), picture, mask.filter(ImageFilter.GaussianBlur(2))
    )

    draw = ImageDraw.Draw(picture)
    for _ in range(60):
        x, y0 = float(rng.integers(0, width)), float(rng.integers(0, height))
        angle = rng.random() * 2 * math.pi
        points = [(x, y0)]
        for _ in range(8):
            angle += rng.normal(0, 0.4)
            x, y0 = x + 40 * math.cos(angle), y0 + 40 * math.sin(angle)
            points.append((x, y0))
        shade = int(rng.integers(20, 90))
        draw.line(points, fill=(shade, shade - 10 if shade > 10 else 0, 0), width=int(rng.integers(2, 7)))

    grain = rng.normal(0, 14, (height, width, 1)).astype(np.float32)
    pixels = np.asarray(picture, dtype=np.float32) + grain
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), mode="RGB")


def _font(bold: bool, size: int) -> ImageFont.FreeTypeFont:
    """Helvetica (bold or regular) as it ships inside PyMuPDF, so the page is the same wherever drawn."""
    buffer = pymupdf.Font("hebo" if bold else "helv").buffer
    return ImageFont.truetype(io.BytesIO(buffer), size)


def cover_image(seed: int = 4301) -> Image.Image:
    """A cover page (RGB, :data:`PAGE_SIZE`): a busy generated picture filling the page, its two-line
    title (:data:`COVER_TITLE`) in large bold capitals and its byline (:data:`COVER_BYLINE`) set over the
    picture in a pale warm colour, lightly shadowed, as a designer sets a title over a photograph.
    ``seed`` fixes the picture: the same seed gives the same pixels."""
    rng = np.random.default_rng(seed)
    page = _picture(rng)
    layer = Image.new("RGBA", PAGE_SIZE, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    ink = (238, 226, 196, 215)
    shadow = (20, 20, 20, 90)
    title = _font(True, 112)
    y = 260
    for line in COVER_TITLE:
        line = line.replace(" ", "   ")
        x = (PAGE_SIZE[0] - draw.textlength(line, font=title)) / 2
        draw.text((x + 5, y + 5), line, font=title, fill=shadow)
        draw.text((x, y), line, font=title, fill=ink)
        y += 160
    byline = _font(False, 64)
    x = (PAGE_SIZE[0] - draw.textlength(COVER_BYLINE, font=byline)) / 2
    draw.text((x + 3, 1420 + 3), COVER_BYLINE, font=byline, fill=shadow)
    draw.text((x, 1420), COVER_BYLINE, font=byline, fill=ink)
    return Image.alpha_composite(page.convert("RGBA"), layer).convert("RGB")


# --- the hand-printed note -------------------------------------------------------------------------------

#: Capital letters as pen strokes on a unit box (x right, y down; 0 is the top of the capital).
_STROKES: dict[str, tuple[tuple[tuple[float, float], ...], ...]] = {
    "A": (((0.0, 1.0), (0.5, 0.0), (1.0, 1.0)), ((0.22, 0.58), (0.78, 0.58))),
    "C": (
        (
            (0.95, 0.15),
            (0.7, 0.0),
            (0.3, 0.0),
            (0.05, 0.25),
            (0.05, 0.75),
            (0.3, 1.0),
            (0.7, 1.0),
            (0.95, 0.85),
        ),
    ),
    "D": (
        ((0.05, 0.0), (0.05, 1.0)),
        ((0.05, 0.0), (0.55, 0.0), (0.92, 0.3), (0.92, 0.7), (0.55, 1.0), (0.05, 1.0)),
    ),
    "E": (((0.9, 0.0), (0.05, 0.0), (0.05, 1.0), (0.9, 1.0)), ((0.05, 0.5), (0.7, 0.5))),
    "G": (
        (
            (0.95, 0.15),
            (0.7, 0.0),
            (0.3, 0.0),
            (0.05, 0.25),
            (0.05, 0.75),
            (0.3, 1.0),
            (0.75, 1.0),
            (0.95, 0.8),
            (0.95, 0.55),
            (0.55, 0.55),
        ),
    ),
    "H": (((0.05, 0.0), (0.05, 1.0)), ((0.95, 0.0), (0.95, 1.0)), ((0.05, 0.5), (0.95, 0.5))),
    "I": (((0.5, 0.0), (0.5, 1.0)), ((0.2, 0.0), (0.8, 0.0)), ((0.2, 1.0), (0.8, 1.0))),
    "K": (((0.05, 0.0), (0.05, 1.0)), ((0.9, 0.0), (0.05, 0.6)), ((0.3, 0.42), (0.95, 1.0))),
    "L": (((0.05, 0.0), (0.05, 1.0), (0.85, 1.0)),),
    "N": (((0.05, 1.0), (0.05, 0.0), (0.95, 1.0), (0.95, 0.0)),),
    "O": (
        tuple(
            (0.5 + 0.5 * math.sin(a * math.pi / 8), 0.5 - 0.5 * math.cos(a * math.pi / 8)) for a in range(17)
        ),
    ),
    "P": (((0.05, 1.0), (0.05, 0.0), (0.7, 0.0), (0.92, 0.15), (0.92, 0.4), (0.7, 0.52), (0.05, 0.52)),),
    "R": (
        ((0.05, 1.0), (0.05, 0.0), (0.7, 0.0), (0.92, 0.15), (0.92, 0.4), (0.7, 0.52), (0.05, 0.52)),
        ((0.45, 0.52), (0.95, 1.0)),
    ),
    "S": (
        (
            (0.92, 0.12),
            (0.65, 0.0),
            (0.3, 0.0),
            (0.06, 0.15),
            (0.08, 0.38),
            (0.5, 0.5),
            (0.92, 0.62),
            (0.94, 0.86),
            (0.7, 1.0),
            (0.3, 1.0),
            (0.05, 0.88),
        ),
    ),
    "T": (((0.0, 0.0), (1.0, 0.0)), ((0.5, 0.0), (0.5, 1.0))),
    "U": (((0.05, 0.0), (0.05, 0.75), (0.25, 1.0), (0.75, 1.0), (0.95, 0.75), (0.95, 0.0)),),
    "W": (((0.0, 0.0), (0.22, 1.0), (0.5, 0.35), (0.78, 1.0), (1.0, 0.0)),),
    "Y": (((0.0, 0.0), (0.5, 0.42), (1.0, 0.0)), ((0.5, 0.42), (0.5, 1.0))),
}

#: Each letter's width as a share of its height.
_WIDTHS = {"I": 0.5, "L": 0.6, "E": 0.62, "T": 0.7, "P": 0.66, "R": 0.7, "S": 0.66, "W": 1.0}


#: How a hand prints: the letters' mean lean and its spread (share of height), the spread of their tops
#: off the line and the space between letters, in pixels. Tuned, with the pencil below, so that
#: Tesseract 5.3 reads the greyscale note as a few doubtful fragments and PP-OCRv6 as all its words.
LEAN, LEAN_SD, BOUNCE, GAP = 0.15, 0.12, 9, 18
#: The pencil: the share of the stroke where the lead skips over the paper's grain, how dark a full
#: stroke is (0-1) and the graphite's colour.
PENCIL_GAPS, PENCIL_DEPTH, LEAD = 0.3, 0.85, (80, 80, 95)
_FIRST_LINE = 260
_LINE_PITCH = 220


def _paper(rng: np.random.Generator) -> Image.Image:
    """Off-white ruled paper with a faint grain and uneven light."""
    width, height = PAGE_SIZE
    light = 235 + (_smooth_noise(rng, PAGE_SIZE, 3) - 0.5) * 24
    grain = rng.normal(0, 5, (height, width)).astype(np.float32)
    base = np.clip(light + grain, 0, 255)
    pixels = np.stack([base, base * 0.985, base * 0.94], axis=-1)
    paper = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), mode="RGB")
    draw = ImageDraw.Draw(paper)
    for y in range(_FIRST_LINE, height - 120, _LINE_PITCH // 2):
        draw.line([(60, y), (width - 60, y)], fill=(170, 190, 215), width=2)
    return paper


def _hand_stroke(
    draw: ImageDraw.ImageDraw,
    rng: np.random.Generator,
    points: list[tuple[float, float]],
    width: float,
    ink: int,
) -> None:
    """Draw a polyline as a hand does: each segment split into small steps that wander off the line,
    the pen's width swelling and thinning along it, the ends overshooting a little."""
    steps: list[tuple[float, float]] = []
    drift = np.zeros(2)
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        count = max(2, int(length / 6))
        for i in range(count):
            t = i / count
            drift = 0.8 * drift + rng.normal(0, 0.9, 2)
            steps.append((x0 + (x1 - x0) * t + drift[0], y0 + (y1 - y0) * t + drift[1]))
    steps.append((points[-1][0] + drift[0], points[-1][1] + drift[1]))
    pen = width
    for a, b in itertools.pairwise(steps):
        pen = float(np.clip(pen + rng.normal(0, 0.5), width * 0.5, width * 1.6))
        draw.line([a, b], fill=ink, width=max(1, round(pen)))
        draw.ellipse((b[0] - pen / 2, b[1] - pen / 2, b[0] + pen / 2, b[1] + pen / 2), fill=ink)


def block_letters_image(seed: int = 4302) -> Image.Image:
    """A hand-printed note (RGB, :data:`PAGE_SIZE`): the lines of :data:`NOTE_LINES` in capitals, each
    letter drawn as pen strokes (:data:`_STROKES`) with its own size, lean and drift off the ruled line,
    strokes that wobble and change width, on ruled off-white paper in a soft pencil grey.
    ``seed`` fixes every tremor: the same seed gives the same pixels."""
    rng = np.random.default_rng(seed)
    page = _paper(rng)
    strokes = Image.new("L", PAGE_SIZE, 0)
    draw = ImageDraw.Draw(strokes)
    baseline = float(_FIRST_LINE)
    for line in NOTE_LINES:
        x = 110.0 + rng.normal(0, 15)
        for word in line.split():
            for letter in word:
                height = 84 * (1 + rng.normal(0, 0.07))
                width = height * _WIDTHS.get(letter, 0.78) * (1 + rng.normal(0, 0.06))
                lean = rng.normal(LEAN, LEAN_SD)
                top = baseline - 10 - height + rng.normal(0, BOUNCE)
                pen = 7 + rng.normal(0, 1.2)
                for stroke in _STROKES[letter]:
                    points = [
                        (
                            x + px * width + (1 - py) * height * lean + rng.normal(0, 2.5),
                            top + py * height + rng.normal(0, 2.5),
                        )
                        for px, py in stroke
                    ]
                    _hand_stroke(draw, rng, points, pen, 255)
                x += width + GAP + rng.normal(0, 6)
            x += 110 + rng.normal(0, 10)
        baseline += _LINE_PITCH
    # pencil: the lead leaves graphite where the paper's grain stands up, and less of it elsewhere
    tooth = rng.random((PAGE_SIZE[1], PAGE_SIZE[0])).astype(np.float32)
    cover = np.asarray(strokes.filter(ImageFilter.GaussianBlur(0.8)), dtype=np.float32) / 255
    cover *= np.where(tooth < PENCIL_GAPS, 0.25, 1.0) * PENCIL_DEPTH
    paper = np.asarray(page, dtype=np.float32)
    lead = np.array(LEAD, dtype=np.float32)
    pixels = paper * (1 - cover[..., None]) + lead * cover[..., None]
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), mode="RGB")
