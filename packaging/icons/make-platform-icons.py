#!/usr/bin/env python3
"""Renders onionvoice.svg into the Windows .ico and macOS .icns files committed next to it (the
Windows and macOS builds have no SVG renderer), and into the PNGs the app embeds as its window
icon (ui/icons). Both formats hold PNG images. Needs rsvg-convert.
    packaging/icons/make-platform-icons.py
"""
import os
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SVG = os.path.join(HERE, "onionvoice.svg")


def render(size, directory):
    path = os.path.join(directory, f"{size}.png")
    subprocess.run(["rsvg-convert", "-w", str(size), "-h", str(size), "-o", path, SVG], check=True)
    with open(path, "rb") as f:
        return f.read()


def write_ico(pngs, path):
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, data = b"", b""
    for size, png in pngs:
        dim = 0 if size >= 256 else size  # 0 means 256 in an ICO directory entry
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset + len(data))
        data += png
    with open(path, "wb") as f:
        f.write(header + entries + data)


def write_icns(pngs, path):
    types = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}
    body = b"".join(types[s] + struct.pack(">I", 8 + len(p)) + p for s, p in pngs if s in types)
    with open(path, "wb") as f:
        f.write(b"icns" + struct.pack(">I", 8 + len(body)) + body)


for size in (16, 32, 48, 64, 128, 256):
    with open(os.path.join(HERE, "..", "..", "ui", "icons", f"onionvoice-{size}.png"), "wb") as f:
        with tempfile.TemporaryDirectory() as tmp:
            f.write(render(size, tmp))

with tempfile.TemporaryDirectory() as tmp:
    write_ico([(s, render(s, tmp)) for s in (16, 32, 48, 256)],
              os.path.join(HERE, "..", "windows", "onionvoice.ico"))
    write_icns([(s, render(s, tmp)) for s in (16, 32, 64, 128, 256, 512)],
               os.path.join(HERE, "..", "macos", "onionvoice.icns"))
