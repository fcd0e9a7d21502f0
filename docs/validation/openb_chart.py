#!/usr/bin/env python3
"""Draws docs/validation/openb-alloc.svg: GPU allocation vs arrived GPU demand per policy, gputwin's curves
(lines, from a `gputwin pack` pack.csv) and the published run's points (markers; seed 42 of
hkust-adsl/kubernetes-scheduler-simulator experiments/analysis/expected_results/analysis_allo_discrete.csv).
Standard library only.

    gputwin pack --trace data/openb -o out/pack
    docs/validation/openb_chart.py out/pack/pack.csv docs/validation/openb-alloc.svg
"""
import csv
import sys

POLICIES = ["random-fit", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"]
COLORS = ["#7f7f7f", "#9467bd", "#8c564b", "#2ca02c", "#1f77b4", "#d62728"]
# Published GPU allocation (% of capacity) at arrived demand 90, 95, 100, 110, 120, 130 %.
PUBLISHED_X = [90, 95, 100, 110, 120, 130]
PUBLISHED = {
    "random-fit": [84.80, 85.50, 86.17, 86.73, 87.10, 87.26],
    "dot-product": [89.95, 90.27, 90.34, 90.39, 90.46, 90.54],
    "gpu-clustering": [89.98, 91.26, 91.33, 91.39, 91.45, 91.53],
    "gpu-packing": [89.98, 91.30, 91.37, 91.42, 91.49, 91.57],
    "best-fit": [89.98, 92.87, 92.95, 93.00, 93.07, 93.13],
    "fgd": [89.98, 94.92, 95.14, 95.19, 95.24, 95.29],
}
# Plot window: demand 60..130 %, allocation 60..100 %.
X0, X1, Y0, Y1 = 60.0, 130.0, 60.0, 100.0
W, H, LEFT, RIGHT, TOP, BOTTOM = 720, 460, 60, 170, 20, 50


def sx(x):
    return LEFT + (x - X0) / (X1 - X0) * (W - LEFT - RIGHT)


def sy(y):
    return TOP + (Y1 - y) / (Y1 - Y0) * (H - TOP - BOTTOM)


def main(csv_path, svg_path):
    curves = {p: [] for p in POLICIES}
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if row["policy"] in curves:
                curves[row["policy"]].append((float(row["arrived_gpu_pct"]), float(row["allocated_gpu_pct"])))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" '
           f'font-size="12">', f'<rect width="{W}" height="{H}" fill="white"/>']
    for x in range(60, 131, 10):
        out.append(f'<line x1="{sx(x):.1f}" y1="{sy(Y0):.1f}" x2="{sx(x):.1f}" y2="{sy(Y1):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{sx(x):.1f}" y="{sy(Y0) + 16:.1f}" text-anchor="middle">{x}</text>')
    for y in range(60, 101, 5):
        out.append(f'<line x1="{sx(X0):.1f}" y1="{sy(y):.1f}" x2="{sx(X1):.1f}" y2="{sy(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{sx(X0) - 6:.1f}" y="{sy(y) + 4:.1f}" text-anchor="end">{y}</text>')
    out.append(f'<text x="{(sx(X0) + sx(X1)) / 2:.1f}" y="{H - 12}" text-anchor="middle">'
               "arrived GPU demand (% of capacity)</text>")
    out.append(f'<text x="16" y="{(sy(Y0) + sy(Y1)) / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(sy(Y0) + sy(Y1)) / 2:.1f})">GPU allocated (% of capacity)</text>')
    for i, (policy, color) in enumerate(zip(POLICIES, COLORS)):
        points = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in curves[policy] if x >= X0)
        out.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="1.6"/>')
        for x, y in zip(PUBLISHED_X, PUBLISHED[policy]):
            out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.2" fill="none" stroke="{color}"/>')
        ly = TOP + 18 * i + 10
        out.append(f'<line x1="{W - RIGHT + 12}" y1="{ly}" x2="{W - RIGHT + 32}" y2="{ly}" stroke="{color}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{W - RIGHT + 38}" y="{ly + 4}">{policy}</text>')
    ly = TOP + 18 * len(POLICIES) + 16
    out.append(f'<circle cx="{W - RIGHT + 22}" cy="{ly}" r="3.2" fill="none" stroke="black"/>')
    out.append(f'<text x="{W - RIGHT + 38}" y="{ly + 4}">published (seed 42)</text>')
    out.append(f'<text x="{W - RIGHT + 38}" y="{ly + 22}">lines: gputwin</text>')
    out.append("</svg>")
    with open(svg_path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: openb_chart.py PACK_CSV OUT_SVG")
    main(sys.argv[1], sys.argv[2])
