import Testing
import TNotesCore

/// The one naming rule for stored audio copies: what an import or a download keeps is what the sweep reads back.
@Suite("audio file names")
struct AudioFileNameTests {
    @Test func theLastShortExtensionIsKept() {
        #expect(AudioFileName.storedExtension(of: "sermon.mp3") == ".mp3")
        #expect(AudioFileName.storedExtension(of: "Sunday.morning.opus") == ".opus")
        #expect(AudioFileName.storedExtension(of: "a.123456789") == ".123456789")
    }

    @Test func noExtensionLongOrAPartialsSuffix() {
        #expect(AudioFileName.storedExtension(of: "sermon") == "")
        #expect(AudioFileName.storedExtension(of: "sermon.") == "")
        #expect(AudioFileName.storedExtension(of: ".hidden") == "")
        #expect(AudioFileName.storedExtension(of: "a.1234567890") == "")
        #expect(AudioFileName.storedExtension(of: "x.download") == "")
        #expect(!AudioFileName.keepsExtension("a/b"))
        #expect(!AudioFileName.keepsExtension(""))
    }
}
