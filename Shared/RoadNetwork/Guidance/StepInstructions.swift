/// The words of a step, in English or German, as a rider hears them: "Turn left onto Ringstraße", "In 200 m, turn
/// right", "Enter the roundabout and take the 2nd exit onto Ringstraße", "You have arrived" (`docs/road-network.md`, "Guidance"; osrm-text-instructions' v5 phrases as the model).
public enum InstructionLanguage: String, Sendable, Hashable, CaseIterable {
    case en, de
}

/// When a bicycle hears a step's instruction: an early alert, a pre-turn warning and "now" — by time at the rider's
/// speed, never nearer than each phase's minimum (a cyclist needs room to look, signal and change lanes, and a car
/// navigator's "in 500 m" comes far too early at 15 km/h while "now" comes too late at 30).
public struct Announcements: Sendable, Hashable {
    /// Seconds before the maneuver (at the current speed) and the nearest each may come, metres.
    public var alertSeconds = 30.0, alertMinimum = 150.0
    public var preTurnSeconds = 10.0, preTurnMinimum = 40.0
    public var nowSeconds = 3.0, nowMinimum = 10.0
    /// Speed assumed without a reading (m/s, 18 km/h).
    public var defaultSpeed = 5.0

    public init() {}

    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case alert, preTurn = "pre-turn", now
    }

    /// Metres before the maneuver at which `phase` is announced, at `speed` m/s (negative or missing: the default).
    public func distance(_ phase: Phase, speed: Double?) -> Double {
        let v = speed.flatMap { $0.isFinite && $0 > 0.5 ? $0 : nil } ?? defaultSpeed
        switch phase {
        case .alert: return max(alertMinimum, alertSeconds * v)
        case .preTurn: return max(preTurnMinimum, preTurnSeconds * v)
        case .now: return max(nowMinimum, nowSeconds * v)
        }
    }

    /// The phase due `remaining` metres before a maneuver at `speed`: the nearest phase whose distance has been
    /// reached, `nil` while still before the alert.
    public func phase(remaining: Double, speed: Double?) -> Phase? {
        for phase in [Phase.now, .preTurn, .alert] where remaining <= distance(phase, speed: speed) { return phase }
        return nil
    }
}

/// Step text.
public enum StepInstructions {
    /// The instruction of `step` ("Turn left onto Ringstraße"); `leg` tells a last arrival ("You have arrived") from one
    /// at a via point ("You have reached your waypoint").
    public static func text(_ step: RouteStep, language: InstructionLanguage, finalArrival: Bool = true) -> String {
        let road = roadName(step)
        let maneuver = step.maneuver
        switch language {
        case .en:
            switch maneuver.kind {
            case .depart:
                let heading = "Head \(compass(maneuver.bearingAfter, .en))"
                return road.map { "\(heading) on \($0)" } ?? heading
            case .arrive:
                return finalArrival ? "You have arrived at your destination" : "You have reached your waypoint"
            case .continue:
                return road.map { "Continue onto \($0)" } ?? "Continue"
            case .turn:
                let verb = englishTurn(maneuver.modifier ?? .straight)
                return road.map { "\(verb) onto \($0)" } ?? verb
            case .roundabout:
                guard let exit = maneuver.exit else { return "Enter the roundabout" }
                let take = "Enter the roundabout and take \(englishExit(exit))"
                return road.map { "\(take) onto \($0)" } ?? take
            case .exitRoundabout:
                return road.map { "Exit the roundabout onto \($0)" } ?? "Exit the roundabout"
            }
        case .de:
            switch maneuver.kind {
            case .depart:
                let heading = "Fahren Sie Richtung \(compass(maneuver.bearingAfter, .de))"
                return road.map { "\(heading) auf \($0)" } ?? heading
            case .arrive:
                return finalArrival ? "Sie haben Ihr Ziel erreicht" : "Sie haben Ihren Zwischenhalt erreicht"
            case .continue:
                return road.map { "Weiter auf \($0)" } ?? "Geradeaus weiter"
            case .turn:
                let verb = germanTurn(maneuver.modifier ?? .straight)
                return road.map { "\(verb) auf \($0)" } ?? verb
            case .roundabout:
                guard let exit = maneuver.exit else { return "In den Kreisverkehr fahren" }
                let take = "Im Kreisverkehr die \(exit). Ausfahrt nehmen"
                return road.map { "\(take) auf \($0)" } ?? take
            case .exitRoundabout:
                return road.map { "Verlassen Sie den Kreisverkehr auf \($0)" } ?? "Verlassen Sie den Kreisverkehr"
            }
        }
    }

    /// The announcement of `step` `metres` before it: "In 200 m, turn right onto …" / "In 200 m rechts abbiegen auf …";
    /// at the "now" phase the bare instruction.
    public static func announcement(_ step: RouteStep, metres: Double, phase: Announcements.Phase, language: InstructionLanguage,
                                    finalArrival: Bool = true) -> String {
        let text = text(step, language: language, finalArrival: finalArrival)
        guard phase != .now else { return text }
        let distance = spoken(metres)
        switch language {
        case .en: return "In \(distance), \(lowercasedFirst(text))"
        case .de: return "In \(distance) \(lowercasedFirst(text, german: true))"
        }
    }

    /// Metres as spoken: 10 m steps below 100 m, 50 m below 1 km, then 0.1 km ("1.2 km" / "1,2 km" is left to
    /// clients; the figure is written with a point).
    public static func spoken(_ metres: Double) -> String {
        let m = max(0, metres)
        if m < 100 { return "\(max(10, Int((m / 10).rounded()) * 10)) m" }
        if m < 1_000 { return "\(Int((m / 50).rounded()) * 50) m" }
        let tenths = Int((m / 100).rounded())
        return "\(tenths / 10).\(tenths % 10) km"
    }

    /// The road a step is on as instructions name it: its name, else its ref, else none.
    public static func roadName(_ step: RouteStep) -> String? {
        if !step.name.isEmpty { return step.name }
        if let ref = step.ref, !ref.isEmpty { return ref }
        return nil
    }

    /// "the 2nd exit" for exits 1–10 (osrm-text-instructions' ordinals), "exit 11" above.
    static func englishExit(_ exit: Int) -> String {
        guard (1...10).contains(exit) else { return "exit \(exit)" }
        let suffix = switch exit {
        case 1: "st"
        case 2: "nd"
        case 3: "rd"
        default: "th"
        }
        return "the \(exit)\(suffix) exit"
    }

    static func englishTurn(_ modifier: RouteManeuver.Modifier) -> String {
        switch modifier {
        case .uturn: "Make a U-turn"
        case .sharpRight: "Make a sharp right"
        case .right: "Turn right"
        case .slightRight: "Bear right"
        case .straight: "Go straight"
        case .slightLeft: "Bear left"
        case .left: "Turn left"
        case .sharpLeft: "Make a sharp left"
        }
    }

    static func germanTurn(_ modifier: RouteManeuver.Modifier) -> String {
        switch modifier {
        case .uturn: "Wenden"
        case .sharpRight: "Scharf rechts abbiegen"
        case .right: "Rechts abbiegen"
        case .slightRight: "Leicht rechts halten"
        case .straight: "Geradeaus fahren"
        case .slightLeft: "Leicht links halten"
        case .left: "Links abbiegen"
        case .sharpLeft: "Scharf links abbiegen"
        }
    }

    /// The eight-point compass word of a bearing.
    public static func compass(_ bearing: Int, _ language: InstructionLanguage) -> String {
        let index = Int((Double((bearing % 360 + 360) % 360) / 45).rounded()) % 8
        switch language {
        case .en: return ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"][index]
        case .de: return ["Norden", "Nordosten", "Osten", "Südosten", "Süden", "Südwesten", "Westen", "Nordwesten"][index]
        }
    }

    /// The text with its first letter lower-cased for use after "In 200 m," (German keeps nouns: only the verb phrases
    /// we generate start with an adjective or verb, whose capital goes).
    static func lowercasedFirst(_ text: String, german: Bool = false) -> String {
        guard let first = text.first else { return text }
        if german, text.hasPrefix("Sie ") { return text }
        return first.lowercased() + text.dropFirst()
    }
}
