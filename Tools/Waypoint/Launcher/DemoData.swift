/// What `waypoint up --demo` creates: a guide, a traveller and three published tours whose stops are real places, with
/// coordinates taken from the OpenStreetMap extracts in `../shared/data` (© OpenStreetMap contributors, ODbL; ways as
/// the centroid of their nodes); and for the bike side an administrator, a moderator, a cyclist, three approved paths
/// on Krems streets and one recorded ride along the first of them.
public enum DemoData {
    /// A demo account (registered through `POST /v1/auth/register`).
    public struct Account: Sendable, Hashable {
        public var username: String
        public var email: String
        public var password: String
        public var role: String
    }

    /// A stop: name, text, position.
    public struct Stop: Sendable, Hashable {
        public var name: String
        public var description: String
        public var lat: Double
        public var lng: Double
    }

    /// A tour and the gazetteer city it belongs to (found by name prefix and country).
    public struct Tour: Sendable, Hashable {
        public var title: String
        public var description: String
        public var city: String
        public var country: String
        public var themes: [String]
        public var languages: [String]
        public var priceMinor: Int64
        public var currency: String
        public var estimatedMinutes: Int
        public var difficulty: String
        public var stops: [Stop]
    }

    public static let guide = Account(username: "demoguide", email: "demo-guide@example.com", password: "Waypoint-Guide-2026", role: "guide")
    public static let traveller = Account(username: "demotraveller", email: "demo-traveller@example.com", password: "Waypoint-Travel-2026",
                                          role: "traveller")

    /// The administrator (`auth create-admin`: no route grants `admin`), who grants the moderator their role.
    public static let administrator = Account(username: "demoadmin", email: "demo-admin@example.com", password: "Waypoint-Admin-2026",
                                              role: "traveller")
    /// A traveller granted `moderator`: claims and approves the cyclist's paths.
    public static let moderator = Account(username: "demomoderator", email: "demo-moderator@example.com", password: "Waypoint-Moderate-2026",
                                          role: "traveller")
    public static let cyclist = Account(username: "democyclist", email: "demo-cyclist@example.com", password: "Waypoint-Cycle-2026",
                                        role: "traveller")

    /// A bike path the cyclist drafts along a whole Krems street (found by `GET /v1/streets?q=`: the first compatible
    /// street of exactly that name) and the moderator approves; `pothole` puts one at the middle of its route.
    public struct BikePath: Sendable, Hashable {
        public var name: String
        public var street: String
        public var condition: String
        public var segregatedFromCars: Bool
        public var surface: String
        public var pothole: String?
    }

    public static let paths: [BikePath] = [
        BikePath(name: "Donauradweg: the Treppelweg along the Danube", street: "Treppelweg", condition: "optimal", segregatedFromCars: true,
                 surface: "asphalt", pothole: nil),
        BikePath(name: "Hafenstraße to the harbour", street: "Hafenstraße", condition: "medium", segregatedFromCars: false,
                 surface: "asphalt", pothole: nil),
        BikePath(name: "An der Schütt by the Krems river", street: "An der Schütt", condition: "requires-maintenance", segregatedFromCars: false,
                 surface: "asphalt", pothole: "a deep pothole across the right half of the lane"),
    ]

    /// The cyclist's recorded ride: along the first path's route at `rideSpeed`, one fix a second, starting the day
    /// before the seeding at 17:00 UTC (so the rider's week shows it), imported as GPX (`POST /v1/trips/import`).
    public static let rideSpeed = 5.0
    public static let rideName = "Evening ride on the Donauradweg"

    public static let tours: [Tour] = [
        Tour(title: "The Rock: Monaco-Ville in an hour", description: """
            From the Prince's Palace to the cliff-top Oceanographic Museum: the old town on the Rock, its cathedral \
            and the views over Port Hercule.
            """, city: "Monaco", country: "MC", themes: ["history", "architecture"], languages: ["en", "fr"],
             priceMinor: 900, currency: "EUR", estimatedMinutes: 60, difficulty: "easy", stops: [
                Stop(name: "Palais Princier", description: "The Grimaldis' palace since 1297; the guard changes at 11:55.",
                     lat: 43.73137, lng: 7.42009),
                Stop(name: "Place du Palais", description: "The square in front of the palace, with its cannons and the view over the port.",
                     lat: 43.73116, lng: 7.42121),
                Stop(name: "Cathédrale Notre-Dame-Immaculée", description: "White Turbie stone, 1875; Princess Grace rests here.",
                     lat: 43.73043, lng: 7.42271),
                Stop(name: "Musée Océanographique", description: "Built into the cliff in 1910 by Prince Albert I.",
                     lat: 43.73074, lng: 7.42549),
            ]),
        Tour(title: "Monte-Carlo: casino, gardens and the sea", description: """
            The Belle Époque square of the Casino, then down to the Japanese Garden and the Grimaldi Forum by the sea.
            """, city: "Monaco", country: "MC", themes: ["architecture", "nature", "hidden-gems"], languages: ["en"],
             priceMinor: 0, currency: "EUR", estimatedMinutes: 75, difficulty: "easy", stops: [
                Stop(name: "Casino de Monte-Carlo", description: "Charles Garnier's casino (1878), the heart of Monte-Carlo.",
                     lat: 43.73926, lng: 7.42855),
                Stop(name: "Hôtel de Paris", description: "The palace hotel facing the casino across the Place du Casino.",
                     lat: 43.7388, lng: 7.42738),
                Stop(name: "Jardin Japonais", description: "A Shinto-inspired garden between the boulevard and the beach.",
                     lat: 43.74212, lng: 7.43091),
                Stop(name: "Grimaldi Forum", description: "Glass congress and exhibition centre half under the sea front.",
                     lat: 43.7431075, lng: 7.431319),
            ]),
        Tour(title: "Krems old town: markets and churches", description: """
            From the Steiner Tor through the Wachau's wine town: the Täglicher Markt, the Bürgerspital, St. Veit and up the covered stairs to the \
            Piaristenkirche, back past the Gozzoburg on the Hoher Markt.
            """, city: "Krems an der Donau", country: "AT", themes: ["history", "religion", "food"], languages: ["de", "en"],
             priceMinor: 1200, currency: "EUR", estimatedMinutes: 90, difficulty: "moderate", stops: [
                Stop(name: "Steiner Tor", description: "The town gate of 1480, Gothic below and Baroque on top: the emblem of Krems.",
                     lat: 48.41034, lng: 15.59694),
                Stop(name: "Täglicher Markt", description: "The daily market street of the old town.", lat: 48.41091, lng: 15.60079),
                Stop(name: "Bürgerspitalskirche", description: "The late-Gothic chapel of the citizens' hospital.", lat: 48.41091, lng: 15.59967),
                Stop(name: "Pfarrkirche St. Veit", description: "One of the first Baroque churches of Lower Austria.", lat: 48.41179, lng: 15.60005),
                Stop(name: "Piaristenkirche", description: "Late-Gothic hall church above the town, reached by the Piaristenstiege.",
                     lat: 48.41266, lng: 15.5995),
                Stop(name: "Gozzoburg", description: "A 13th-century town palace on the Hoher Markt.", lat: 48.41188, lng: 15.60209),
            ]),
    ]
}
