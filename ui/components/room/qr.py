"""A QR code encoder (ISO/IEC 18004) for the students' room link on the teacher's bar: byte mode, error correction
level M (or L), versions 1 to 10, drawn as an SVG. Pure Python; no Streamlit, no third-party code.

Invariant: `encode(text)` is a deterministic function of (text, level): the smallest version that holds the text's
UTF-8 bytes at that level, the standard's codeword layout (Reed–Solomon over GF(256) with the polynomial
x^8+x^4+x^3+x^2+1, the version/level's blocks interleaved), and of the 8 masks the one with the lowest penalty
(first on a tie). Text that fits no supported version is refused with one line (ValueError), never truncated.
Facts (tables, BCH generators, mask rules, penalty weights) are from ISO/IEC 18004:2015 §7 and its Annexes.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_VERSION = 10
QUIET_MODULES = 4  # §6.3.8: a light margin of 4 modules on every side

# §7.5.1 Table 12: format bits of each error correction level (L 01, M 00, Q 11, H 10).
LEVEL_BITS = {"L": 0b01, "M": 0b00}

# §7.5.1 Table 9, versions 1–10: level → per version (EC codewords per block, ((blocks, data codewords each), ...)).
BLOCKS: dict[str, tuple[tuple[int, tuple[tuple[int, int], ...]], ...]] = {
    "L": ((7, ((1, 19),)), (10, ((1, 34),)), (15, ((1, 55),)), (20, ((1, 80),)), (26, ((1, 108),)),
          (18, ((2, 68),)), (20, ((2, 78),)), (24, ((2, 97),)), (30, ((2, 116),)), (18, ((2, 68), (2, 69)))),
    "M": ((10, ((1, 16),)), (16, ((1, 28),)), (26, ((1, 44),)), (18, ((2, 32),)), (24, ((2, 43),)),
          (16, ((4, 27),)), (18, ((4, 31),)), (22, ((2, 38), (2, 39))), (22, ((3, 36), (2, 37))),
          (26, ((4, 43), (1, 44)))),
}

# Annex E Table E.1: row/column centres of the alignment patterns, versions 1–10 (version 1 has none).
ALIGN_CENTRES = ((), (6, 18), (6, 22), (6, 26), (6, 30), (6, 34), (6, 22, 38), (6, 24, 42), (6, 26, 46),
                 (6, 28, 50))

FORMAT_GENERATOR = 0b10100110111  # Annex C: G(x) = x^10+x^8+x^5+x^4+x^2+x+1, BCH(15,5)
FORMAT_XOR = 0b101010000010010  # Annex C: the mask applied to the 15 format bits
VERSION_GENERATOR = 0b1111100100101  # Annex D: G(x) = x^12+x^11+x^10+x^9+x^8+x^5+x^2+1, BCH(18,6)
PAD_BYTES = (0b11101100, 0b00010001)  # §7.4.10: 0xEC, 0x11 alternately

# §7.8.2 Table 10: the data mask conditions, i = row, j = column; a module is inverted where the condition holds.
MASKS = (
    lambda i, j: (i + j) % 2 == 0,
    lambda i, j: i % 2 == 0,
    lambda i, j: j % 3 == 0,
    lambda i, j: (i + j) % 3 == 0,
    lambda i, j: (i // 2 + j // 3) % 2 == 0,
    lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
    lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
    lambda i, j: ((i + j) % 2 + (i * j) % 3) % 2 == 0,
)


@dataclass(frozen=True)
class QRCode:
    """An encoded symbol: `modules[row][col]` is True for dark; no quiet zone."""

    version: int
    level: str
    mask: int
    modules: tuple[tuple[bool, ...], ...]

    @property
    def size(self) -> int:
        return len(self.modules)


# ---- GF(256) and Reed–Solomon (§7.5.2) -------------------------------------------------------------------------

def _gf_tables() -> tuple[list[int], list[int]]:
    exp, log, x = [0] * 512, [0] * 256, 1
    for power in range(255):
        exp[power], log[x] = x, power
        x <<= 1
        if x & 0x100:
            x ^= 0x11D  # the field's primitive polynomial x^8+x^4+x^3+x^2+1
    for power in range(255, 512):  # doubled, so a product needs no modulo
        exp[power] = exp[power - 255]
    return exp, log


_EXP, _LOG = _gf_tables()


def gf_mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


def rs_generator(degree: int) -> list[int]:
    """Coefficients (highest power first, leading 1) of (x - α^0)(x - α^1)…(x - α^(degree-1))."""
    poly = [1]
    for i in range(degree):
        nxt = poly + [0]
        for k, c in enumerate(poly):
            nxt[k + 1] ^= gf_mul(c, _EXP[i])
        poly = nxt
    return poly


def rs_remainder(data: list[int], degree: int) -> list[int]:
    """The `degree` error correction codewords of `data`: the remainder of data(x)·x^degree divided by g(x)."""
    gen, rem = rs_generator(degree), [0] * degree
    for byte in data:
        factor = byte ^ rem[0]
        rem = rem[1:] + [0]
        for k in range(degree):
            rem[k] ^= gf_mul(gen[k + 1], factor)
    return rem


# ---- Data codewords (§7.4) ----------------------------------------------------------------------------------------

def data_capacity_codewords(version: int, level: str) -> int:
    return sum(n * size for n, size in BLOCKS[level][version - 1][1])


def _count_bits(version: int) -> int:
    return 8 if version <= 9 else 16  # §7.4.1 Table 3: byte mode character count indicator


def _fits(n_bytes: int, version: int, level: str) -> bool:
    return 4 + _count_bits(version) + 8 * n_bytes <= 8 * data_capacity_codewords(version, level)


def max_bytes(level: str = "M") -> int:
    """The longest byte string the largest supported version holds at `level`."""
    return (8 * data_capacity_codewords(MAX_VERSION, level) - 4 - _count_bits(MAX_VERSION)) // 8


def data_codewords(payload: bytes, version: int, level: str) -> list[int]:
    """Mode 0100 (byte), the count, the bytes, a terminator of up to 4 zeros, zeros to a byte, then pad bytes."""
    bits = [int(b) for b in f"0100{len(payload):0{_count_bits(version)}b}"]
    for byte in payload:
        bits += [(byte >> k) & 1 for k in range(7, -1, -1)]
    capacity_bits = 8 * data_capacity_codewords(version, level)
    bits += [0] * min(4, capacity_bits - len(bits))
    bits += [0] * (-len(bits) % 8)
    words = [int("".join(map(str, bits[k:k + 8])), 2) for k in range(0, len(bits), 8)]
    for k in range(capacity_bits // 8 - len(words)):
        words.append(PAD_BYTES[k % 2])
    return words


def interleaved(data: list[int], version: int, level: str) -> list[int]:
    """§7.6: the data split in blocks (shorter blocks first), each block's EC codewords, both read column-wise."""
    ec_per_block, groups = BLOCKS[level][version - 1]
    blocks, at = [], 0
    for count, size in groups:
        for _ in range(count):
            blocks.append(data[at:at + size])
            at += size
    ecs = [rs_remainder(b, ec_per_block) for b in blocks]
    out = [b[k] for k in range(max(map(len, blocks))) for b in blocks if k < len(b)]
    return out + [e[k] for k in range(ec_per_block) for e in ecs]


# ---- Format and version information (Annexes C and D) ------------------------------------------------------------

def _bch(value: int, generator: int) -> int:
    """`value` followed by the remainder of value·x^(deg g) divided by g (polynomials over GF(2))."""
    degree = generator.bit_length() - 1
    rem = value << degree
    for shift in range(rem.bit_length() - generator.bit_length(), -1, -1):
        if rem >> (shift + degree) & 1:
            rem ^= generator << shift
    return value << degree | rem


def format_bits(level: str, mask: int) -> int:
    """The 15 format bits (bit 14 first): level and mask, BCH(15,5), XOR 101010000010010."""
    return _bch(LEVEL_BITS[level] << 3 | mask, FORMAT_GENERATOR) ^ FORMAT_XOR


def version_bits(version: int) -> int:
    """The 18 version bits (bit 17 first) of versions 7 and up: the version and its BCH(18,6) remainder."""
    return _bch(version, VERSION_GENERATOR)


# ---- The matrix (§7.3, §7.7–§7.9) ---------------------------------------------------------------------------------

class _Grid:
    """A square of modules under construction; `fixed` marks the function patterns the data must flow around."""

    def __init__(self, version: int) -> None:
        self.version, self.size = version, 17 + 4 * version
        self.dark = [[False] * self.size for _ in range(self.size)]
        self.fixed = [[False] * self.size for _ in range(self.size)]

    def put(self, row: int, col: int, dark: bool) -> None:
        self.dark[row][col], self.fixed[row][col] = dark, True


def _finder(grid: _Grid, top: int, left: int) -> None:
    """A 7×7 finder (dark ring, light ring, 3×3 dark core) and its light separator, clipped to the symbol."""
    for dr in range(-1, 8):
        for dc in range(-1, 8):
            r, c = top + dr, left + dc
            if 0 <= r < grid.size and 0 <= c < grid.size:
                ring = max(abs(dr - 3), abs(dc - 3))
                grid.put(r, c, ring != 2 and ring != 4)


def _alignment(grid: _Grid) -> None:
    centres = ALIGN_CENTRES[grid.version - 1]
    last = len(centres) - 1
    for a, row in enumerate(centres):
        for b, col in enumerate(centres):
            if (a, b) in ((0, 0), (0, last), (last, 0)):  # those corners hold the finders
                continue
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    grid.put(row + dr, col + dc, max(abs(dr), abs(dc)) != 1)


def _function_patterns(grid: _Grid) -> None:
    n = grid.size
    for k in range(8, n - 8):  # timing patterns on row 6 and column 6
        grid.put(6, k, k % 2 == 0)
        grid.put(k, 6, k % 2 == 0)
    for top, left in ((0, 0), (0, n - 7), (n - 7, 0)):
        _finder(grid, top, left)
    _alignment(grid)
    _format(grid, 0)  # reserve the format areas now (rewritten once the mask is chosen)
    if grid.version >= 7:
        _version(grid)


def _format(grid: _Grid, bits: int) -> None:
    """§7.9.1 Figure 25: bits 0–7 and 8–14 around the top-left finder, again split top-right / bottom-left."""
    n, bit = grid.size, [(bits >> k) & 1 == 1 for k in range(15)]
    for k in range(6):
        grid.put(k, 8, bit[k])
    grid.put(7, 8, bit[6])
    grid.put(8, 8, bit[7])
    grid.put(8, 7, bit[8])
    for k in range(9, 15):
        grid.put(8, 14 - k, bit[k])
    for k in range(8):
        grid.put(8, n - 1 - k, bit[k])
    for k in range(8, 15):
        grid.put(n - 15 + k, 8, bit[k])
    grid.put(n - 8, 8, True)  # the dark module beside the bottom-left finder


def _version(grid: _Grid) -> None:
    """§7.10 Figure 27: 18 bits in a 6×3 block above the bottom-left finder and its transpose left of the top-right."""
    n, bits = grid.size, version_bits(grid.version)
    for k in range(18):
        dark, a, b = (bits >> k) & 1 == 1, n - 11 + k % 3, k // 3
        grid.put(a, b, dark)
        grid.put(b, a, dark)


def _place_data(grid: _Grid, codewords: list[int]) -> None:
    """§7.7.3: two-module columns from the right, upwards then downwards, skipping column 6; the remainder bits
    left when the codewords run out stay light."""
    bits = [(w >> k) & 1 == 1 for w in codewords for k in range(7, -1, -1)]
    n, at, right, upward = grid.size, 0, grid.size - 1, True
    while right >= 1:
        right = 5 if right == 6 else right  # the vertical timing pattern takes column 6 whole
        for step in range(n):
            row = n - 1 - step if upward else step
            for col in (right, right - 1):
                if not grid.fixed[row][col]:
                    grid.dark[row][col] = at < len(bits) and bits[at]
                    at += 1
        right, upward = right - 2, not upward


def _masked(grid: _Grid, mask: int) -> list[list[bool]]:
    cond = MASKS[mask]
    return [[d != (not grid.fixed[i][j] and cond(i, j)) for j, d in enumerate(row)] for i, row in enumerate(grid.dark)]


# ---- Mask choice (§7.8.3 Table 11) -------------------------------------------------------------------------------

_FINDER_LIKE = ((True, False, True, True, True, False, True, False, False, False, False),
                (False, False, False, False, True, False, True, True, True, False, True))


def _line_penalty(line: list[bool]) -> int:
    """N1 (runs of 5+ alike: 3 + extra length) and N3 (1:1:3:1:1 with 4 light on one side: 40) of one row/column."""
    score, run = 0, 1
    for k in range(1, len(line) + 1):
        if k < len(line) and line[k] == line[k - 1]:
            run += 1
            continue
        if run >= 5:
            score += 3 + run - 5
        run = 1
    for k in range(len(line) - 10):
        if tuple(line[k:k + 11]) in _FINDER_LIKE:
            score += 40
    return score


def penalty(modules: list[list[bool]]) -> int:
    """The sum of the four penalty scores N1–N4 of a masked symbol."""
    n = len(modules)
    score = sum(_line_penalty(row) for row in modules)
    score += sum(_line_penalty([modules[i][j] for i in range(n)]) for j in range(n))
    score += 3 * sum(1 for i in range(n - 1) for j in range(n - 1)
                     if modules[i][j] == modules[i][j + 1] == modules[i + 1][j] == modules[i + 1][j + 1])
    dark = sum(map(sum, modules))
    score += 10 * (abs(20 * dark - 10 * n * n) // (n * n))  # N4: 10 per full 5 % away from half dark
    return score


# ---- Public API -------------------------------------------------------------------------------------------------

def choose_version(n_bytes: int, level: str) -> int:
    for version in range(1, MAX_VERSION + 1):
        if _fits(n_bytes, version, level):
            return version
    raise ValueError(f"QR code: {n_bytes} bytes do not fit version {MAX_VERSION}-{level} "
                     f"(at most {max_bytes(level)} bytes)")


def encode(text: str, level: str = "M", mask: int | None = None) -> QRCode:
    """The QR code of `text` (UTF-8, byte mode) at `level`; `mask` forces a mask (else the lowest penalty)."""
    if level not in LEVEL_BITS:
        raise ValueError(f"QR code: error correction level {level!r} is not supported (L or M)")
    payload = text.encode("utf-8")
    version = choose_version(len(payload), level)
    grid = _Grid(version)
    _function_patterns(grid)
    _place_data(grid, interleaved(data_codewords(payload, version, level), version, level))
    candidates = range(8) if mask is None else (mask,)
    best_score, best_mask, best = None, 0, None
    for m in candidates:
        _format(grid, format_bits(level, m))
        modules = _masked(grid, m)
        score = penalty(modules)
        if best_score is None or score < best_score:
            best_score, best_mask, best = score, m, modules
    return QRCode(version, level, best_mask, tuple(tuple(row) for row in best))


def svg(code: QRCode, label: str = "QR code") -> str:
    """The symbol as SVG: a white square with the quiet zone, the dark modules as one path (a run per row)."""
    side = code.size + 2 * QUIET_MODULES
    parts = []
    for row, line in enumerate(code.modules):
        col = 0
        while col < code.size:
            if not line[col]:
                col += 1
                continue
            start = col
            while col < code.size and line[col]:
                col += 1
            parts.append(f"M{start + QUIET_MODULES} {row + QUIET_MODULES}h{col - start}v1h-{col - start}z")
    safe = "".join(ch for ch in label if ch.isalnum() or ch in " -_.:/?=")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {side} {side}" shape-rendering="crispEdges" '
            f'role="img" aria-label="{safe}"><rect width="{side}" height="{side}" fill="#ffffff"/>'
            f'<path fill="#000000" d="{"".join(parts)}"/></svg>')
