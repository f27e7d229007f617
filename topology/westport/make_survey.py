#!/usr/bin/env python3
"""Writes the survey files IMDF does not carry (regions.csv, gateways.csv, clients.csv) for the
imported Westport House: an invented beacon in every room (at the room's waypoint) and a beacon
every 8 m of the halls, a gateway every 16 m of the halls. Run once after a first import; the
import keeps these files and links each beacon to its room's waypoint.

    python3 topology/westport/make_survey.py topology/westport
"""
import sys

UUID = "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6"


def contains(p, ring):
    inside = False
    for i in range(len(ring)):
        a, b = ring[i], ring[(i + 1) % len(ring)]
        if (a[1] > p[1]) != (b[1] > p[1]) and p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]:
            inside = not inside
    return inside


def area(ring):
    return abs(sum(ring[i][0] * ring[(i + 1) % len(ring)][1] - ring[(i + 1) % len(ring)][0] * ring[i][1] for i in range(len(ring)))) / 2


def rows(path):
    lines = [l for l in open(path) if l.strip() and not l.startswith("#")]
    header = lines[0].strip().split(",")
    return [dict(zip(header, l.rstrip("\n").split(","))) for l in lines[1:]]


def main(venue):
    rooms = []
    for row in rows(f"{venue}/areas.csv"):
        ring = [tuple(map(float, p.split())) for p in row["polygon"].split(";")]
        rooms.append((row, ring, area(ring)))
    waypoints = {w["id"]: (float(w["x"]), float(w["y"]), w["level"]) for w in rows(f"{venue}/waypoints.csv")}
    levels = sorted({r["level"] for r, _, _ in rooms}, key=lambda l: int(l[1:]))
    regions, gateways = [], []
    minor = {level: 0 for level in levels}
    for level in levels:
        major = levels.index(level) + 1
        for row, ring, _ in rooms:
            if row["level"] != level or row["kind"] == "walkway" or row["id"] not in waypoints:
                continue
            x, y, _ = waypoints[row["id"]]
            minor[level] += 1
            regions.append(f"{level}-{row['kind']}-{minor[level]:02d},{UUID},{major},{minor[level]},{x:.2f},{y:.2f},{level},2,{row['kind']}")
        for row, ring, _ in rooms:
            if row["level"] != level or row["kind"] != "walkway":
                continue
            xs, ys = [p[0] for p in ring], [p[1] for p in ring]
            step = 8
            y = min(ys) + step / 2
            count = 0
            while y < max(ys):
                x = min(xs) + step / 2
                while x < max(xs):
                    inner = [r for r in rooms if r[0]["level"] == level and contains((x, y), r[1])]
                    if inner and min(inner, key=lambda r: r[2])[0]["id"] == row["id"]:
                        minor[level] += 1
                        regions.append(f"{level}-hall-{minor[level]:02d},{UUID},{major},{minor[level]},{x:.2f},{y:.2f},{level},3,hall")
                        if count % 2 == 0:
                            gateways.append(f"{level}-gw-{len(gateways) + 1:02d},{x:.2f},{y:.2f},{level},2.5")
                        count += 1
                    x += step
                y += step
    with open(f"{venue}/regions.csv", "w") as out:
        out.write("# Invented beacons (IMDF has none): one per room at its waypoint, one every 8 m of the halls.\n")
        out.write("id,uuid,major,minor,x,y,level,radius,tags\n" + "\n".join(regions) + "\n")
    with open(f"{venue}/gateways.csv", "w") as out:
        out.write("# Invented gateways: every other hall beacon's place, 2.5 m up.\nid,x,y,level,z\n" + "\n".join(gateways) + "\n")
    with open(f"{venue}/clients.csv", "w") as out:
        out.write("role,uuid,major,namespace,address,note\n")
        out.write("client,5A1D0000-BEAC-4F1E-9E70-000000000001,,,,visitor tags and phones' advertised identities\n")
        out.write("venue,,,,AC:23:3F:00:00:00-AC:23:3F:FF:FF:FF,the venue's beacons (their TLM and URL frames)\n")
    print(f"wrote {len(regions)} regions, {len(gateways)} gateways")


if __name__ == "__main__":
    main(sys.argv[1])
