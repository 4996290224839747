"""The tray icon: the awaiting and working counts drawn as two numbers on coloured tiles.

Tray icons are shown at 16 to 24 pixels on bars of any colour, so the numbers sit on solid tiles of their own
(amber for awaiting, blue for working) in white, bold and as large as the tile allows: that reads the same on
a light bar and a dark one. The image is drawn at 64 px and scaled down by the tray; a count above 9 shows as
"9+", and a session in error turns the working tile red. Drawn with Pillow, no image files to ship.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from lunavect.listing.attention import Summary
from lunavect.tmux_status.options import COLORS

SIZE = 64
_WHITE = (255, 255, 255, 255)
_EMPTY = "#5e5c64"  # a tile with a zero count: still visible on dark and light bars, but quiet


def _count(value: int) -> str:
    return str(value) if value <= 9 else "9+"


def _tile(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], color: str, text: str) -> None:
    draw.rounded_rectangle(box, radius=8, fill=color)
    left, top, right, bottom = box
    size = 44 if len(text) == 1 else 30
    font = ImageFont.load_default(size=size)
    draw.text(((left + right) / 2, (top + bottom) / 2), text, fill=_WHITE, font=font, anchor="mm",
              stroke_width=1, stroke_fill=_WHITE)  # fmt: skip


def draw(summary: Summary, size: int = SIZE) -> Image.Image:
    """The icon for a summary: awaiting on the left tile, working on the right."""
    image = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    awaiting_color = COLORS["awaiting"] if summary.awaiting_input else _EMPTY
    working_color = COLORS["error"] if summary.errors else COLORS["working"] if summary.working else _EMPTY
    _tile(pen, (0, 0, SIZE // 2 - 2, SIZE - 1), awaiting_color, _count(summary.awaiting_input))
    _tile(pen, (SIZE // 2 + 1, 0, SIZE - 1, SIZE - 1), working_color, _count(summary.working))
    return image if size == SIZE else image.resize((size, size), Image.Resampling.LANCZOS)
