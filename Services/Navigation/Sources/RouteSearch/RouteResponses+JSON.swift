import Contracts
import ServiceKit

// The route search's answer writes itself (``JSONWritableResponse``): with steps and alternatives it is a few hundred
// members per route, and `JSONEncoder` took as much of a search's CPU as the router (a profile of 200 searches a
// second: encoding 26 % of the process, the router 26 %). Members in declaration order as the synthesised (or written)
// `Encodable` conformances above write them; a dictionary's members by key. Debug builds check every answer against
// `JSONEncoder`, and `RouteResponseJSONTests` compares random plans' answers with it.

extension RouteSearchResponse: JSONWritableResponse {
    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("code", code)
            output.member("routes", routes)
            output.member("waypoints", waypoints)
        }
    }
}

extension RouteGeometry: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        switch self {
        case .polyline6(let text):
            output.value(text)
        case .lineString(let positions):
            output.object { output in
                output.member("type", "LineString")
                output.key("coordinates")
                output.array(of: positions) { output, position in
                    output.array(of: position) { output, number in output.value(number) }
                }
            }
        }
    }
}

extension WaypointResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("name", name)
            output.member("location", location)
            output.member("distance", distance)
        }
    }
}

extension RouteResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("distance", distance)
            output.member("duration", duration)
            output.member("weight", weight)
            output.member("weight_name", weightName)
            output.member("score", score)
            output.member("geometry", geometry)
            output.member("legs", legs)
            output.member("paths", paths)
            output.member("obstacles", obstacles)
        }
    }
}

extension ScoreResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("total", total)
            output.member("weight", weight)
            output.member("metresByWayClass", metresByWayClass)
            output.member("metresByPathStatus", metresByPathStatus)
            output.member("obstacles", obstacles)
            output.member("obstaclePenalty", obstaclePenalty)
            output.member("turns", turns)
            output.member("turnCost", turnCost)
        }
    }
}

extension PathStretchResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("id", id)
            output.member("name", name)
            output.member("condition", condition)
            output.member("fromMetres", fromMetres)
            output.member("toMetres", toMetres)
        }
    }
}

extension ObstacleResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("id", id)
            output.member("pathId", pathId)
            output.member("type", type)
            output.member("confidence", confidence)
            output.member("location", location)
            output.member("atMetres", atMetres)
            output.member("penalty", penalty)
        }
    }
}

extension LegResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("distance", distance)
            output.member("duration", duration)
            output.member("weight", weight)
            output.member("summary", summary)
            output.member("steps", steps)
        }
    }
}

extension StepResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("distance", distance)
            output.member("duration", duration)
            output.member("weight", weight)
            output.member("name", name)
            output.member("ref", ref)
            output.member("mode", mode)
            output.member("driving_side", drivingSide)
            output.member("wayClass", wayClass)
            output.member("geometry", geometry)
            output.member("maneuver", maneuver)
            output.member("voiceInstructions", voiceInstructions)
        }
    }
}

extension VoiceInstructionResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("distanceAlongGeometry", distanceAlongGeometry)
            output.member("phase", phase)
            output.member("announcement", announcement)
        }
    }
}

extension ManeuverResponse: JSONWritable {
    static var jsonStyle: JSONOutput.Style { .service }

    func write(to output: inout JSONOutput) {
        output.object { output in
            output.member("type", type)
            output.member("modifier", modifier)
            output.member("location", location)
            output.member("bearing_before", bearingBefore)
            output.member("bearing_after", bearingAfter)
            output.member("exit", exit)
            output.member("instruction", instruction)
        }
    }
}
