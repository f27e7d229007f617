#!/usr/bin/env python3
"""Writes topology/flat-walk from the flat-walk dataset (Kolakowski, Sensors 21:6270, 2021;
Zenodo 10.5281/zenodo.5457591, CC BY 4.0): a furnished flat with six BLE anchors.

Usage: python3 topology/flat-walk/make_flat.py ../shared/data/datasets/flat-walk topology/flat-walk

The anchors (anchors.csv, metres, with their heights) are the gateways. The rooms are drawn by hand
from the floor outline (layout.csv), which traces the walls, their thickness and the gaps between
them; a room boundary runs along the middle of its wall. The dataset does not name the rooms, so
they are named by where they lie:

  hall          x 0-3.97, y 0-2.1     the entrance band along the south wall
  south-east    x 3.97-6.3, y 0-2.02  reached from the hall through a 0.8 m door (x 3.88-4.05, y 0.6-1.42)
  west          x 0-2.64, y 2.1-7.1   reached from the hall through a 0.8 m door (x 0.73-1.52)
  central       x 2.64-6.32, y 2.1-7.1  open to the hall over x 2.7-3.88
  east          x 6.32-9.07, y 4.19-7.1  open to the central room over y 4.82-7.1 (a wall stub below)

A waypoint in each room and in each doorway, linked room - doorway - room, is what makes two rooms
neighbours (docs/topology.md, room presence). There are no fixed beacons in the flat: regions.csv
holds one invented region per room (not heard by anything), because every venue needs regions.
"""
import csv, os, sys

source, out = sys.argv[1], sys.argv[2]
UUID = "F1A70000-0000-4000-8000-000000000001"
anchors = list(csv.DictReader(open(os.path.join(source, "anchors.csv"))))
rooms = [
    ("hall", "Hall", "walkway", [(0, 0), (3.965, 0), (3.965, 2.1), (0, 2.1)], (1.9, 1.05)),
    ("south-east", "South-east room", "room", [(3.965, 0), (6.3, 0), (6.3, 2.02), (3.965, 2.02)], (5.1, 1.0)),
    ("west", "West room", "room", [(0, 2.1), (2.64, 2.1), (2.64, 7.2), (0, 7.2)], (1.3, 4.6)),
    ("central", "Central room", "room", [(2.64, 2.1), (3.965, 2.1), (3.965, 2.02), (6.32, 2.02), (6.32, 7.2), (2.64, 7.2)], (4.5, 4.6)),
    ("east", "East room", "room", [(6.32, 4.1), (9.2, 4.1), (9.2, 7.2), (6.32, 7.2)], (7.7, 5.65)),
]
doors = [  # (id, x, y, room, room, kind)
    ("door-hall-west", 1.125, 2.1, "hall", "west", "door"),
    ("door-hall-south-east", 3.965, 1.01, "hall", "south-east", "door"),
    ("opening-hall-central", 3.29, 2.1, "hall", "central", "walk"),
    ("opening-central-east", 6.32, 5.96, "central", "east", "walk"),
]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "venue.conf"), "w") as f:
    f.write("# The flat of the flat-walk dataset (Kolakowski 2021, CC BY 4.0); written by make_flat.py.\n")
    f.write("name = flat-walk\nuuid = %s\nbudget = 20\n" % UUID)
    f.write("# The anchors' line, least squares over the robot's run (every anchor, 3-D distance, tag 0.5 m up):\n")
    f.write("# -44 dBm at 1 m, exponent 2.4, readings spread 6.8 dB around it (walls and furniture).\n")
    f.write("path-loss-exponent = 2.4\nshadowing = 6.8\n")
    f.write("# All six anchors hear the tag in almost every window.\nanchors-per-estimate = 6\n")
with open(os.path.join(out, "levels.csv"), "w") as f:
    f.write("id,name,elevation\nflat,the flat (9.07 x 7.1 m),0\n")
with open(os.path.join(out, "areas.csv"), "w") as f:
    f.write("# Rooms drawn from layout.csv (see make_flat.py): boundaries along the middle of the walls.\n")
    f.write("id,level,name,kind,polygon\n")
    for rid, name, kind, ring, _ in rooms:
        f.write("%s,flat,%s,%s,%s\n" % (rid, name, kind, ";".join("%g %g" % p for p in ring)))
with open(os.path.join(out, "waypoints.csv"), "w") as f:
    f.write("# A waypoint in each doorway and opening; the rooms' own points are the regions.\nid,x,y,level\n")
    for did, x, y, _, _, _ in doors:
        f.write("%s,%g,%g,flat\n" % (did, x, y))
with open(os.path.join(out, "regions.csv"), "w") as f:
    f.write("# One invented region per room (there are no fixed beacons in the flat).\n")
    f.write("id,uuid,major,minor,x,y,level,radius,tags\n")
    for minor, (rid, _, _, _, (x, y)) in enumerate(rooms, start=1):
        f.write("%s,,1,%d,%g,%g,flat,1,\n" % (rid, minor, x, y))
with open(os.path.join(out, "links.csv"), "w") as f:
    f.write("# Room - doorway - room.\nfrom,to,distance,kind\n")
    for did, _, _, a, b, kind in doors:
        f.write("%s,%s,,%s\n%s,%s,,%s\n" % (a, did, kind, did, b, kind))
with open(os.path.join(out, "gateways.csv"), "w") as f:
    f.write("# The six anchors of anchors.csv (anchor-N is the dataset's anchor N), with their heights.\nid,x,y,level,z\n")
    for a in anchors:
        f.write("anchor-%s,%s,%s,flat,%s\n" % (a["id"], a["x"], a["y"], a["z"]))
with open(os.path.join(out, "clients.csv"), "w") as f:
    f.write("# The carried tag as the replay presents it (the simulated tags' UUID).\n")
    f.write("role,uuid,major,namespace,address,note\n")
    f.write("client,5A1D0000-BEAC-4F1E-9E70-000000000001,,,,the flat-walk tag\n")
