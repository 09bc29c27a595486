import Foundation
import Testing
import TNotesCore

@Suite struct IdentifierTests {
    @Test func derivedIsDeterministicAndAValidLowercaseUUID() {
        let parent = Sample.sermonId
        let a = Identifier.derived(from: parent, kind: "transcript")
        #expect(a == Identifier.derived(from: parent, kind: "transcript"))
        #expect(Identifier.isUUID(a))
        #expect(a == a.lowercased())
        #expect(a.utf8.count == 36)
        let chars = Array(a)
        #expect(chars[14] == "8")  // version 8
        #expect("89ab".contains(chars[19]))  // RFC 4122 variant
        // Pinned (computed independently by Fixtures/make-v1-fixture.py): every device derives the same id.
        #expect(a == "499327cd-db38-8df5-a562-af1474d739da")
        #expect(Identifier.derived(from: parent, kind: "summary") == "ec35c96e-331f-834b-b802-cbe8c7daee29")
    }

    /// A sermon's transcript and summary ids: deterministic as `derived` (every device derives the same one),
    /// and ordered as their sermons, so that they append to the indexes keyed by id.
    @Test func derivedInOrderIsDeterministicAndLeadsWithItsParent() {
        let parent = Sample.sermonId
        let a = Identifier.derivedInOrder(from: parent, kind: "transcript")
        #expect(a == Identifier.derivedInOrder(from: parent, kind: "transcript"))
        #expect(Identifier.isUUID(a))
        let chars = Array(a)
        #expect(chars[14] == "8")  // version 8
        #expect("89ab".contains(chars[19]))  // RFC 4122 variant
        // Pinned, computed independently (Python: the parent's first 8 bytes over SHA-256("tnotes:<kind>:<parent>")'s
        // first 16, then the version and variant bits): the parent's first three groups, version 8, then the
        // same hash bits as `derived` ("499327cd-db38-8df5-a562-af1474d739da").
        #expect(a == "4f9c2a51-8d3e-8b7a-a562-af1474d739da")
        #expect(Identifier.derivedInOrder(from: parent, kind: "summary") == "4f9c2a51-8d3e-8b7a-b802-cbe8c7daee29")
        // Not a UUID: the hash alone, as `derived` makes it.
        #expect(Identifier.derivedInOrder(from: "legacy-sermon-1", kind: "transcript") == "cb34ed20-9ec4-83b1-9267-fdc8d5eae62a")
        #expect(Identifier.derivedInOrder(from: "legacy-sermon-1", kind: "transcript") == Identifier.derived(from: "legacy-sermon-1", kind: "transcript"))
    }

    @Test func derivedInOrderSortsAsItsParentsAndStaysDistinct() {
        let parents = (0..<5_000).map { _ in Identifier.make() }
        let transcripts = parents.map { Identifier.derivedInOrder(from: $0, kind: "transcript") }
        let summaries = parents.map { Identifier.derivedInOrder(from: $0, kind: "summary") }
        #expect(transcripts == transcripts.sorted())
        #expect(summaries == summaries.sorted())
        #expect(Set(transcripts + summaries + parents).count == 3 * parents.count)
        for (p, t) in zip(parents, transcripts).prefix(100) {
            // The parent's time and counter; only the version digit differs in the first three groups.
            #expect(t.prefix(14) == p.prefix(14) && t.dropFirst(15).prefix(3) == p.dropFirst(15).prefix(3))
        }
    }

    @Test func derivedDependsOnKindAndParent() {
        let p = Sample.sermonId
        let ids: Set<String> = [
            Identifier.derived(from: p, kind: "transcript"), Identifier.derived(from: p, kind: "summary"),
            Identifier.derived(from: "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c02", kind: "transcript"), p,
        ]
        #expect(ids.count == 4)
    }

    @Test func makeGivesLowercaseUUIDs() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = Identifier.make()
            #expect(Identifier.isUUID(id))
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }

    /// Version 7 (time-ordered): ids made one after another sort in the order they were made, so the
    /// B-trees keyed by id grow at their right edge instead of on a random page per insert.
    @Test func makeGivesTimeOrderedVersion7Ids() throws {
        let ids = (0..<10_000).map { _ in Identifier.make() }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            let chars = Array(id)
            #expect(chars[14] == "7")
            #expect("89ab".contains(chars[19]))
        }
        // The first 48 bits are Unix milliseconds: within a minute of now.
        let ms = try #require(UInt64(String(Array(ids[0]).filter { $0 != "-" }.prefix(12)), radix: 16))
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(ms <= now + 1000 && now - ms < 60_000)
    }

    @Test func normalize() {
        #expect(Identifier.normalize("4F9C2A51-8D3E-4B7A-9C1F-2E6D8A0B1C01") == "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c01")
        #expect(Identifier.normalize("4f9c2a518d3e4b7a9c1f2e6d8a0b1c01") == nil)
        #expect(Identifier.normalize("{4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c01}") == nil)
        #expect(Identifier.normalize("") == nil)
        #expect(Identifier.isUUID("4F9C2A51-8D3E-4B7A-9C1F-2E6D8A0B1C01") == false)
    }

    @Test func sha256Hex() {
        #expect(Identifier.isSHA256Hex(String(repeating: "0f", count: 32)))
        #expect(!Identifier.isSHA256Hex(String(repeating: "0F", count: 32)))
        #expect(!Identifier.isSHA256Hex(String(repeating: "0f", count: 31)))
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "00abff")
    }
}
