#!/usr/bin/env python3
"""Converts WRLD's Westport House indoor map (WRLD Indoor Map Format, CC BY 4.0) into an IMDF
archive, the input of `beaconfleet topology import-imdf`.

    python3 topology/westport/wrld_to_imdf.py WRLD_DIR topology/westport/westport-house-imdf.zip

WRLD_DIR holds main.json and westport-house-floor-*.geojson from
https://github.com/wrld3d/wrld-indoor-maps-api/tree/master/examples/westport-house (commit
fbe91a09bac45407e99e54b9315f56fe3f5de2f9). Only the standard library is used; the output is the
same byte for byte for the same input.

Mapping (WRLD draws walls, not corridors):
- the ground, first and second floors (the three with rooms and paths) → levels, ordinal = z_order;
- each floor's `building_outline` → a `walkway` unit whose holes are the floor's other units;
- `room`, `bathroom` (restroom), `stairs`, `elevator`, `inaccessible_space` (nonpublic) → units;
- `door` rectangles within 0.75 m of a room's outline → openings: a LineString along the door's
  long axis (the wall), through its middle;
- stairs (and lifts) whose outlines overlap on consecutive floors → `stairs` / `elevator`
  relationships from the lower unit to the upper one.
"""
import json, math, sys, uuid, zipfile

FLOORS = ["westport-house-floor-gf", "westport-house-floor-1", "westport-house-floor-2"]
CATEGORY = {"room": "room", "bathroom": "restroom", "stairs": "stairs", "elevator": "elevator",
            "inaccessible_space": "nonpublic"}
NAMESPACE = uuid.UUID("5A1D0000-BEAC-4F1E-9E70-00000000A001")


def fid(*parts):
    return str(uuid.uuid5(NAMESPACE, "/".join(str(p) for p in parts)))


def local(origin):
    lat0 = math.radians(origin[1])
    def project(p):
        return ((p[0] - origin[0]) * math.pi / 180 * 6378137 * math.cos(lat0), (p[1] - origin[1]) * math.pi / 180 * 6378137)
    return project


def segment_distance(p, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = dx * dx + dy * dy
    t = 0 if length == 0 else max(0, min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length))
    return math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1])


def boundary_distance(p, ring):
    return min(segment_distance(p, ring[i], ring[i + 1]) for i in range(len(ring) - 1))


def contains(p, ring):
    inside = False
    for i in range(len(ring) - 1):
        a, b = ring[i], ring[i + 1]
        if (a[1] > p[1]) != (b[1] > p[1]) and p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]:
            inside = not inside
    return inside


def centroid(ring):
    pts = ring[:-1]
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def door_line(ring):
    """The door's long axis through its middle: between the middles of its two short edges."""
    pts = ring[:-1]
    if len(pts) != 4:
        c = centroid(ring)
        return [c, c]
    edges = [(pts[i], pts[(i + 1) % 4]) for i in range(4)]
    lengths = [math.dist(a, b) for a, b in edges]
    short = sorted(range(4), key=lambda i: lengths[i])[:2]
    mids = [((edges[i][0][0] + edges[i][1][0]) / 2, (edges[i][0][1] + edges[i][1][1]) / 2) for i in sorted(short)]
    return mids


def feature(kind, ident, geometry, properties):
    return {"id": ident, "type": "Feature", "feature_type": kind, "geometry": geometry, "properties": properties}


def label(text):
    return {"en": text} if text else None


def main(source, out):
    main_json = json.load(open(f"{source}/main.json"))
    origin = main_json["location"]["coordinates"]
    project = local(origin)
    venue_id, building_id = fid("venue"), fid("building")
    levels, units, openings, relationships, footprints = [], [], [], [], []
    floor_units = []  # per floor: [(unit feature, local ring)]
    for level in main_json["levels"]:
        if level["id"] not in FLOORS:
            continue
        level_id = fid("level", level["id"])
        data = json.load(open(f"{source}/{level['filename']}"))
        outline = next(f for f in data["features"] if f["properties"]["type"] == "building_outline")
        outline_ring = outline["geometry"]["coordinates"][0]
        levels.append(feature("level", level_id, outline["geometry"], {
            "category": "unspecified", "restriction": None, "outdoor": False, "ordinal": level["z_order"],
            "name": label(level["readable_name"]), "short_name": label(level["name"]), "display_point": None,
            "address_id": None, "building_ids": [building_id]}))
        if level["z_order"] == 0:
            footprints.append(feature("footprint", fid("footprint"), outline["geometry"],
                                      {"category": "ground", "name": None, "building_ids": [building_id]}))
        rooms = []
        for f in data["features"]:
            kind = f["properties"]["type"]
            if kind not in CATEGORY or f["geometry"]["type"] != "Polygon":
                continue
            ring = f["geometry"]["coordinates"][0]
            name = f["properties"].get("name") or {"stairs": "Stairs", "elevator": "Lift", "inaccessible_space": "Plant"}.get(kind, kind.title())
            unit = feature("unit", fid("unit", level["id"], f["properties"]["id"]), {"type": "Polygon", "coordinates": [ring]}, {
                "category": CATEGORY[kind], "restriction": None, "accessibility": None, "name": label(name), "alt_name": None,
                "level_id": level_id, "display_point": None})
            rooms.append((unit, [project(p) for p in ring]))
        walkway = feature("unit", fid("unit", level["id"], "walkway"), {
            "type": "Polygon", "coordinates": [outline_ring] + [u["geometry"]["coordinates"][0] for u, _ in rooms]}, {
            "category": "walkway", "restriction": None, "accessibility": None,
            "name": label(f"{level['readable_name']} hall"), "alt_name": None, "level_id": level_id, "display_point": None})
        units += [walkway] + [u for u, _ in rooms]
        floor_units.append((level["z_order"], rooms))
        for f in data["features"]:
            if f["properties"]["type"] != "door":
                continue
            ring = f["geometry"]["coordinates"][0]
            middle = project(centroid(ring))
            if not any(boundary_distance(middle, local_ring) <= 0.75 for _, local_ring in rooms):
                continue
            openings.append(feature("opening", fid("opening", level["id"], f["properties"]["id"]),
                                    {"type": "LineString", "coordinates": door_line(ring)}, {
                "category": "pedestrian", "accessibility": None, "access_control": None, "door": None,
                "name": None, "alt_name": None, "display_point": None, "level_id": level_id}))
    # Stairs and lifts stacked on consecutive floors.
    floor_units.sort(key=lambda x: x[0])
    for (_, lower), (_, upper) in zip(floor_units, floor_units[1:]):
        for a, ring_a in lower:
            category = a["properties"]["category"]
            if category not in ("stairs", "elevator"):
                continue
            for b, ring_b in upper:
                if b["properties"]["category"] == category and (contains(centroid(ring_b), ring_a) or contains(centroid(ring_a), ring_b)):
                    relationships.append(feature("relationship", fid("relationship", a["id"], b["id"]), None, {
                        "category": category, "direction": "undirected",
                        "origin": {"id": a["id"], "feature_type": "unit"}, "intermediary": None,
                        "destination": {"id": b["id"], "feature_type": "unit"}, "hours": None}))
    display = {"type": "Point", "coordinates": origin}
    venue = feature("venue", venue_id, levels[0]["geometry"], {
        "category": "businesscampus", "restriction": None, "name": label("Westport House"), "alt_name": None,
        "hours": None, "phone": None, "website": "https://github.com/wrld3d/wrld-indoor-maps-api",
        "display_point": display, "address_id": None})
    building = feature("building", building_id, None, {
        "name": label("Westport House"), "alt_name": None, "category": "unspecified", "restriction": None,
        "display_point": display, "address_id": None})
    files = {
        "manifest.json": {"version": "1.0.0", "created": "2022-01-28T13:39:44Z", "language": "en",
                          "generated_by": "topology/westport/wrld_to_imdf.py from WRLD's Westport House (CC BY 4.0)"},
        "venue.geojson": [venue], "building.geojson": [building], "footprint.geojson": footprints,
        "level.geojson": levels, "unit.geojson": units, "opening.geojson": openings,
        "relationship.geojson": relationships,
    }
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            body = content if name == "manifest.json" else {"type": "FeatureCollection", "features": content}
            info = zipfile.ZipInfo(name, date_time=(2022, 1, 28, 13, 39, 44))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, json.dumps(body, indent=1) + "\n")
    print(f"wrote {out}: {len(levels)} levels, {len(units)} units, {len(openings)} openings, {len(relationships)} relationships")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
