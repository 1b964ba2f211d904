import Contracts
import Foundation
import Geo
import TourManagement

/// SplitMix64 (Steele, Lea & Flood 2014): a small seedable generator, so the same `--seed` generates the same tours and
/// the same queries on every run and on both backends.
struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < p
    }

    /// An index drawn with the given (unnormalised) weights.
    mutating func weightedIndex(_ cumulative: [Double]) -> Int {
        let x = Double.random(in: 0..<cumulative.last!, using: &self)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] > x { high = mid } else { low = mid + 1 }
        }
        return low
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &self)]
    }
}

/// Running sums of weights, for ``SeededGenerator/weightedIndex(_:)``.
func cumulativeWeights(_ weights: [Double]) -> [Double] {
    var sum = 0.0
    return weights.map { sum += $0; return sum }
}

/// A destination of the generated catalogue: a gazetteer city with its share of the tours.
struct BenchDestination: Sendable {
    var name: String
    var city: City
    /// Tours generated there.
    var tours: Int
}

/// The generated catalogue: `TourPublished` events of tours spread over real gazetteer cities, and the vocabulary the
/// search mix draws its query terms from.
struct TourCorpus: Sendable {
    var destinations: [BenchDestination]
    /// Cumulative weights of `destinations` by their number of tours (search traffic follows supply).
    var destinationWeights: [Double]
    var events: [TourPublished]
    var stops: Int
    /// Words of titles, descriptions and stop names that many tours share.
    var commonQueries: [String]
    /// Proper names of stops: each occurs in a handful of tours.
    var rareNames: [String]

    /// Generates `tours` tours of `stopsPerTour` stops; the same seed gives the same tours (ids included).
    static func generate(cities: [City], tours: Int, stopsPerTour: Int, seed: UInt64) throws -> TourCorpus {
        var rng = SeededGenerator(seed: seed)
        let resolved = try resolveDestinations(cities)
        // Zipf-like popularity (s = 0.8) over the destinations in a seeded random order: the largest gets ~10 % of the
        // tours, the smallest a handful.
        let order = Array(resolved.indices).shuffled(using: &rng)
        var weights = Array(repeating: 0.0, count: resolved.count)
        for (rank, index) in order.enumerated() { weights[index] = 1 / pow(Double(rank + 1), 0.8) }
        let cumulative = cumulativeWeights(weights)

        let names = properNames(count: max(1_000, tours * stopsPerTour / 3), &rng)
        let guides = (0..<max(1, tours / 5)).map { _ in UUID.v4(using: &rng) }
        var counts = Array(repeating: 0, count: resolved.count)
        var events: [TourPublished] = []
        events.reserveCapacity(tours)
        var usedNames: [String] = []
        let epoch = 1_732_233_600.0  // 2024-11-22: two years of publications up to the reference run
        for _ in 0..<tours {
            let d = rng.weightedIndex(cumulative)
            counts[d] += 1
            let (display, city) = resolved[d]
            let tourId = UUID.v4(using: &rng)
            let mode: TourMode = rng.chance(0.2) ? .bike : .walk
            let themes = drawThemes(&rng)
            let minutes = Int.random(in: 2...16, using: &rng) * 15
            let stops = makeStops(count: stopsPerTour, around: city.coordinate, mode: mode, city: display, names: names,
                                  usedNames: &usedNames, &rng)
            let details = TourDetails(
                title: title(city: display, themes: themes, mode: mode, names: names, &rng),
                description: description(city: display, themes: themes, mode: mode, minutes: minutes, stops: stops, &rng),
                destinationId: city.id, themes: themes, languages: languages(country: city.country, &rng),
                price: price(country: city.country, &rng), estimatedMinutes: minutes,
                difficulty: rng.chance(0.5) ? .easy : rng.chance(0.7) ? .moderate : .challenging, mode: mode)
            events.append(TourPublished(
                tourId: tourId, guideId: rng.pick(guides), revision: 1, details: details, stops: stops,
                lengthMetres: Int(TourAggregate.lengthMetres(stops).rounded()),
                publishedAt: Date(timeIntervalSince1970: epoch + Double.random(in: 0..<(2 * 365 * 86_400), using: &rng).rounded())))
        }
        let destinations = resolved.indices.map { BenchDestination(name: resolved[$0].0, city: resolved[$0].1, tours: counts[$0]) }
        return TourCorpus(
            destinations: destinations, destinationWeights: cumulativeWeights(counts.map(Double.init)), events: events,
            stops: tours * stopsPerTour, commonQueries: commonQueries, rareNames: Array(Set(usedNames)).sorted())
    }

    // MARK: Destinations

    struct DestinationSeed {
        var name: String
        var country: String
        var lat: Double
        var lng: Double
        /// The gazetteer's spelling where it differs from the English name.
        var gazetteer: String?

        init(_ name: String, _ country: String, _ lat: Double, _ lng: Double, gazetteer: String? = nil) {
            self.name = name
            self.country = country
            self.lat = lat
            self.lng = lng
            self.gazetteer = gazetteer
        }
    }

    /// Each seed as the gazetteer city of the same (folded) name and country nearest to its coordinates, within 25 km.
    static func resolveDestinations(_ cities: [City]) throws -> [(String, City)] {
        var byKey: [String: [City]] = [:]
        let wanted = Set(destinationSeeds.map { "\($0.country)|\(DestinationName.key($0.gazetteer ?? $0.name))" })
        for city in cities {
            let key = "\(city.country)|\(DestinationName.key(city.name))"
            if wanted.contains(key) { byKey[key, default: []].append(city) }
        }
        var result: [(String, City)] = []
        var missing: [String] = []
        for seed in destinationSeeds {
            let centre = try Coordinate(latitude: seed.lat, longitude: seed.lng)
            let candidates = byKey["\(seed.country)|\(DestinationName.key(seed.gazetteer ?? seed.name))"] ?? []
            if let best = candidates.min(by: { $0.coordinate.distance(to: centre) < $1.coordinate.distance(to: centre) }),
               best.coordinate.distance(to: centre) < 25_000 {
                result.append((seed.name, best))
            } else {
                missing.append(seed.name)
            }
        }
        guard missing.count <= destinationSeeds.count / 20 else {
            throw BenchError("gazetteer: \(missing.count) destinations not found: \(missing.joined(separator: ", "))")
        }
        return result
    }

    static let destinationSeeds: [DestinationSeed] = [
        DestinationSeed("Vienna", "AT", 48.208, 16.373),
        DestinationSeed("Salzburg", "AT", 47.800, 13.045),
        DestinationSeed("Innsbruck", "AT", 47.263, 11.394),
        DestinationSeed("Graz", "AT", 47.071, 15.439),
        DestinationSeed("Krems an der Donau", "AT", 48.410, 15.614),
        DestinationSeed("Berlin", "DE", 52.520, 13.405),
        DestinationSeed("Hamburg", "DE", 53.551, 9.994),
        DestinationSeed("Munich", "DE", 48.137, 11.575, gazetteer: "Muenchen"),
        DestinationSeed("Cologne", "DE", 50.938, 6.960, gazetteer: "Koeln"),
        DestinationSeed("Frankfurt am Main", "DE", 50.110, 8.682),
        DestinationSeed("Dresden", "DE", 51.051, 13.738),
        DestinationSeed("Leipzig", "DE", 51.340, 12.375),
        DestinationSeed("Heidelberg", "DE", 49.399, 8.672),
        DestinationSeed("Nuremberg", "DE", 49.452, 11.077),
        DestinationSeed("Bremen", "DE", 53.079, 8.802),
        DestinationSeed("Stuttgart", "DE", 48.776, 9.183),
        DestinationSeed("Düsseldorf", "DE", 51.227, 6.774),
        DestinationSeed("Zurich", "CH", 47.377, 8.541),
        DestinationSeed("Geneva", "CH", 46.204, 6.143),
        DestinationSeed("Basel", "CH", 47.560, 7.589),
        DestinationSeed("Bern", "CH", 46.948, 7.447),
        DestinationSeed("Lucerne", "CH", 47.050, 8.309, gazetteer: "Luzern"),
        DestinationSeed("Paris", "FR", 48.857, 2.352),
        DestinationSeed("Lyon", "FR", 45.764, 4.836),
        DestinationSeed("Marseille", "FR", 43.297, 5.370),
        DestinationSeed("Nice", "FR", 43.710, 7.262),
        DestinationSeed("Bordeaux", "FR", 44.838, -0.579),
        DestinationSeed("Toulouse", "FR", 43.605, 1.444),
        DestinationSeed("Strasbourg", "FR", 48.573, 7.752),
        DestinationSeed("Lille", "FR", 50.630, 3.057),
        DestinationSeed("Nantes", "FR", 47.218, -1.554),
        DestinationSeed("Montpellier", "FR", 43.611, 3.877),
        DestinationSeed("Avignon", "FR", 43.949, 4.806),
        DestinationSeed("Monaco", "MC", 43.738, 7.424),
        DestinationSeed("London", "GB", 51.507, -0.128),
        DestinationSeed("Edinburgh", "GB", 55.953, -3.188),
        DestinationSeed("Manchester", "GB", 53.481, -2.242),
        DestinationSeed("Liverpool", "GB", 53.408, -2.991),
        DestinationSeed("Glasgow", "GB", 55.864, -4.252),
        DestinationSeed("Oxford", "GB", 51.752, -1.258),
        DestinationSeed("Cambridge", "GB", 52.205, 0.122),
        DestinationSeed("Bath", "GB", 51.381, -2.359),
        DestinationSeed("York", "GB", 53.960, -1.087),
        DestinationSeed("Bristol", "GB", 51.455, -2.588),
        DestinationSeed("Birmingham", "GB", 52.486, -1.890),
        DestinationSeed("Dublin", "IE", 53.350, -6.260),
        DestinationSeed("Cork", "IE", 51.898, -8.476),
        DestinationSeed("Galway", "IE", 53.271, -9.049, gazetteer: "Gaillimh"),
        DestinationSeed("Amsterdam", "NL", 52.370, 4.895),
        DestinationSeed("Rotterdam", "NL", 51.924, 4.478),
        DestinationSeed("Utrecht", "NL", 52.091, 5.122),
        DestinationSeed("The Hague", "NL", 52.070, 4.300, gazetteer: "Den Haag"),
        DestinationSeed("Brussels", "BE", 50.850, 4.352),
        DestinationSeed("Bruges", "BE", 51.209, 3.225, gazetteer: "Brugge"),
        DestinationSeed("Antwerp", "BE", 51.219, 4.402, gazetteer: "Antwerpen"),
        DestinationSeed("Ghent", "BE", 51.054, 3.717, gazetteer: "Gent"),
        DestinationSeed("Luxembourg", "LU", 49.612, 6.130),
        DestinationSeed("Copenhagen", "DK", 55.676, 12.568),
        DestinationSeed("Aarhus", "DK", 56.163, 10.204, gazetteer: "Arhus"),
        DestinationSeed("Stockholm", "SE", 59.329, 18.069),
        DestinationSeed("Gothenburg", "SE", 57.709, 11.975, gazetteer: "Goeteborg"),
        DestinationSeed("Oslo", "NO", 59.914, 10.752),
        DestinationSeed("Bergen", "NO", 60.391, 5.324),
        DestinationSeed("Helsinki", "FI", 60.170, 24.938),
        DestinationSeed("Reykjavik", "IS", 64.147, -21.942),
        DestinationSeed("Tallinn", "EE", 59.437, 24.754),
        DestinationSeed("Riga", "LV", 56.950, 24.105),
        DestinationSeed("Vilnius", "LT", 54.687, 25.280),
        DestinationSeed("Warsaw", "PL", 52.230, 21.012),
        DestinationSeed("Krakow", "PL", 50.065, 19.945),
        DestinationSeed("Gdansk", "PL", 54.352, 18.646),
        DestinationSeed("Wroclaw", "PL", 51.108, 17.039),
        DestinationSeed("Prague", "CZ", 50.076, 14.438),
        DestinationSeed("Brno", "CZ", 49.195, 16.607),
        DestinationSeed("Bratislava", "SK", 48.149, 17.107),
        DestinationSeed("Budapest", "HU", 47.498, 19.040),
        DestinationSeed("Ljubljana", "SI", 46.057, 14.506),
        DestinationSeed("Zagreb", "HR", 45.815, 15.982),
        DestinationSeed("Split", "HR", 43.508, 16.440),
        DestinationSeed("Dubrovnik", "HR", 42.650, 18.094),
        DestinationSeed("Belgrade", "RS", 44.787, 20.457),
        DestinationSeed("Sarajevo", "BA", 43.857, 18.413),
        DestinationSeed("Sofia", "BG", 42.698, 23.322),
        DestinationSeed("Bucharest", "RO", 44.427, 26.103),
        DestinationSeed("Athens", "GR", 37.984, 23.728),
        DestinationSeed("Thessaloniki", "GR", 40.640, 22.944),
        DestinationSeed("Istanbul", "TR", 41.008, 28.978),
        DestinationSeed("Ankara", "TR", 39.934, 32.860),
        DestinationSeed("Izmir", "TR", 38.423, 27.143),
        DestinationSeed("Rome", "IT", 41.903, 12.496, gazetteer: "Roma"),
        DestinationSeed("Milan", "IT", 45.464, 9.190),
        DestinationSeed("Venice", "IT", 45.441, 12.316, gazetteer: "Venezia"),
        DestinationSeed("Florence", "IT", 43.770, 11.256, gazetteer: "Firenze"),
        DestinationSeed("Naples", "IT", 40.852, 14.268, gazetteer: "Napoli"),
        DestinationSeed("Turin", "IT", 45.070, 7.687, gazetteer: "Torino"),
        DestinationSeed("Bologna", "IT", 44.495, 11.343),
        DestinationSeed("Genoa", "IT", 44.406, 8.934),
        DestinationSeed("Verona", "IT", 45.438, 10.992),
        DestinationSeed("Palermo", "IT", 38.116, 13.361),
        DestinationSeed("Pisa", "IT", 43.717, 10.402),
        DestinationSeed("Siena", "IT", 43.319, 11.331),
        DestinationSeed("Madrid", "ES", 40.417, -3.704),
        DestinationSeed("Barcelona", "ES", 41.385, 2.173),
        DestinationSeed("Seville", "ES", 37.389, -5.984),
        DestinationSeed("Valencia", "ES", 39.470, -0.376),
        DestinationSeed("Granada", "ES", 37.177, -3.599),
        DestinationSeed("Malaga", "ES", 36.721, -4.421),
        DestinationSeed("Bilbao", "ES", 43.263, -2.935),
        DestinationSeed("Palma", "ES", 39.570, 2.650),
        DestinationSeed("Cordoba", "ES", 37.888, -4.779),
        DestinationSeed("Lisbon", "PT", 38.722, -9.139),
        DestinationSeed("Porto", "PT", 41.158, -8.629),
        DestinationSeed("Valletta", "MT", 35.899, 14.514),
        DestinationSeed("New York", "US", 40.713, -74.006),
        DestinationSeed("Los Angeles", "US", 34.052, -118.244),
        DestinationSeed("Chicago", "US", 41.878, -87.630),
        DestinationSeed("San Francisco", "US", 37.775, -122.419),
        DestinationSeed("Boston", "US", 42.360, -71.059),
        DestinationSeed("Washington", "US", 38.907, -77.037, gazetteer: "Washington, D. C."),
        DestinationSeed("Seattle", "US", 47.606, -122.332),
        DestinationSeed("Miami", "US", 25.762, -80.192),
        DestinationSeed("New Orleans", "US", 29.951, -90.072),
        DestinationSeed("Las Vegas", "US", 36.170, -115.140),
        DestinationSeed("Philadelphia", "US", 39.953, -75.165),
        DestinationSeed("Austin", "US", 30.267, -97.743),
        DestinationSeed("Denver", "US", 39.739, -104.990),
        DestinationSeed("San Diego", "US", 32.716, -117.161),
        DestinationSeed("Nashville", "US", 36.163, -86.781),
        DestinationSeed("Portland", "US", 45.515, -122.679),
        DestinationSeed("Honolulu", "US", 21.307, -157.858),
        DestinationSeed("Toronto", "CA", 43.653, -79.383),
        DestinationSeed("Montreal", "CA", 45.502, -73.567),
        DestinationSeed("Vancouver", "CA", 49.283, -123.121),
        DestinationSeed("Quebec", "CA", 46.813, -71.208),
        DestinationSeed("Ottawa", "CA", 45.421, -75.697),
        DestinationSeed("Mexico City", "MX", 19.433, -99.133),
        DestinationSeed("Guadalajara", "MX", 20.660, -103.350),
        DestinationSeed("Cancun", "MX", 21.162, -86.851),
        DestinationSeed("Oaxaca", "MX", 17.061, -96.726, gazetteer: "Oaxaca de Juarez"),
        DestinationSeed("Havana", "CU", 23.113, -82.366),
        DestinationSeed("Bogota", "CO", 4.711, -74.072),
        DestinationSeed("Cartagena", "CO", 10.391, -75.479),
        DestinationSeed("Medellin", "CO", 6.244, -75.581),
        DestinationSeed("Lima", "PE", -12.046, -77.043),
        DestinationSeed("Cusco", "PE", -13.532, -71.967),
        DestinationSeed("Quito", "EC", -0.180, -78.468),
        DestinationSeed("Santiago", "CL", -33.449, -70.669),
        DestinationSeed("Buenos Aires", "AR", -34.604, -58.382),
        DestinationSeed("Montevideo", "UY", -34.901, -56.165),
        DestinationSeed("Rio de Janeiro", "BR", -22.907, -43.173),
        DestinationSeed("Sao Paulo", "BR", -23.551, -46.633),
        DestinationSeed("Salvador", "BR", -12.978, -38.501),
        DestinationSeed("Cairo", "EG", 30.044, 31.236),
        DestinationSeed("Marrakesh", "MA", 31.629, -7.981),
        DestinationSeed("Fes", "MA", 34.033, -5.000),
        DestinationSeed("Casablanca", "MA", 33.573, -7.590),
        DestinationSeed("Tunis", "TN", 36.806, 10.181),
        DestinationSeed("Cape Town", "ZA", -33.925, 18.424),
        DestinationSeed("Johannesburg", "ZA", -26.204, 28.047),
        DestinationSeed("Nairobi", "KE", -1.292, 36.822),
        DestinationSeed("Zanzibar", "TZ", -6.165, 39.202),
        DestinationSeed("Accra", "GH", 5.604, -0.187),
        DestinationSeed("Lagos", "NG", 6.524, 3.379),
        DestinationSeed("Dakar", "SN", 14.716, -17.467),
        DestinationSeed("Dubai", "AE", 25.205, 55.271),
        DestinationSeed("Abu Dhabi", "AE", 24.454, 54.377),
        DestinationSeed("Doha", "QA", 25.286, 51.533),
        DestinationSeed("Jerusalem", "IL", 31.769, 35.216),
        DestinationSeed("Tel Aviv", "IL", 32.085, 34.782),
        DestinationSeed("Amman", "JO", 31.954, 35.911),
        DestinationSeed("Beirut", "LB", 33.894, 35.502),
        DestinationSeed("Tehran", "IR", 35.689, 51.389),
        DestinationSeed("Isfahan", "IR", 32.652, 51.668, gazetteer: "Esfahan"),
        DestinationSeed("Mumbai", "IN", 19.076, 72.878),
        DestinationSeed("Delhi", "IN", 28.704, 77.102),
        DestinationSeed("Jaipur", "IN", 26.912, 75.787),
        DestinationSeed("Agra", "IN", 27.177, 78.008),
        DestinationSeed("Bangalore", "IN", 12.972, 77.595),
        DestinationSeed("Kolkata", "IN", 22.573, 88.364),
        DestinationSeed("Chennai", "IN", 13.083, 80.270),
        DestinationSeed("Varanasi", "IN", 25.318, 82.974),
        DestinationSeed("Kathmandu", "NP", 27.717, 85.324),
        DestinationSeed("Colombo", "LK", 6.927, 79.861),
        DestinationSeed("Bangkok", "TH", 13.756, 100.502),
        DestinationSeed("Chiang Mai", "TH", 18.788, 98.985),
        DestinationSeed("Phuket", "TH", 7.880, 98.392),
        DestinationSeed("Hanoi", "VN", 21.028, 105.834, gazetteer: "Ha Noi"),
        DestinationSeed("Ho Chi Minh City", "VN", 10.823, 106.630, gazetteer: "Thanh pho Ho Chi Minh"),
        DestinationSeed("Hoi An", "VN", 15.880, 108.335),
        DestinationSeed("Siem Reap", "KH", 13.367, 103.844, gazetteer: "Siemreab"),
        DestinationSeed("Kuala Lumpur", "MY", 3.139, 101.687),
        DestinationSeed("Singapore", "SG", 1.290, 103.852),
        DestinationSeed("Jakarta", "ID", -6.208, 106.846),
        DestinationSeed("Denpasar", "ID", -8.650, 115.217),
        DestinationSeed("Manila", "PH", 14.600, 120.984),
        DestinationSeed("Hong Kong", "HK", 22.320, 114.169),
        DestinationSeed("Taipei", "TW", 25.033, 121.565),
        DestinationSeed("Beijing", "CN", 39.904, 116.407),
        DestinationSeed("Shanghai", "CN", 31.230, 121.474),
        DestinationSeed("Hangzhou", "CN", 30.274, 120.155),
        DestinationSeed("Chengdu", "CN", 30.573, 104.066),
        DestinationSeed("Guangzhou", "CN", 23.129, 113.264),
        DestinationSeed("Seoul", "KR", 37.567, 126.978),
        DestinationSeed("Busan", "KR", 35.180, 129.076),
        DestinationSeed("Tokyo", "JP", 35.690, 139.692),
        DestinationSeed("Kyoto", "JP", 35.012, 135.768),
        DestinationSeed("Osaka", "JP", 34.694, 135.502, gazetteer: "Osaka-shi"),
        DestinationSeed("Hiroshima", "JP", 34.385, 132.455, gazetteer: "Hiroshima-shi"),
        DestinationSeed("Sapporo", "JP", 43.062, 141.354, gazetteer: "Sapporo-shi"),
        DestinationSeed("Nara", "JP", 34.685, 135.805, gazetteer: "Nara-shi"),
        DestinationSeed("Sydney", "AU", -33.869, 151.209),
        DestinationSeed("Melbourne", "AU", -37.814, 144.963),
        DestinationSeed("Brisbane", "AU", -27.470, 153.026),
        DestinationSeed("Perth", "AU", -31.950, 115.860),
        DestinationSeed("Adelaide", "AU", -34.929, 138.601),
        DestinationSeed("Hobart", "AU", -42.882, 147.327),
        DestinationSeed("Auckland", "NZ", -36.849, 174.763),
        DestinationSeed("Wellington", "NZ", -41.287, 174.776),
        DestinationSeed("Queenstown", "NZ", -45.031, 168.663),
    ]

    // MARK: Details

    static let themeWeights = cumulativeWeights(TourTheme.allCases.map { theme in
        switch theme {
        case .history: 18
        case .food: 15
        case .architecture: 12
        case .art: 10
        case .culture: 10
        case .nature: 8
        case .hiddenGems: 7
        case .photography: 6
        case .nightlife: 5
        case .shopping: 4
        case .religion: 3
        case .family: 2
        }
    })

    static func drawThemes(_ rng: inout SeededGenerator) -> [TourTheme] {
        let count = rng.chance(0.5) ? 1 : rng.chance(0.7) ? 2 : 3
        var themes: [TourTheme] = []
        while themes.count < count {
            let theme = TourTheme.allCases[rng.weightedIndex(themeWeights)]
            if !themes.contains(theme) { themes.append(theme) }
        }
        return themes
    }

    /// The languages spoken where a country's tours are given (with region subtags where guides use them).
    static let localLanguages: [String: [String]] = [
        "AT": ["de-AT"], "DE": ["de"], "CH": ["de-CH", "fr-CH", "it-CH"], "FR": ["fr"], "MC": ["fr"], "GB": ["en-GB"], "IE": ["en-IE"],
        "NL": ["nl"], "BE": ["nl-BE", "fr-BE"], "LU": ["fr", "lb"], "DK": ["da"], "SE": ["sv"], "NO": ["nb"], "FI": ["fi"], "IS": ["is"],
        "EE": ["et"], "LV": ["lv"], "LT": ["lt"], "PL": ["pl"], "CZ": ["cs"], "SK": ["sk"], "HU": ["hu"], "SI": ["sl"], "HR": ["hr"],
        "RS": ["sr"], "BA": ["bs"], "BG": ["bg"], "RO": ["ro"], "GR": ["el"], "TR": ["tr"], "IT": ["it"], "ES": ["es", "ca"],
        "PT": ["pt-PT"], "MT": ["mt"], "US": ["en-US", "es-US"], "CA": ["en-CA", "fr-CA"], "MX": ["es-MX"], "CU": ["es"],
        "CO": ["es-CO"], "PE": ["es"], "EC": ["es"], "CL": ["es"], "AR": ["es-AR"], "UY": ["es"], "BR": ["pt-BR"], "EG": ["ar"],
        "MA": ["ar", "fr"], "TN": ["ar", "fr"], "ZA": ["en-ZA", "af"], "KE": ["en", "sw"], "TZ": ["sw"], "GH": ["en"], "NG": ["en"],
        "SN": ["fr"], "AE": ["ar"], "QA": ["ar"], "IL": ["he"], "JO": ["ar"], "LB": ["ar", "fr"], "IR": ["fa"], "IN": ["hi", "en-IN"],
        "NP": ["ne"], "LK": ["si"], "TH": ["th"], "VN": ["vi"], "KH": ["km"], "MY": ["ms"], "SG": ["en-SG", "zh-SG"], "ID": ["id"],
        "PH": ["fil"], "HK": ["zh-HK"], "TW": ["zh-TW"], "CN": ["zh"], "KR": ["ko"], "JP": ["ja"], "AU": ["en-AU"], "NZ": ["en-NZ"],
    ]
    /// Visitors' languages guides add, most asked for first.
    static let visitorLanguages = ["de", "fr", "es", "it", "zh", "ja", "nl", "pt", "ko", "ru", "pl"]
    static let visitorWeights = cumulativeWeights([20, 16, 14, 10, 8, 7, 6, 5, 4, 3, 3])

    static func languages(country: String, _ rng: inout SeededGenerator) -> [String] {
        var tags: [String] = []
        let local = localLanguages[country] ?? ["en"]
        if rng.chance(0.8) { tags.append(rng.pick(local)) }
        if !tags.contains(where: { $0.hasPrefix("en") }), rng.chance(0.75) || tags.isEmpty {
            tags.append(rng.chance(0.7) ? "en" : rng.chance(0.5) ? "en-GB" : "en-US")
        }
        if rng.chance(0.2) {
            let extra = visitorLanguages[rng.weightedIndex(visitorWeights)]
            if !tags.contains(where: { DiscoveryText.primaryLanguage($0) == extra }) { tags.append(extra) }
        }
        return tags
    }

    /// 20 % free; otherwise 5.00–50.00 in steps of 0.50, in the local currency where it is USD or GBP, mostly EUR elsewhere.
    static func price(country: String, _ rng: inout SeededGenerator) -> Money {
        let currency: CurrencyCode = switch country {
        case "US": rng.chance(0.95) ? .usd : .eur
        case "GB": rng.chance(0.95) ? .gbp : .eur
        default: rng.chance(0.85) ? .eur : rng.chance(0.65) ? .usd : .gbp
        }
        return Money(amountMinor: rng.chance(0.2) ? 0 : Int64(Int.random(in: 10...100, using: &rng)) * 50, currency: currency)
    }

    // MARK: Text

    static let adjectives = ["Old", "Hidden", "Historic", "Secret", "Grand", "Little", "Medieval", "Modern", "Royal", "Green",
                             "Golden", "Forgotten", "Local", "Ancient", "Colourful", "Quiet", "Lively", "Imperial", "Bohemian"]
    static let themePhrases: [TourTheme: [String]] = [
        .history: ["a walk through history", "kings and merchants", "the medieval core", "old town history", "walls and gates"],
        .food: ["street food", "markets and bakeries", "a tasting walk", "coffee and cake", "wine and cheese"],
        .art: ["murals and galleries", "street art", "the artists' quarter", "a sculpture trail"],
        .architecture: ["Art Nouveau façades", "Baroque palaces", "modern architecture", "bridges and towers"],
        .nature: ["parks and gardens", "the riverside", "green corners", "hills and viewpoints"],
        .nightlife: ["bars and music", "after dark", "night lights", "the city by night"],
        .shopping: ["boutiques and markets", "design shops", "flea markets"],
        .culture: ["music and theatre", "writers and poets", "a cultural stroll", "festivals and traditions"],
        .religion: ["churches and chapels", "sacred places", "temples and shrines", "monasteries"],
        .family: ["a family adventure", "a walk for kids", "a treasure hunt"],
        .photography: ["the best photo spots", "viewpoints at sunset", "a photo walk"],
        .hiddenGems: ["hidden courtyards", "secret corners", "off the beaten track", "hidden gems"],
    ]
    static let walkNouns = ["walk", "tour", "stroll", "trail", "discovery"]
    static let bikeNouns = ["ride", "bike tour", "cycle", "loop"]
    /// Kinds of places, most frequent first (drawn with Zipf-like weights).
    static let kinds = ["Square", "Church", "Market", "Museum", "Bridge", "Park", "Gate", "Tower", "Palace", "Garden", "Fountain",
                        "Café", "Cathedral", "Harbour", "Castle", "Street", "Gallery", "Theatre", "Town Hall", "Library",
                        "Courtyard", "Chapel", "Quarter", "Station", "Viewpoint", "Monastery", "Bakery", "Brewery", "Mural",
                        "Statue", "Memorial", "Canal", "Pier", "Temple", "Opera", "Abbey", "Mill", "University", "Synagogue",
                        "Mosque", "Shrine", "Passage", "Arcade", "Terrace", "Steps", "Well", "Bastion", "Lighthouse", "Cemetery",
                        "Straße", "Platz", "Plaça", "Piazza", "Markt"]
    static let kindWeights = cumulativeWeights((0..<kinds.count).map { 1 / pow(Double($0 + 1), 0.7) })
    static let audiences = ["first-time visitors", "families", "photographers", "history lovers", "foodies", "curious locals",
                            "architecture fans", "night owls", "slow travellers"]
    static let guideNames = ["Anna", "Lukas", "Marie", "Jean", "Sofia", "Kenji", "Aylin", "Mateo", "Ingrid", "Priya", "Tomás",
                             "Zoë", "Björn", "Chloé", "Ngozi", "Hana", "Luca", "Olga", "Rafael", "Mei"]
    static let treats = ["coffee", "gelato", "pastries", "tapas", "dumplings", "Brötchen", "crème brûlée", "street food", "local wine"]
    static let centuries = ["12th", "13th", "14th", "15th", "16th", "17th", "18th", "19th", "20th"]

    /// Terms of the "common" text queries: words of the templates above that many tours share, single and in pairs.
    static let commonQueries = ["walk", "market", "church", "old town", "history", "square", "museum", "bridge", "garden",
                                "cafe", "castle", "palace", "night", "street art", "coffee", "hidden", "tour", "river",
                                "art", "food"]

    static func kind(_ rng: inout SeededGenerator) -> String {
        kinds[rng.weightedIndex(kindWeights)]
    }

    /// `Gallery` → `galleries`, `Church` → `churches`, `Steps` → `steps`.
    static func plural(_ kind: String) -> String {
        let word = kind.lowercased()
        if word.hasSuffix("s") { return word }
        if word.hasSuffix("y"), let before = word.dropLast().last, !"aeiou".contains(before) { return word.dropLast() + "ies" }
        if word.hasSuffix("ch") || word.hasSuffix("sh") || word.hasSuffix("x") { return word + "es" }
        return word + "s"
    }

    static func title(city: String, themes: [TourTheme], mode: TourMode, names: [String], _ rng: inout SeededGenerator) -> String {
        let phrase = rng.pick(themePhrases[themes[0]]!)
        let noun = rng.pick(mode == .walk ? walkNouns : bikeNouns)
        return switch Int.random(in: 0..<6, using: &rng) {
        case 0: "\(rng.pick(adjectives)) \(city): \(phrase)"
        case 1: "\(city) \(themes[0].rawValue.replacingOccurrences(of: "-", with: " ")) \(noun)"
        case 2: "The \(rng.pick(adjectives).lowercased()) \(plural(kind(&rng))) of \(city)"
        case 3: "\(phrase.prefix(1).uppercased() + phrase.dropFirst()) in \(city)"
        case 4: "\(city) \(noun): \(phrase)"
        default: "\(rng.pick(names)) and the \(rng.pick(adjectives).lowercased()) \(kind(&rng).lowercased())"
        }
    }

    static func description(city: String, themes: [TourTheme], mode: TourMode, minutes: Int, stops: [TourStop],
                            _ rng: inout SeededGenerator) -> String {
        var sentences = [
            "Discover \(rng.pick(themePhrases[themes.last!]!)) on a \(minutes)-minute \(mode == .walk ? "walk" : "bike ride") through \(city).",
            "We start at \(stops.first!.name) and end near \(stops.last!.name).",
        ]
        if rng.chance(0.7) {
            sentences.append("Along the way: \(plural(kind(&rng))), \(plural(kind(&rng))) and \(plural(kind(&rng))).")
        }
        if rng.chance(0.5) { sentences.append("Ideal for \(rng.pick(audiences)).") }
        if rng.chance(0.5) {
            sentences.append("Your guide \(rng.pick(guideNames)) grew up in \(city) and knows every \(kind(&rng).lowercased()).")
        }
        if rng.chance(0.4) { sentences.append("Stop for \(rng.pick(treats)) at a local \(kind(&rng).lowercased()).") }
        return sentences.joined(separator: " ")
    }

    static func stopName(city: String, names: [String], usedNames: inout [String], _ rng: inout SeededGenerator) -> String {
        let kind = kind(&rng)
        func proper() -> String {
            let name = rng.pick(names)
            usedNames.append(name)
            return name
        }
        return switch Int.random(in: 0..<20, using: &rng) {
        case 0..<8: "\(proper()) \(kind)"
        case 8..<10: "St. \(proper())'s \(kind)"
        case 10..<13: "\(rng.pick(adjectives)) \(kind)"
        case 13..<15: "\(city) \(kind)"
        case 15..<18: "\(kind) \(proper())"
        default: proper()
        }
    }

    /// `count` stops, the first within 2.5 km of the city centre, then 150–500 m apart on foot (400–1,200 m by bike),
    /// every stop within 3 km of the centre.
    static func makeStops(count: Int, around centre: Coordinate, mode: TourMode, city: String, names: [String],
                          usedNames: inout [String], _ rng: inout SeededGenerator) -> [TourStop] {
        var point = centre.destination(bearing: Double.random(in: 0..<360, using: &rng),
                                       distance: 2_500 * Double.random(in: 0..<1, using: &rng).squareRoot())
        var bearing = Double.random(in: 0..<360, using: &rng)
        var stops: [TourStop] = []
        for _ in 0..<count {
            let name = stopName(city: city, names: names, usedNames: &usedNames, &rng)
            var media: [StopMedia] = []
            if rng.chance(0.6) { media.append(randomMedia(kind: "image", contentType: "image/jpeg", &rng)) }
            if rng.chance(0.3) { media.append(randomMedia(kind: "audio", contentType: "audio/mpeg", &rng)) }
            stops.append(TourStop(
                stopId: UUID.v4(using: &rng), name: name,
                description: "A \(rng.pick(adjectives).lowercased()) \(kind(&rng).lowercased()) from the \(rng.pick(centuries)) century.",
                location: LatLng(lat: (point.latitude * 1e6).rounded() / 1e6, lng: (point.longitude * 1e6).rounded() / 1e6),
                triggerRadiusMetres: 30, media: media))
            let step = mode == .walk ? Double.random(in: 150...500, using: &rng) : Double.random(in: 400...1_200, using: &rng)
            bearing += Double.random(in: -60...60, using: &rng)
            var next = point.destination(bearing: bearing, distance: step)
            if next.distance(to: centre) > 3_000 {
                bearing = point.initialBearing(to: centre) + Double.random(in: -45...45, using: &rng)
                next = point.destination(bearing: bearing, distance: step)
            }
            point = next
        }
        return stops
    }

    static func randomMedia(kind: String, contentType: String, _ rng: inout SeededGenerator) -> StopMedia {
        let hex = (0..<4).map { _ in String(format: "%016llx", rng.next() as UInt64) }.joined()
        return StopMedia(sha256: hex, kind: kind, contentType: contentType, size: Int64.random(in: 50_000...4_000_000, using: &rng))
    }

    /// `count` distinct made-up proper names (2–3 syllables, some with diacritics), so that each occurs in few tours.
    static func properNames(count: Int, _ rng: inout SeededGenerator) -> [String] {
        let onsets = ["b", "br", "c", "d", "f", "g", "gr", "k", "l", "m", "n", "p", "r", "s", "st", "t", "tr", "v", "z", "ch", "h", "j"]
        let vowels = ["a", "e", "i", "o", "u", "ei", "au", "ia", "ö", "á", "é", "ü"]
        let codas = ["", "", "n", "r", "l", "s", "m", "nd", "tz"]
        var names = Set<String>()
        var ordered: [String] = []
        while ordered.count < count {
            let syllables = Int.random(in: 2...3, using: &rng)
            let word = (0..<syllables).map { _ in rng.pick(onsets) + rng.pick(vowels) + rng.pick(codas) }.joined()
            let name = word.prefix(1).uppercased() + word.dropFirst()
            if word.count >= 5, names.insert(DiscoveryText.folded(name)).inserted { ordered.append(name) }
        }
        return ordered
    }
}

/// A failed check of the benchmark (wrong counts, missing data).
struct BenchError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
