#!/usr/bin/env python3
"""Exit numbers of every roundabout in an OSM XML extract (.osm or .osm.gz), counted on the raw OSM data without the
Swift code: the ground truth of Tests/RoadNetworkTests/RouteGuideRoundaboutTests.swift.

    python3 scripts/lib/roundabout-exits.py ../shared/data/krems.osm.gz          # every (entry, exit) pair of every ring
    python3 scripts/lib/roundabout-exits.py ../shared/data/krems.osm.gz RING:ENTRY:EXIT ...   # one pair, with the exits

A ring is a closed way tagged junction=roundabout|circular, ridden in its node order. For an entry node, the exit
number of an exit node is the count of the ring's nodes after the entry, up to and including the exit, where another
way a bicycle may use (highway, access, bicycle, vehicle, motorroad, area as in docs/road-network.md, "Access") leaves
the ring in a direction a bicycle may take (oneway, oneway:bicycle, the ring's implied oneway, contraflow cycleway:*
as in "Direction"). An entry needs another such way arriving at the node. Output rows:
ring-way entry-node approach-way exit-node exit-way exit-number.
"""
import gzip
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

CLOSED = {"construction", "proposed", "abandoned", "disused", "corridor", "elevator", "bus_guideway", "raceway", "escape",
          "via_ferrata", "rest_area", "services"}
MOTOR = {"motorway", "motorway_link", "trunk", "trunk_link"}
FORBID = {"no", "private", "agricultural", "forestry", "military", "restricted", "emergency", "delivery", "customers",
          "permit"}
ALLOW = {"yes", "designated", "permissive", "official", "destination"}
RING = ("roundabout", "circular")


def read(path):
    nodes, ways = set(), {}
    opener = gzip.open if path.endswith(".gz") else open
    for _, element in ET.iterparse(opener(path, "rb")):
        if element.tag == "node":
            nodes.add(int(element.get("id")))
        elif element.tag == "way":
            tags = {tag.get("k"): tag.get("v") for tag in element.findall("tag")}
            ways[int(element.get("id"))] = ([int(nd.get("ref")) for nd in element.findall("nd")], tags)
            element.clear()
    return ways


def usable(tags):
    highway = tags.get("highway")
    if not highway or highway in CLOSED or tags.get("area") == "yes":
        return False
    bicycle = tags.get("bicycle")
    if bicycle in FORBID:
        return False
    if bicycle not in ALLOW:
        if any(tags.get(key) in FORBID for key in ("vehicle", "access")):
            return False
        if highway in MOTOR or tags.get("motorroad") == "yes":
            return False
    return True


def directions(tags):
    """(along the node order, against it) for a bicycle."""
    bicycle_oneway = tags.get("oneway:bicycle")
    if bicycle_oneway in ("no", "false", "0"):
        return True, True
    if bicycle_oneway in ("yes", "true", "1"):
        return True, False
    if bicycle_oneway in ("-1", "reverse"):
        return False, True
    oneway = tags.get("oneway")
    if oneway in ("yes", "true", "1") or (oneway is None and (tags.get("junction") in RING or tags.get("highway") in ("motorway", "motorway_link"))):
        one = (True, False)
    elif oneway in ("-1", "reverse"):
        one = (False, True)
    else:
        return True, True
    lanes = [tags.get(key, "") for key in ("cycleway", "cycleway:left", "cycleway:right", "cycleway:both")]
    if any(lane.startswith("opposite") for lane in lanes) or "-1" in (tags.get("cycleway:left:oneway"), tags.get("cycleway:right:oneway")) \
            or "no" in (tags.get("cycleway:left:oneway"), tags.get("cycleway:right:oneway"), tags.get("cycleway:both:oneway")):
        return True, True
    return one


def main():
    ways = read(sys.argv[1])
    at_node = defaultdict(list)
    for way, (nodes, tags) in ways.items():
        if usable(tags):
            for node in nodes:
                at_node[node].append(way)

    def moves(way, node, leaving):
        nodes, tags = ways[way]
        forward, backward = directions(tags)
        for i, other in enumerate(nodes):
            if other != node:
                continue
            if leaving and ((i < len(nodes) - 1 and forward) or (i > 0 and backward)):
                return True
            if not leaving and ((i > 0 and forward) or (i < len(nodes) - 1 and backward)):
                return True
        return False

    def others(node, leaving):
        return [w for w in at_node[node] if ways[w][1].get("junction") not in RING and moves(w, node, leaving)]

    def count(ring, entry, exit):
        cycle = ways[ring][0][:-1]
        i, n, passed = cycle.index(entry), 0, []
        while True:
            i = (i + 1) % len(cycle)
            node = cycle[i]
            if others(node, leaving=True):
                n += 1
                passed.append((node, [(w, ways[w][1].get("name"), ways[w][1].get("highway")) for w in others(node, True)]))
            if node == exit:
                return n, passed

    if len(sys.argv) > 2:
        for argument in sys.argv[2:]:
            ring, entry, exit = map(int, argument.split(":"))
            print(argument, *count(ring, entry, exit))
        return
    for ring, (nodes, tags) in sorted(ways.items()):
        if tags.get("junction") not in RING or not usable(tags) or nodes[0] != nodes[-1]:
            continue
        cycle = nodes[:-1]
        for entry in cycle:
            ins = others(entry, leaving=False)
            if not ins:
                continue
            for exit in cycle:
                outs = others(exit, leaving=True)
                if exit != entry and outs:
                    print(ring, entry, min(ins), exit, min(outs), count(ring, entry, exit)[0])


if __name__ == "__main__":
    main()
