#!/usr/bin/python3
"""Regenerates the small PNG/JPEG fixtures of tests/perception (run with the
Debian python3, which has python3-pil). Pixel formulas are mirrored in
test_image.c, so change both together."""
from PIL import Image

W, H = 7, 5


def rgba(x, y):
    return ((x * 37) & 255, (y * 53) & 255, ((x + y) * 11) & 255, 255 if (x + y) % 3 else 128)


im = Image.new('RGBA', (W, H))
g = Image.new('L', (W, H))
b = Image.new('1', (W, H))
g16 = Image.new('I;16', (W, H))
p = Image.new('P', (W, H))
la = Image.new('LA', (W, H))
p.putpalette([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255] + [0] * (252 * 3))
for y in range(H):
    for x in range(W):
        im.putpixel((x, y), rgba(x, y))
        g.putpixel((x, y), (x * 30 + y * 7) & 255)
        b.putpixel((x, y), 255 if (x + y) % 2 else 0)
        g16.putpixel((x, y), (x * 9000 + y * 100) & 0xffff)
        p.putpixel((x, y), (x + y) % 4)
        la.putpixel((x, y), ((x * 20) & 255, (y * 60) & 255))
im.save('rgba8.png')
g.save('gray8.png')
b.save('gray1.png')
g16.save('gray16.png')
p.save('palette_trns.png', transparency=2)
la.save('gray_alpha.png')
rgb = Image.new('RGB', (32, 24))
for y in range(24):
    for x in range(32):
        rgb.putpixel((x, y), (x * 8, y * 10, 128))
rgb.save('rgb.jpg', quality=90)
rgb.convert('L').save('gray.jpg', quality=90)
rgb.save('rgb_progressive.jpg', quality=90, progressive=True)
