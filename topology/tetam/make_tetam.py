#!/usr/bin/env python3
"""Writes topology/tetam from the tetam-tracks dataset's sensor file (cnf/tetam.dev).

Usage: python3 topology/tetam/make_tetam.py ../shared/data/datasets/tetam-tracks topology/tetam

The room is 20.66 x 17.64 m (cnf/tetam.par "limits"). Regions every 2 m (centres at 1, 3, ..., 19
by 1, 3, ..., 17: 10 x 9 = 90), radius 1 m, each with an invented iBeacon identity (there are no
real fixed beacons in that room): major 1, minor = 100 * row + column. Walkable links join each
region to its 8 neighbours (diagonals included), so walking distance is close to the straight line
in this open room (furniture and columns are not modelled). The 12 sensors are the gateways, with
their 3-D positions (z = antenna height).
"""
import ast, os, sys

source, out = sys.argv[1], sys.argv[2]
uuid = "7E7A0000-0000-4000-8000-000000000001"
sensors = {}
for line in open(os.path.join(source, "cnf", "tetam.dev")):
    if line.startswith("Dongles:"):
        for mac, (pos, _, alias) in ast.literal_eval(line[len("Dongles:"):].strip()).items():
            sensors[alias] = (mac, pos)
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "venue.conf"), "w") as f:
    f.write("# The tetam room of the tetam-tracks dataset (philotuxo, CC0 1.0); written by make_tetam.py.\n")
    f.write("name = tetam\nuuid = %s\nbudget = 20\n" % uuid)
    f.write("# Grid regions 2 m apart: low-power beacons (2.5 m detection) so a phone is not inside more than its slots.\n")
    f.write("power = -85\n")
    f.write("# The position filter of the room (docs/calibration.md, tetam): readings spread 6 dB around the line;\n")
    f.write("# the filter tracks a velocity (gain 0.1, walking speed 1.2 m/s) so its estimate does not trail the walker.\n")
    f.write("shadowing = 6\nwalking-speed = 1.2\nvelocity-gain = 0.1\n")
    f.write("# Every sensor hears the beacon in almost every window: an estimate uses all twelve, not the default eight strongest.\n")
    f.write("anchors-per-estimate = 12\n")
with open(os.path.join(out, "levels.csv"), "w") as f:
    f.write("id,name,elevation\nroom,tetam room (20.66 x 17.64 m),0\n")
cols, rows = range(10), range(9)
def rid(r, c): return "g-%d-%d" % (r, c)
with open(os.path.join(out, "regions.csv"), "w") as f:
    f.write("# A grid of regions every 2 m; row r at y = 2r + 1, column c at x = 2c + 1.\n")
    f.write("id,uuid,major,minor,x,y,level,radius,tags\n")
    for r in rows:
        for c in cols:
            f.write("%s,,1,%d,%d,%d,room,1,\n" % (rid(r, c), 100 * r + c, 2 * c + 1, 2 * r + 1))
with open(os.path.join(out, "gateways.csv"), "w") as f:
    f.write("# The 12 BLE sensors of cnf/tetam.dev (id = alias; the MAC is in the comment).\nid,x,y,level,z\n")
    for alias in sorted(sensors):
        mac, (x, y, z) = sensors[alias]
        f.write("%s,%s,%s,room,%s  # %s\n" % (alias, x, y, z, mac))
with open(os.path.join(out, "links.csv"), "w") as f:
    f.write("# Each region to its east, north, north-east and north-west neighbours (straight-line distances).\n")
    f.write("from,to,distance,kind\n")
    for r in rows:
        for c in cols:
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                r2, c2 = r + dr, c + dc
                if r2 in rows and c2 in cols:
                    f.write("%s,%s,,\n" % (rid(r, c), rid(r2, c2)))
with open(os.path.join(out, "clients.csv"), "w") as f:
    f.write("# Which identities heard by the sensors are clients (topology/README.md): the simulated tags.\n")
    f.write("role,uuid,major,namespace,address,note\n")
    f.write("client,5A1D0000-BEAC-4F1E-9E70-000000000001,,,,simulated tags and phones\n")
