import Testing
@testable import RoadNetwork

@Suite("The bike profile")
struct BikeProfileTests {
    let profile = BikeProfile()

    func use(_ tags: [(String, String)], network: Bool = false) -> BikeWayUse? {
        profile.use(of: OSMTags(tags.map { (key: $0.0, value: $0.1) }), inCycleNetwork: network)
    }

    @Test("cycleways are ridden both ways at cruising speed and preferred; primary roads are avoided")
    func classes() throws {
        let cycleway = try #require(use([("highway", "cycleway")]))
        #expect(cycleway.forward && cycleway.backward && cycleway.mode == .ride)
        #expect(cycleway.speed == 18 && cycleway.preference == 1.3)
        #expect(abs(cycleway.weightPerMetre - 1 / 1.3) < 1e-12)
        let primary = try #require(use([("highway", "primary")]))
        #expect(primary.preference == 0.5 && primary.weightPerMetre == 2)
        let shared = try #require(use([("highway", "cycleway"), ("foot", "yes")]))
        #expect(shared.preference < cycleway.preference)
        #expect(try #require(use([("highway", "residential")])).preference == 1.2)
    }

    @Test("ways a bicycle may not use", arguments: [
        [("building", "yes")], [("highway", "construction")], [("highway", "motorway")], [("highway", "trunk")],
        [("highway", "residential"), ("bicycle", "no")], [("highway", "service"), ("access", "private")],
        [("highway", "track"), ("vehicle", "agricultural")], [("highway", "pedestrian"), ("area", "yes")],
        [("highway", "residential"), ("smoothness", "impassable")], [("highway", "primary"), ("motorroad", "yes")],
    ])
    func forbidden(tags: [(String, String)]) {
        #expect(use(tags) == nil)
    }

    @Test("an explicit bicycle permission wins over general access and motor roads")
    func permissions() throws {
        #expect(use([("highway", "service"), ("access", "no"), ("bicycle", "yes")]) != nil)
        let trunk = try #require(use([("highway", "trunk"), ("bicycle", "yes")]))
        #expect(trunk.preference == 0.1 && trunk.forward && trunk.backward)
        let motorway = try #require(use([("highway", "motorway"), ("bicycle", "designated")]))
        #expect(motorway.forward && !motorway.backward)  // motorways are one way unless tagged otherwise
    }

    @Test("one-way streets, bicycle exceptions and contraflow lanes")
    func directions() throws {
        let oneway = try #require(use([("highway", "residential"), ("oneway", "yes")]))
        #expect(oneway.forward && !oneway.backward)
        let reverse = try #require(use([("highway", "residential"), ("oneway", "-1")]))
        #expect(!reverse.forward && reverse.backward)
        let roundabout = try #require(use([("highway", "tertiary"), ("junction", "roundabout")]))
        #expect(roundabout.forward && !roundabout.backward)
        for exception in [[("oneway:bicycle", "no")], [("cycleway", "opposite")], [("cycleway:left", "opposite_lane")],
                          [("cycleway:left:oneway", "-1")]] {
            let open = try #require(use([("highway", "residential"), ("oneway", "yes")] + exception))
            #expect(open.forward && open.backward, "\(exception)")
        }
        let bikeOneway = try #require(use([("highway", "cycleway"), ("oneway:bicycle", "yes")]))
        #expect(bikeOneway.forward && !bikeOneway.backward)
    }

    @Test("steps, dismount and footways are pushed; designated footways are ridden")
    func pushing() throws {
        let steps = try #require(use([("highway", "steps")]))
        #expect(steps.mode == .push && steps.speed == 4 && steps.preference == 0.5)
        let dismount = try #require(use([("highway", "residential"), ("bicycle", "dismount")]))
        #expect(dismount.mode == .push && dismount.speed == 4)
        let footway = try #require(use([("highway", "footway")]))
        #expect(footway.mode == .push && footway.speed == 4 && footway.preference == 0.9)
        let designated = try #require(use([("highway", "footway"), ("bicycle", "designated")]))
        #expect(designated.mode == .ride && designated.speed == 18 && designated.preference == 1.2)
    }

    @Test("surface, track grade, smoothness and maxspeed slow a way down")
    func speeds() throws {
        #expect(try #require(use([("highway", "residential"), ("surface", "cobblestone")])).speed == 8)
        #expect(try #require(use([("highway", "track"), ("tracktype", "grade3")])).speed == 8)
        #expect(abs(try #require(use([("highway", "residential"), ("smoothness", "bad")])).speed - 12.6) < 1e-9)
        #expect(try #require(use([("highway", "living_street")])).speed == 6)
        #expect(try #require(use([("highway", "residential"), ("maxspeed", "10")])).speed == 10)
        #expect(try #require(use([("highway", "residential"), ("surface", "ice")])).speed == 2)
        // A designated path on asphalt is as fast as a cycleway and preferred.
        let path = try #require(use([("highway", "path"), ("bicycle", "designated"), ("surface", "asphalt")]))
        #expect(path.speed == 18 && abs(path.preference - 1.3) < 1e-12)
    }

    @Test("cycle lanes and tracks lift busy roads; use_sidepath pushes a road down; cycle networks add a bonus")
    func preferences() throws {
        #expect(try #require(use([("highway", "primary"), ("cycleway", "track")])).preference == 1.2)
        #expect(try #require(use([("highway", "secondary"), ("cycleway:right", "lane")])).preference == 1.1)
        #expect(try #require(use([("highway", "tertiary"), ("bicycle", "use_sidepath")])).preference == 0.1)
        let member = try #require(use([("highway", "residential")], network: true))
        #expect(abs(member.preference - 1.38) < 1e-12)
        #expect(abs(try #require(use([("highway", "cycleway")], network: true)).preference - 1.495) < 1e-12)
        #expect(profile.version == 1)
    }
}
