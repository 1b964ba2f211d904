"""Map-matches traces with leuvenmapmatching, the independent peer of Waypoint's HMM map matcher.

Reads one JSON request on stdin (written by `LeuvenPeer` in Shared/RoadNetwork/Matching):
  {"nodes": [[osm_id, lat, lon], ...], "edges": [[from_id, to_id], ...], "traces": [[[lat, lon], ...], ...],
   "sigma": metres, "parameters": {name: value, ...}}
`nodes` are every OSM node of the exported ways (junctions and shape points alike), `edges` every consecutive pair,
once per direction the bike profile allows, so leuven sees the real geometry and answers in OSM node ids. `sigma` is
the fixes' noise (what a phone reports as its accuracy; 0 for exact fixes). `parameters` optionally overrides any of
the entries of `CHOSEN` below (the sweep uses it; the reported figures never do).
Writes {"paths": [[[osm_id, ...], ...], ...], "seconds": [...]}: each trace's matched node sequences, one per piece,
and the wall time of its matching alone (the map is built once, before any timing).

Parameters (`CHOSEN`; s = max(sigma, 4.07 m), 4.07 m being Newson & Krumm's GPS sigma). Read from leuven's
documentation (its OpenStreetMap example: max_dist 100, max_dist_init 25, min_prob_norm 0.001,
non_emitting_length_factor 0.75, obs_noise 50, obs_noise_ne 75, dist_noise 50, max_lattice_width 5) and its source
(matcher/distance.py, base.py), then swept (below):
  fixes thinned to 3 s apart  Newson & Krumm (2009) drop each fix within 2 sigma of the last one kept before matching,
                              and so does our matcher (Meili's interpolation distance). Leuven does not, and on 1 Hz
                              fixes 5 m apart with 10 m of noise its transition (a Gaussian on |distance between the
                              fixes - distance between the states|) is fed mostly noise: it zigzags into side streets
                              to explain it. Mean RMF sigma 5/10/20 m: none 0.07/0.35/1.09, 2 s 0.04/0.14/0.40,
                              3 s 0.03/0.05/0.16, 5 s 0.01/0.12/0.24.
  obs_noise = 3 s             leuven's emission sigma. Its example uses 50 m for phone traces. 2 s: 0.04/0.09/0.23
                              (1 s was worse still in a first sweep): with a sharp emission every sideways fix pulls
                              leuven's single-segment states into a side street.
  obs_noise_ne = 1.5 obs_noise  the example's ratio (75 / 50).
  dist_noise = 2 obs_noise    the example has dist_noise = obs_noise: 0.04/0.07/0.35; 3 obs_noise tied (0.03/0.05/0.15).
  max_dist = max_dist_init = max(15 m, 5 s)
                              a hard cut in leuven (a fix farther from every state stops the match): 5 s keeps noise
                              alone from stopping it; the example's 100 m gave the same.
  max_lattice_width = 8       as many candidates as our matcher keeps. 16: the same at 5 and 10 m, 0.14 at 20 m (one
                              ride better) in 1.8 x the time; 4: 0.04/0.06/0.34.
  min_prob_norm = 0.001, non_emitting_length_factor = 0.75  the example's; a factor 0.5 was equal at 5 and 10 m and
                              worse at 20 m (0.28).
  non_emitting_states = True, avoid_goingback = True (defaults): a step between kept fixes crosses several shape
                              segments, which only non-emitting states allow; without avoid_goingback leuven was twice
                              as bad (first sweep, before thinning).
Sweep: Krems rides of seed 2026 (6 rides of 1.5-3 km per sigma, not the seeds the tests or the figures use); its
figures in docs/road-network.md, "Map matching"; rerun with MapMatchPeerFigures (WAYPOINT_PEER_SWEEP=1), whose
overrides are the keys of `CHOSEN`. The interpreter runs with -O: leuven builds debug strings under `__debug__`;
-O skips them (1.7 x faster, same answers).

Read-back: leuven's answer is its best state sequence (`lattice_best`), one directed segment per state. Leuven's own
transition treats a state and the reverse of its segment as the same edge (straight-line distance between the two
projections: a step back along the street, not a trip through the far node), and it scores "stay on the segment,
going back" and "switch to the reverse segment" alike (one `gobackonedge` factor each). `path_pred_onlynodes` turns
the second into a full traversal there and back, so equal answers of leuven's model would score differently on
directed node pairs. Consecutive states on one segment (either direction) are therefore read as one stay on it,
entered at the node it shares with the stretch before and left at the node it shares with the stretch after (the
first and the last stay run from / to their other node); a stay entered and left at the same node is a ride into
the segment and back, and counts both directions, as leuven said.

Restarts: leuven stops when no state survives a fix (`match` returns the index of the last fix it matched). The trace
is then matched again from the first fix it did not reach, as a new piece; a fix it cannot start from is skipped.
Pieces are kept apart, never joined, so nothing is invented across a stop.
"""
import json
import logging
import sys
import time

from leuvenmapmatching.map.inmem import InMemMap
from leuvenmapmatching.matcher.distance import DistanceMatcher
from leuvenmapmatching.util.dist_latlon import distance

NEWSON_KRUMM_SIGMA = 4.07
# The chosen setting (see the docstring); a factor multiplies s = max(sigma, NEWSON_KRUMM_SIGMA).
CHOSEN = {
    "obs_noise_factor": 3.0,
    "obs_noise_ne_ratio": 1.5,
    "dist_noise_ratio": 2.0,
    "fix_spacing_factor": 3.0,
    "max_dist_factor": 5.0,
    "max_dist_floor": 15.0,
    "min_prob_norm": 0.001,
    "max_lattice_width": 8,
    "non_emitting_length_factor": 0.75,
}


def parameters(sigma, overrides=None):
    """The DistanceMatcher keywords and the fix spacing in metres for fixes of noise `sigma` metres."""
    chosen = dict(CHOSEN, **(overrides or {}))
    s = max(sigma, NEWSON_KRUMM_SIGMA)
    max_dist = max(chosen["max_dist_floor"], chosen["max_dist_factor"] * s)
    keywords = {
        "obs_noise": chosen["obs_noise_factor"] * s,
        "obs_noise_ne": chosen["obs_noise_ne_ratio"] * chosen["obs_noise_factor"] * s,
        "dist_noise": chosen["dist_noise_ratio"] * chosen["obs_noise_factor"] * s,
        "max_dist": max_dist,
        "max_dist_init": max_dist,
        "min_prob_norm": chosen["min_prob_norm"],
        "max_lattice_width": int(chosen["max_lattice_width"]),
        "non_emitting_states": True,
        "non_emitting_length_factor": chosen["non_emitting_length_factor"],
        "avoid_goingback": True,
    }
    return keywords, chosen["fix_spacing_factor"] * s


def thinned(trace, spacing):
    """Newson & Krumm's preprocessing: each fix within `spacing` metres of the last one kept is dropped (the last fix
    of the trace is always kept)."""
    if spacing <= 0 or len(trace) < 3:
        return trace
    kept = [trace[0]]
    for point in trace[1:-1]:
        if distance(kept[-1], point) >= spacing:
            kept.append(point)
    kept.append(trace[-1])
    return kept


def build_map(request):
    graph = InMemMap("waypoint", use_latlon=True, use_rtree=False, index_edges=True)
    for node, lat, lon in request["nodes"]:
        graph.add_node(node, (lat, lon))
    for a, b in request["edges"]:
        graph.add_edge(a, b)
    return graph


def stays(states):
    """Runs of consecutive states on one segment, either direction: [segment as a set, first state, last state]."""
    runs = []
    for a, b in states:
        if a == b:
            continue
        segment = frozenset((a, b))
        if runs and runs[-1][0] == segment:
            runs[-1][2] = (a, b)
        else:
            runs.append([segment, (a, b), (a, b)])
    return runs


def node_sequences(states):
    """The node sequences leuven's state sequence rides (see "Read-back" in the module's docstring)."""
    runs = stays(states)
    sequences, nodes = [], []
    for index, (segment, first, last) in enumerate(runs):
        following = runs[index + 1][0] if index + 1 < len(runs) else None
        shared_after = segment & following if following else frozenset()
        if nodes and nodes[-1] in segment:
            entry = nodes[-1]
        else:
            if len(nodes) > 1:
                sequences.append(nodes)
            alone = segment - shared_after
            entry = next(iter(alone)) if len(alone) == 1 else first[0]
            nodes = [entry]
        other = next(iter(segment - {entry}))
        if following is None:
            nodes.append(other)
        elif len(shared_after) != 1:  # not joined to the next stay (leuven never does this): end the sequence here
            nodes.append(last[1] if last[0] == entry else other)
        elif next(iter(shared_after)) == entry:
            nodes += [other, entry]
        else:
            nodes.append(other)
    if len(nodes) > 1:
        sequences.append(nodes)
    return sequences


def match(graph, trace, keywords):
    """The node sequences of `trace`, restarting after each stop."""
    pieces = []
    start = 0
    while start < len(trace):
        matcher = DistanceMatcher(graph, **keywords)
        try:
            _, last = matcher.match(trace[start:])
        except Exception:  # leuven raises on traces it cannot start; count the fix as unmatched
            last = 0
        pieces += node_sequences([state.shortkey for state in matcher.lattice_best or []])
        start += max(last, 0) + 1
    return pieces


def main():
    logging.getLogger("be.kuleuven.cs.dtai.mapmatching").setLevel(logging.ERROR)
    request = json.load(sys.stdin)
    graph = build_map(request)
    keywords, spacing = parameters(request["sigma"], request.get("parameters"))
    paths, seconds = [], []
    for trace in request["traces"]:
        began = time.perf_counter()
        paths.append(match(graph, thinned([tuple(p) for p in trace], spacing), keywords))
        seconds.append(time.perf_counter() - began)
    json.dump({"paths": paths, "seconds": seconds}, sys.stdout)


if __name__ == "__main__":
    main()
