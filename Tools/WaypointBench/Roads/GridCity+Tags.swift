extension GridCity {
    /// The class of every way of line `line`, before single ways are turned into cycleways, footways or steps: a
    /// city's hierarchy, a main road every 5th line (500 m) — primary every 2 km, secondary every 1 km between them,
    /// tertiary the rest — and residential streets between.
    static func lineClass(_ line: Int) -> String {
        if line % 20 == 10 { return "primary" }
        if line % 10 == 5 { return "secondary" }
        if line % 5 == 0 { return "tertiary" }
        return "residential"
    }

    /// Name stems of the grid's streets (some with diacritics, so street search folds them as in a real city).
    static let nameStems = [
        "Linden", "Ahorn", "Birken", "Eichen", "Buchen", "Kastanien", "Ulmen", "Eschen", "Erlen", "Weiden",
        "Tannen", "Fichten", "Kiefern", "Lärchen", "Pappel", "Akazien", "Holunder", "Flieder", "Rosen", "Tulpen",
        "Nelken", "Veilchen", "Mohn", "Gänseblümchen", "Kirschen", "Apfel", "Birnen", "Pflaumen", "Marillen", "Wein",
        "Hopfen", "Roggen", "Weizen", "Hafer", "Gersten", "Mühl", "Brunnen", "Schul", "Kirchen", "Bahnhof",
        "Markt", "Rathaus", "Berg", "Tal", "Wiesen", "Feld", "Wald", "Bach", "Fluss", "Förster",
    ]
    /// Words before a stem once the stems are used up (a big city repeats names; street search keeps them apart).
    static let namePrefixes = ["", "Obere ", "Untere ", "Alte ", "Neue ", "Kleine ", "Große "]

    /// The name of line `line`: rows are `…straße`, columns `…gasse`.
    static func lineName(_ line: Int, horizontal: Bool) -> String {
        let stem = nameStems[line % nameStems.count]
        let prefix = namePrefixes[(line / nameStems.count) % namePrefixes.count]
        return prefix + stem + (horizontal ? "straße" : "gasse")
    }

    /// The tags of one way of `blocks` blocks on a line of class `lineClass` named `name`.
    static func tags(lineClass: String, name: String, blocks: Int, random: inout SeededGenerator) -> [(key: String, value: String)] {
        let roll = Double.random(in: 0..<1, using: &random)
        var highway = lineClass
        if lineClass == "residential" {
            if roll < 0.08 { highway = "cycleway" } else if roll < 0.13 { highway = "footway" } else if roll < 0.18, blocks == 1 { highway = "steps" }
        }
        var tags: [(key: String, value: String)] = [("highway", highway)]
        switch highway {
        case "cycleway", "steps":
            break
        case "footway":
            if random.chance(0.3) { tags.append(("bicycle", "yes")) }
        default:
            tags.append(("name", name))
            tags += directionTags(highway, random: &random)
        }
        if let surface = surface(highway, random: &random) { tags.append(("surface", surface)) }
        return tags
    }

    /// One-way streets (residential 12 %, tertiary 5 %; a third of them open to bicycles both ways) and cycle lanes on
    /// main roads (30 %).
    static func directionTags(_ highway: String, random: inout SeededGenerator) -> [(key: String, value: String)] {
        switch highway {
        case "residential", "tertiary":
            let roll = Double.random(in: 0..<1, using: &random)
            let oneway = highway == "residential" ? 0.12 : 0.05
            guard roll < oneway else { return [] }
            var tags: [(key: String, value: String)] = [("oneway", roll < oneway * 2 / 3 ? "yes" : "-1")]
            if random.chance(1.0 / 3) { tags.append(("cycleway", "opposite")) }
            return tags
        case "primary", "secondary":
            return random.chance(0.3) ? [("cycleway", "lane")] : []
        default:
            return []
        }
    }

    /// A surface drawn for the class (`nil`: untagged, as steps usually are).
    static func surface(_ highway: String, random: inout SeededGenerator) -> String? {
        let choices: [(String, Double)]
        switch highway {
        case "primary", "secondary", "tertiary": choices = [("asphalt", 0.9), ("concrete", 0.1)]
        case "residential":
            choices = [("asphalt", 0.70), ("paving_stones", 0.12), ("sett", 0.08), ("concrete", 0.04), ("compacted", 0.03), ("gravel", 0.03)]
        case "cycleway": choices = [("asphalt", 0.75), ("fine_gravel", 0.15), ("paving_stones", 0.10)]
        case "footway": choices = [("paving_stones", 0.5), ("asphalt", 0.3), ("gravel", 0.2)]
        default: return nil
        }
        var x = Double.random(in: 0..<1, using: &random)
        for (surface, share) in choices {
            if x < share { return surface }
            x -= share
        }
        return choices.last?.0
    }
}
