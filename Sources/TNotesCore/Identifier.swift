import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Record ids: lowercase UUID strings.
public enum Identifier {
    /// A new random (v4) id.
    public static func make() -> String { UUID().uuidString.lowercased() }

    /// Lowercase canonical form of `text` when it is a UUID, else nil.
    public static func normalize(_ text: String) -> String? {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return nil }
        return uuid.uuidString.lowercased()
    }

    public static func isUUID(_ text: String) -> Bool { normalize(text) == text }

    /// A deterministic id derived from a name (UUID version 8 layout over SHA-256). Used for the one
    /// transcript and the one summary of a sermon, so that two devices that each create "the transcript"
    /// of one sermon write the same record and the merge rule picks one, instead of leaving two.
    public static func derived(from parent: String, kind: String) -> String {
        var bytes = Array(SHA256.hash(data: Array("tnotes:\(kind):\(parent)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                              bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }

    public static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

public enum Hex {
    public static func encode<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
