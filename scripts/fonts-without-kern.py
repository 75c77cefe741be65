#!/usr/bin/env python3
"""Write data/fonts/ from Debian's fonts-dejavu-core without the legacy
`kern` table (docs/reports.md, "Fonts"; needs fontTools: pip install
fonttools).

DejaVu Sans kerns through its GPOS `kern` feature, which the shaper
(harfrust, through usvg) applies; the legacy `kern` table is then never
applied, but the shaper still read all of its pairs into glyph sets for
every label it shaped. Without it the board's PNG is the same bytes (the
golden corpus's picture mails) and drawing it is cheaper.

    python3 scripts/fonts-without-kern.py /usr/share/fonts/truetype/dejavu
"""
import sys
from pathlib import Path

from fontTools.ttLib import TTFont

src = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/truetype/dejavu")
out = Path(__file__).resolve().parent.parent / "data" / "fonts"
for name in ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"]:
    font = TTFont(src / name)
    if "kern" in font:
        del font["kern"]
    font.save(out / name)
    print(f"{out / name}: written without the kern table")
