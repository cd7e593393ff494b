"""The room link's QR code (ui/components/room/qr.py): each symbol's SVG, rasterised to a PNG here (a small writer:
zlib + struct, 6 px per module), is decoded by Debian's zbarimg (zbar-tools) back to exactly the input, across
versions 1–10 and levels M and L; the Reed–Solomon remainder and the format / version bits equal the standard's
worked values; longer input is refused with one line."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from ui.components.room import qr

PX_PER_MODULE = 6
ZBARIMG = shutil.which("zbarimg") or "/usr/bin/zbarimg"  # missing: a failure, not a skip (scripts/test.sh installs)


def _svg_pixels(svg: str) -> list[list[bool]]:
    """Dark modules of our SVG (viewBox in modules; the path is runs `M x y h n v1 h-n z`), quiet zone included."""
    side = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).group(1))
    assert 'fill="#ffffff"' in svg and svg.count("<path") == 1
    dark = [[False] * side for _ in range(side)]
    d = re.search(r'<path fill="#000000" d="([^"]*)"', svg).group(1)
    for x, y, n in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\3z", d):
        for k in range(int(n)):
            dark[int(y)][int(x) + k] = True
    assert len(re.findall(r"M\d+ \d+h\d+v1h-\d+z", d)) == d.count("M")  # every run was read
    return dark


def _png(dark: list[list[bool]], scale: int) -> bytes:
    """An 8-bit greyscale PNG: each module a scale×scale square, black on white."""
    rows = []
    for line in dark:
        raw = b"\x00" + b"".join((b"\x00" if d else b"\xff") * scale for d in line)  # filter 0 per scanline
        rows.extend([raw] * scale)
    side = len(dark) * scale

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
            + chunk(b"IEND", b""))


def _zbarimg(*args: str) -> subprocess.CompletedProcess:
    assert Path(ZBARIMG).is_file(), "zbarimg is missing: apt-get install zbar-tools (scripts/test.sh does)"
    return subprocess.run([ZBARIMG, *args], capture_output=True, timeout=60, check=False)


def zbar_decode(path: Path) -> str:
    done = _zbarimg("--raw", "-q", "-Sdisable", "-Sqrcode.enable", str(path))
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    out = done.stdout.decode("utf-8")
    assert out.endswith("\n")
    return out[:-1]


LINK = "http://192.168.1.20:8501/?room=ABC234"
TEXTS = [
    ("M", "ABCD", 1),
    ("M", "http://127.0.0.1:8501/?room=ABCD", 3),
    ("M", LINK, 3),
    ("L", LINK, 3),
    ("L", "http://10.0.0.2:8501/?room=AB2C", 2),
    ("M", "https://chunkviz.example.org:8501/?room=ABCDEFGHJKLM", 4),
    ("M", "http://[2001:db8:0:0:1:0:0:1]:8501/?room=Z9Z9Z9Z9" + "/x" * 12, 5),
    ("M", "http://teacher-laptop.classroom.local:8501/?room=K7K7K7&lang=zh" + "&present=1" * 4, 6),
    ("L", "x" * 106, 5),
    ("M", "The class follows the teacher; " * 3 + "x" * 20, 7),
    ("M", "0123456789" * 15, 8),
    ("L", "p" * 200, 9),
    ("M", "~" * qr.max_bytes("M"), 10),
]


@pytest.mark.parametrize("level,text,version", TEXTS)
def test_zbarimg_reads_back_exactly_the_input(tmp_path, level, text, version):
    code = qr.encode(text, level)
    assert (code.version, code.level, code.size) == (version, level, 17 + 4 * version)
    pixels = _svg_pixels(qr.svg(code))
    assert len(pixels) == code.size + 8
    assert not any(pixels[0]) and not any(row[3] for row in pixels)  # the quiet zone is light
    png = tmp_path / "code.png"
    png.write_bytes(_png(pixels, PX_PER_MODULE))
    assert zbar_decode(png) == text


def test_every_mask_decodes(tmp_path):
    for mask in range(8):
        png = tmp_path / f"mask{mask}.png"
        png.write_bytes(_png(_svg_pixels(qr.svg(qr.encode(LINK, "M", mask=mask))), 4))
        assert zbar_decode(png) == LINK, mask


def test_a_broken_png_does_not_decode(tmp_path):
    """The control: zbarimg finds nothing in a symbol whose finder pattern is erased."""
    pixels = _svg_pixels(qr.svg(qr.encode(LINK)))
    for r in range(4, 11):
        for c in range(4, 11):
            pixels[r][c] = False
    png = tmp_path / "broken.png"
    png.write_bytes(_png(pixels, PX_PER_MODULE))
    done = _zbarimg("--raw", "-q", str(png))
    assert done.returncode != 0 and done.stdout == b""


def test_reed_solomon_remainder_of_the_standards_worked_example():
    # ISO/IEC 18004 Annex I: "01234567", version 1-M, its 16 data and 10 error correction codewords.
    data = [16, 32, 12, 86, 97, 128, 236, 17, 236, 17, 236, 17, 236, 17, 236, 17]
    assert qr.rs_remainder(data, 10) == [165, 36, 212, 193, 237, 54, 199, 135, 44, 85]
    # The same for "HELLO WORLD" (alphanumeric), 1-M.
    data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
    assert qr.rs_remainder(data, 10) == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]


def test_generator_polynomial_degree_7():
    # Annex A: g(x) for 7 EC codewords, as powers of α: α^0 x^7 + α^87 x^6 + α^229 x^5 + α^146 x^4 + α^149 x^3
    # + α^238 x^2 + α^102 x + α^21.
    powers = [0, 87, 229, 146, 149, 238, 102, 21]
    assert qr.rs_generator(7) == [qr._EXP[p] for p in powers]


def test_format_bits_match_annex_c():
    assert f"{qr.format_bits('M', 0):015b}" == "101010000010010"
    assert f"{qr.format_bits('M', 5):015b}" == "100000011001110"
    assert f"{qr.format_bits('L', 0):015b}" == "111011111000100"
    assert f"{qr.format_bits('L', 7):015b}" == "110100101110110"
    assert len({qr.format_bits(lv, m) for lv in "LM" for m in range(8)}) == 16


def test_version_bits_match_annex_d():
    assert qr.version_bits(7) == 0b000111110010010100
    assert qr.version_bits(10) == 0b001010010011010011


def test_both_format_copies_in_the_symbol_agree():
    code = qr.encode(LINK, "M", mask=5)
    m, n = code.modules, code.size
    first = [m[k][8] for k in range(6)] + [m[7][8], m[8][8], m[8][7]] + [m[8][14 - k] for k in range(9, 15)]
    second = [m[8][n - 1 - k] for k in range(8)] + [m[n - 15 + k][8] for k in range(8, 15)]
    want = [(qr.format_bits("M", 5) >> k) & 1 == 1 for k in range(15)]
    assert first == second == want and m[n - 8][8]


def test_byte_mode_data_codewords():
    # Mode 0100, count 00000010, 'h' 01101000, 'i' 01101001, terminator 0000, then 0xEC 0x11 … to 16 codewords.
    words = qr.data_codewords(b"hi", 1, "M")
    assert words[:4] == [0b01000000, 0b00100110, 0b10000110, 0b10010000]
    assert words[4:] == [0xEC, 0x11] * 6 and len(words) == 16


def test_byte_capacities_match_table_7():
    # ISO/IEC 18004 Table 7: the most bytes each version holds in byte mode, levels L and M.
    table = {"L": [17, 32, 53, 78, 106, 134, 154, 192, 230, 271], "M": [14, 26, 42, 62, 84, 106, 122, 152, 180, 213]}
    for level, caps in table.items():
        for version, cap in enumerate(caps, start=1):
            assert qr._fits(cap, version, level) and not qr._fits(cap + 1, version, level), (level, version)


def test_the_smallest_version_is_chosen_and_longer_input_refused():
    assert qr.encode("a" * 14).version == 1 and qr.encode("a" * 15).version == 2  # 1-M holds 14 bytes
    assert qr.encode("a" * 17, "L").version == 1
    with pytest.raises(ValueError) as err:
        qr.encode("a" * (qr.max_bytes("M") + 1))
    assert "\n" not in str(err.value) and "at most 213 bytes" in str(err.value)
    with pytest.raises(ValueError, match="level 'H'"):
        qr.encode("a", "H")


def test_svg_is_one_path_on_white():
    svg = qr.svg(qr.encode(LINK))
    assert svg.startswith("<svg") and svg.count("<path") == 1 and 'viewBox="0 0 37 37"' in svg


def test_the_bar_encodes_the_teachers_origin_and_refuses_an_overlong_link_in_one_line():
    from ui.components.room.mount import link_qr, students_link

    assert students_link("ABC234", "http://192.168.1.20:8501/ch1-kitchen") == LINK
    assert students_link("ABC234", "https://[::1]:8443/") == "https://[::1]:8443/?room=ABC234"
    assert students_link("ABC234", None) is None and students_link("ABC234", "about:blank") is None
    svg, note = link_qr(LINK)
    assert note is None and svg == qr.svg(qr.encode(LINK), label=LINK)
    svg, note = link_qr("http://" + "h" * 250 + "/?room=ABC234")
    assert svg is None and "\n" not in note and "do not fit" in note
