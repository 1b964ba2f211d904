"""Map-matches traces with leuvenmapmatching, the independent peer of Waypoint's HMM map matcher.

Reads one JSON request on stdin (written by `LeuvenPeer` in Shared/RoadNetwork/Matching):
  {"nodes": [[osm_id, lat, lon], ...], "edges": [[from_id, to_id], ...]  (directed, one per allowed direction),
   "traces": [[[lat, lon], ...], ...], "sigma": metres, "max_dist": metres, "lattice_width": n}
and writes {"paths": [[[osm_id, ...], ...], ...], "seconds": [...]}: each trace's matched node sequences, one per piece
(a trace the matcher cannot follow to its end is matched again from the first fix it did not reach, as a new piece),
and the wall time of its matching alone (the map is built once, before any timing).

Parameters, chosen to be comparable to Waypoint's: obs_noise = the fixes' σ (our emission σ), obs_noise_ne = 1.5 σ,
dist_noise = σ (leuven's Gaussian on |route − great-circle| plays our exponential's part), max_dist = max_dist_init =
our search radius, max_lattice_width = our candidate cap, non-emitting states on (leuven's way of crossing short
edges between fixes), non_emitting_length_factor 0.75 and min_prob_norm 0.001 as in leuven's own examples.
"""
import json
import sys
import time

from leuvenmapmatching.map.inmem import InMemMap
from leuvenmapmatching.matcher.distance import DistanceMatcher


def build_map(request):
    graph = InMemMap("waypoint", use_latlon=True, use_rtree=False, index_edges=True)
    for node, lat, lon in request["nodes"]:
        graph.add_node(node, (lat, lon))
    for a, b in request["edges"]:
        graph.add_edge(a, b)
    return graph


def match(graph, trace, request):
    sigma = request["sigma"]
    pieces = []
    start = 0
    while start < len(trace):
        matcher = DistanceMatcher(graph, max_dist=request["max_dist"], max_dist_init=request["max_dist"],
                                  obs_noise=sigma, obs_noise_ne=1.5 * sigma, dist_noise=sigma,
                                  non_emitting_states=True, non_emitting_length_factor=0.75,
                                  min_prob_norm=0.001, max_lattice_width=request["lattice_width"])
        try:
            _, last = matcher.match(trace[start:])
        except Exception:  # leuven raises on traces it cannot start; count the fix as unmatched
            last = 0
        nodes = []
        for node in matcher.path_pred_onlynodes or []:
            if not nodes or nodes[-1] != node:
                nodes.append(node)
        if nodes:
            pieces.append(nodes)
        start += max(last, 0) + 1
    return pieces


def main():
    request = json.load(sys.stdin)
    graph = build_map(request)
    paths, seconds = [], []
    for trace in request["traces"]:
        began = time.perf_counter()
        paths.append(match(graph, [tuple(p) for p in trace], request))
        seconds.append(time.perf_counter() - began)
    json.dump({"paths": paths, "seconds": seconds}, sys.stdout)


if __name__ == "__main__":
    main()
