"""gpxpy's own figures for one GPX file, as JSON on stdout (the peer of RecordTripAnalysis' statistics and GPX).

Usage: gpxpy_stats.py FILE.gpx
Prints: length_2d, moving data (get_moving_data with its defaults: 1 km/h stopped threshold, top 5 % of speeds
ignored), uphill/downhill (get_uphill_downhill: 0.3/0.4/0.3 smoothing), and every track point as gpxpy parsed it
(lat, lon, ele, time as epoch seconds, Garmin TrackPointExtension speed/course, count of AccelerationExtension
accel elements).
"""
import json
import sys

import gpxpy


def local(tag):
    return tag.rsplit('}', 1)[-1]


def point_record(point):
    record = {
        "lat": point.latitude,
        "lon": point.longitude,
        "ele": point.elevation,
        "time": point.time.timestamp() if point.time else None,
        "speed": None,
        "course": None,
        "accel": 0,
    }
    for extension in point.extensions:
        for element in extension.iter():
            name = local(element.tag)
            if name in ("speed", "course") and element.text:
                record[name] = float(element.text)
            elif name == "accel":
                record["accel"] += 1
    return record


def main(path):
    with open(path, encoding="utf-8") as handle:
        gpx = gpxpy.parse(handle)
    moving = gpx.get_moving_data()
    updown = gpx.get_uphill_downhill()
    points = [point_record(p) for track in gpx.tracks for segment in track.segments for p in segment.points]
    json.dump({
        "length2d": gpx.length_2d(),
        "movingTime": moving.moving_time,
        "stoppedTime": moving.stopped_time,
        "maxSpeed": moving.max_speed,
        "uphill": updown.uphill,
        "downhill": updown.downhill,
        "segments": sum(len(track.segments) for track in gpx.tracks),
        "points": points,
    }, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
