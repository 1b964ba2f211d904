/// What the ``BikeProfile`` makes of one way: whether and in which directions a bicycle uses it, ridden or pushed, how
/// fast, and what one metre of it weighs.
public struct BikeWayUse: Sendable, Hashable {
    /// Ridden, or pushed on foot (dismount, steps, footways without bicycle access).
    public enum Mode: String, Sendable, Hashable {
        case ride
        case push
    }

    /// Usable in the way's own direction (its node order).
    public var forward: Bool
    /// Usable against it.
    public var backward: Bool
    public var mode: Mode
    /// Speed in km/h.
    public var speed: Double
    /// Preference: > 1 preferred, < 1 avoided.
    public var preference: Double
    /// The way's `highway` value (the class a route's breakdown counts length by).
    public var wayClass: String
    /// Its `surface`, when tagged.
    public var surface: String?
    /// Member of a bicycle route relation.
    public var inCycleNetwork: Bool
    /// Part of a roundabout's ring (`junction=roundabout` or `junction=circular`): guidance folds a ride around it into
    /// one `roundabout` step with an exit number (`docs/road-network.md`, "Guidance").
    public var isRoundabout: Bool = false

    /// Weight of one metre in equivalent metres: (reference speed / speed) / preference.
    public var weightPerMetre: Double

    /// Seconds to travel one metre.
    public var secondsPerMetre: Double { 3.6 / speed }
}

extension BikeProfile {
    /// How a bicycle uses a way with `tags` (`inCycleNetwork`: a member of a `route=bicycle` relation); `nil` when it
    /// may not use it at all (no `highway`, a closed or motor road, access forbidden, an area, impassable).
    public func use(of tags: OSMTags, inCycleNetwork: Bool = false) -> BikeWayUse? {
        guard let highway = tags["highway"], !Self.closedHighways.contains(highway), tags["area"] != "yes" else { return nil }
        let bicycle = tags["bicycle"]
        let bicycleAllowed = bicycle.map(Self.allowingValues.contains) ?? false
        if let bicycle, Self.forbiddingValues.contains(bicycle) { return nil }
        if !bicycleAllowed {
            for key in ["vehicle", "access"] {
                if let value = tags[key], Self.forbiddingValues.contains(value) { return nil }
            }
            if Self.motorHighways.contains(highway) { return nil }
            if tags["motorroad"] == "yes" { return nil }
        }
        let designated = Self.isDesignated(tags)
        let pushed = bicycle == "dismount" || highway == "steps"
            || (["footway", "pedestrian", "platform"].contains(highway) && !bicycleAllowed && !designated)
        guard let speed = speed(highway: highway, tags: tags, bicycleAllowed: bicycleAllowed || designated, pushed: pushed) else {
            return nil
        }
        let (forward, backward) = directions(highway: highway, tags: tags)
        guard forward || backward else { return nil }
        let preference = preference(highway: highway, tags: tags, designated: designated, inCycleNetwork: inCycleNetwork)
        return BikeWayUse(forward: forward, backward: backward, mode: pushed ? .push : .ride, speed: speed, preference: preference,
                          wayClass: highway, surface: tags["surface"], inCycleNetwork: inCycleNetwork,
                          isRoundabout: Self.isRoundabout(tags), weightPerMetre: (referenceSpeed / speed) / preference)
    }

    /// Whether the way is (part of) a roundabout's ring: `junction=roundabout` or `junction=circular`.
    static func isRoundabout(_ tags: OSMTags) -> Bool {
        tags["junction"] == "roundabout" || tags["junction"] == "circular"
    }

    /// Whether the way is designated for bicycles (GraphHopper's rule).
    static func isDesignated(_ tags: OSMTags) -> Bool {
        if let bicycle = tags["bicycle"], bicycle == "designated" || bicycle == "official" { return true }
        if tags["segregated"] == "yes" || tags["bicycle_road"] == "yes" || tags["cyclestreet"] == "yes" { return true }
        return cyclewayValues(tags).contains("track")
    }

    static func cyclewayValues(_ tags: OSMTags) -> Set<String> {
        Set(["cycleway", "cycleway:left", "cycleway:right", "cycleway:both"].compactMap { tags[$0] })
    }

    /// Speed in km/h, or `nil` when the way is impassable.
    func speed(highway: String, tags: OSMTags, bicycleAllowed: Bool, pushed: Bool) -> Double? {
        var speed = highwaySpeeds[highway] ?? pushingSpeed
        var cap: Double?
        if let surface = tags["surface"] {
            // An unknown surface value: no better than a track's.
            cap = surfaceSpeeds[surface] ?? 10
        }
        if let trackType = tags["tracktype"].flatMap({ trackTypeSpeeds[$0] }) { cap = min(cap ?? trackType, trackType) }
        switch highway {
        case "track", "path", "bridleway":
            // Good surfaces make tracks and paths faster than their class suggests.
            if let cap { speed = max(speed, bicycleAllowed || highway == "track" ? cap : cap * 0.7) }
            if bicycleAllowed { speed = max(speed, highway == "track" ? speed : 12) }
            if Self.isDesignated(tags) { speed = max(speed, highwaySpeeds["cycleway"] ?? referenceSpeed) }
        case "footway", "pedestrian", "platform":
            if Self.isDesignated(tags) { speed = max(speed, highwaySpeeds["cycleway"] ?? referenceSpeed) } else if bicycleAllowed { speed = max(speed, 12) }
        default:
            break
        }
        if let cap { speed = min(speed, cap) }
        if let smoothness = tags["smoothness"], let factor = smoothnessFactors[smoothness] {
            guard factor > 0 else { return nil }
            speed *= factor
        }
        if let limit = tags["maxspeed"].flatMap(Double.init), limit > 0 { speed = min(speed, limit) }
        if pushed { speed = min(speed, pushingSpeed) }
        return max(minimumSpeed, speed)
    }

    /// Whether a bicycle may go along the way's node order and against it.
    func directions(highway: String, tags: OSMTags) -> (forward: Bool, backward: Bool) {
        if let bicycleOneway = tags["oneway:bicycle"] {
            switch bicycleOneway {
            case "no", "false", "0": return (true, true)
            case "yes", "true", "1": return (true, false)
            case "-1", "reverse": return (false, true)
            default: break
            }
        }
        let oneway = tags["oneway"]
        var forwardOnly = ["yes", "true", "1"].contains(oneway ?? "")
        let backwardOnly = ["-1", "reverse"].contains(oneway ?? "")
        if oneway == nil, Self.isRoundabout(tags) || highway == "motorway" || highway == "motorway_link" {
            forwardOnly = true
        }
        guard forwardOnly || backwardOnly else { return (true, true) }
        // A contraflow cycle lane or track opens the other direction to bicycles.
        let contraflow = Self.cyclewayValues(tags).contains { $0.hasPrefix("opposite") }
            || tags["cycleway:left:oneway"] == "-1" || tags["cycleway:right:oneway"] == "-1" || tags["cycleway:left:oneway"] == "no"
            || tags["cycleway:right:oneway"] == "no" || tags["cycleway:both:oneway"] == "no"
        if contraflow { return (true, true) }
        return backwardOnly ? (false, true) : (true, false)
    }

    /// The preference factor (GraphHopper's bike priorities, then the cycle network's bonus), within bounds.
    func preference(highway: String, tags: OSMTags, designated: Bool, inCycleNetwork: Bool) -> Double {
        var preference = classPreferences[highway] ?? 1.0
        let lanes: Set<String> = ["lane", "shared_lane", "share_busway", "opposite_lane", "opposite_track", "shoulder"]
        if highway == "cycleway" {
            let sharedWithWalkers = tags["foot"] == "yes" && tags["segregated"] != "yes"
            preference = sharedWithWalkers ? (classPreferences["cycleway"] ?? 1.3) - 0.1 : classPreferences["cycleway"] ?? 1.3
        } else if designated, highway != "steps" {
            preference = ["path", "track", "bridleway"].contains(highway) && ["paved", "asphalt", "concrete"].contains(tags["surface"] ?? "")
                ? designatedPreference + 0.1 : designatedPreference
        } else if !Self.cyclewayValues(tags).isDisjoint(with: lanes) {
            preference = laneFactor
        } else if tags["bicycle"] == "use_sidepath" {
            preference = sidepathPreference
        }
        if inCycleNetwork { preference *= cycleNetworkFactor }
        return min(maximumPreference, max(minimumPreference, preference))
    }
}
