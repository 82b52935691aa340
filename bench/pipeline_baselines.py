#!/usr/bin/python3
"""Baselines for the fovea capture pipeline (bench/RESULTS.md).

Runs decode PNG -> 50 marks -> resize to 1024 wide -> JPEG q80 with Pillow
(translucent fills, 2 px outlines, tags with text, like fovea) and with
libvips (pyvips when importable, else the C program vips_pipeline built
next to bench_overlay), then runs bench_overlay in the same invocation and
prints each median and the ratio fovea / faster baseline.

Usage: pipeline_baselines.py BUILD_DIR [REPS]   (Debian's /usr/bin/python3,
which has python3-pil)."""
import io
import json
import os
import re
import statistics
import subprocess
import sys
import time

from PIL import Image, ImageDraw

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PNG = os.path.join(ROOT, 'bench', 'data', 'page50.png')
BOXES = os.path.join(ROOT, 'bench', 'data', 'boxes50.json')


def pillow_once(data, boxes):
    im = Image.open(io.BytesIO(data))
    im.load()
    im = im.convert('RGBA')
    ov = Image.new('RGBA', im.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(ov)
    for b in boxes:
        d.rectangle([b['x0'], b['y0'], b['x1'] - 1, b['y1'] - 1], fill=(230, 25, 75, 64),
                    outline=(230, 25, 75, 255), width=2)
        d.rectangle([b['x0'], b['y0'] - 16, b['x0'] + 40, b['y0']], fill=(230, 25, 75, 255))
        d.text((b['x0'] + 2, b['y0'] - 15), '[V%d]' % b['id'], fill=(255, 255, 255, 255))
    im = Image.alpha_composite(im, ov)
    w = 1024
    im = im.resize((w, round(im.height * w / im.width)), Image.BILINEAR)
    out = io.BytesIO()
    im.convert('RGB').save(out, 'JPEG', quality=80)
    return out.getvalue()


def median_ms(fn, reps):
    for _ in range(3):
        fn()
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append((time.perf_counter() - t0) * 1000)
    return statistics.median(t)


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build')
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    bindir = os.path.join(build, 'bench')
    data = open(PNG, 'rb').read()
    boxes = json.load(open(BOXES))
    results = {}
    results['pillow'] = median_ms(lambda: pillow_once(data, boxes), reps)
    print('pipeline pillow: %.3f ms median' % results['pillow'])
    try:
        import pyvips  # noqa: F401 (optional)
        print('pyvips present but not wired in; using vips_pipeline')
    except ImportError:
        pass
    vp = os.path.join(bindir, 'vips_pipeline')
    if os.path.exists(vp):
        for extra, key in (([], 'vips'), (['nomarks'], 'vips (no marks)')):
            out = run([vp, PNG, str(reps)] + extra)
            m = re.search(r'pipeline vips[^:]*: ([0-9.]+) ms', out)
            results[key] = float(m.group(1))
            print(out.strip().splitlines()[-1])
    else:
        print('vips_pipeline not built (libvips not found); libvips baseline skipped')
    out = run([os.path.join(bindir, 'bench_overlay'), PNG, BOXES, str(reps)])
    print(out.strip())
    fovea = float(re.search(r'pipeline fovea: ([0-9.]+) ms', out).group(1))
    # The target compares like with like: the "no marks" libvips run does
    # less work than fovea and is reported, not used as the baseline.
    same = {k: v for k, v in results.items() if 'no marks' not in k}
    name, best = min(same.items(), key=lambda kv: kv[1])
    for k, v in results.items():
        print('ratio fovea / %s: %.2fx' % (k, fovea / v))
    print('ratio fovea / faster baseline doing the same work (%s): %.2fx (target <= 0.25x)'
          % (name, fovea / best))


if __name__ == '__main__':
    main()
