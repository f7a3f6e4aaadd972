import TimelineTestSupport

/// Titles and names that look like what people write on a timeline: "Moved to Zürich",
/// "Job at Northwind", "Trip to São Paulo with Ana", a few with quotes or dashes, most of
/// them 10 to 40 bytes of UTF-8 (so they live on the heap, as real titles do).
enum TitleGenerator {
    private static let places = [
        "Berlin", "Lisbon", "Zürich", "São Paulo", "Kyoto", "New York", "Oslo", "Kraków", "Montréal",
        "Cape Town", "Reykjavík", "Melbourne", "Edinburgh", "Seville", "Tallinn", "Bordeaux", "Hanoi",
        "Valparaíso", "Istanbul", "Marrakesh", "Vancouver", "Ljubljana", "Dublin", "Naples",
    ]
    private static let people = [
        "Ana", "Jonas", "Mei", "Tomás", "Priya", "Olek", "Fatima", "Sven", "Chloé", "Kwame", "Yuki", "Lars",
    ]
    private static let companies = [
        "Northwind", "Contoso", "Initech", "Globex", "Umbrella Labs", "Acme Corp", "Hooli", "Stark & Sons",
    ]
    private static let things = [
        "the old Volvo", "a piano", "the flat on Elm Street", "a bicycle", "the cabin", "a sailboat",
    ]
    private static let skills = ["Portuguese", "the cello", "to swim", "to drive", "pottery", "Japanese"]

    /// A title for an event.
    static func title(using rng: inout SplitMix64) -> String {
        func pick(_ list: [String]) -> String { list[rng.below(list.count)] }
        switch rng.below(16) {
        case 0: return "Moved to " + pick(places)
        case 1: return "Trip to " + pick(places) + " with " + pick(people)
        case 2: return "Job at " + pick(companies)
        case 3: return pick(people) + "'s wedding in " + pick(places)
        case 4: return "Bought " + pick(things)
        case 5: return "Learned " + pick(skills)
        case 6: return "Concert in " + pick(places)
        case 7: return "Holiday — " + pick(places)
        case 8: return "Studied in " + pick(places)
        case 9: return "Born"
        case 10: return "Sold " + pick(things)
        case 11: return "Met " + pick(people)
        case 12: return "Marathon in " + pick(places) + " (finished!)"
        case 13: return "Conference \"" + pick(companies) + " Summit\" in " + pick(places)
        case 14: return "Living in " + pick(places)
        default: return "Project with " + pick(people) + " at " + pick(companies)
        }
    }

    /// A name for a timeline.
    static func timelineName(using rng: inout SplitMix64) -> String {
        ["My life", "Work", "Travel", "Family", "Archive", "Side projects", "Health"][rng.below(7)]
            + (rng.chance(30) ? " (" + people[rng.below(people.count)] + ")" : "")
    }
}
