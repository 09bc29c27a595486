import TNotesCore
import TNotesSQLite

/// Users, devices, pairing codes and quotas on SQLite. Look-ups a request makes (its token's device) run on
/// the reader, never behind a push; every change runs on the writer.
extension SQLiteServerStorage {
    public func createUser(name: String, at: String) async throws -> Int64 {
        try await locked {
            try db.transaction {
                if try db.query("SELECT 1 FROM users WHERE name = ?", [.text(name)]).first != nil {
                    throw ServerError.conflict("user \(name) exists")
                }
                // users.token_hash is NOT NULL UNIQUE from schema step 1; tokens now belong to devices, and the
                // placeholder (with a ':', which no hex hash has) matches no token.
                try db.run("INSERT INTO users(name, token_hash, created_at) VALUES (?, ?, ?)",
                           [.text(name), .text("devices:" + Identifier.make()), .text(at)])
                let id = try db.scalar("SELECT id FROM users WHERE name = ?", [.text(name)])
                try db.run("INSERT INTO user_seq(user_id, seq) VALUES (?, 0)", [id])
                return id.int ?? 0
            }
        }
    }

    public func users() async throws -> [UserInfo] {
        try await locked {
            try db.query("SELECT id, name, created_at, revoked_at FROM users ORDER BY id").map {
                UserInfo(id: $0[0].int ?? 0, name: $0[1].string ?? "", createdAt: $0[2].string ?? "", revokedAt: $0[3].string)
            }
        }
    }

    public func userId(name: String) async throws -> Int64? {
        try await reading { try reader.scalar("SELECT id FROM users WHERE name = ? AND revoked_at IS NULL", [.text(name)]).int }
    }

    public func revokeUser(name: String, at: String) async throws -> Bool {
        try await locked {
            try db.transaction {
                // The user's own hash is replaced too, so that a downgrade's "legacy" device can never come back.
                try db.run("UPDATE users SET revoked_at = ?, token_hash = 'revoked:' || id WHERE name = ? AND revoked_at IS NULL",
                           [.text(at), .text(name)])
                guard db.changes > 0 else { return false }
                try db.run("UPDATE devices SET revoked_at = ? WHERE revoked_at IS NULL AND user_id = (SELECT id FROM users WHERE name = ?)",
                           [.text(at), .text(name)])
                return true
            }
        }
    }

    public func handle(user: Int64) async throws -> String? {
        try await reading { try reader.scalar("SELECT handle FROM users WHERE id = ?", [.int(user)]).string }
    }

    public func setHandle(user: Int64, _ handle: String) async throws {
        try await locked {
            try db.transaction {
                if let owner = try db.scalar("SELECT id FROM users WHERE handle = ?", [.text(handle)]).int, owner != user {
                    throw ServerError.conflict("the handle \(handle) is taken")
                }
                try db.run("UPDATE users SET handle = ? WHERE id = ?", [.text(handle), .int(user)])
            }
        }
    }

    public func user(handle: String) async throws -> Int64? {
        try await reading {
            try reader.scalar("SELECT id FROM users WHERE handle = ? AND revoked_at IS NULL", [.text(handle)]).int
        }
    }

    public func addDevice(user: Int64, name: String, tokenHash: String, at: String) async throws -> String {
        let id = Identifier.make()
        try await locked {
            try db.run("INSERT INTO devices(id, user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                       [.text(id), .int(user), .text(name), .text(tokenHash), .text(at)])
        }
        return id
    }

    public func device(tokenHash: String) async throws -> DeviceCredential? {
        try await reading {
            try reader.query("""
                SELECT d.user_id, d.id, d.revoked_at IS NOT NULL OR u.revoked_at IS NOT NULL, d.last_seen_at
                FROM devices d JOIN users u ON u.id = d.user_id WHERE d.token_hash = ?
                """, [.text(tokenHash)]).first.map {
                DeviceCredential(user: $0[0].int ?? 0, device: $0[1].string ?? "", revoked: ($0[2].int ?? 1) != 0, lastSeenAt: $0[3].string)
            }
        }
    }

    public func touchDevice(_ id: String, at: String) async throws {
        try await locked { try db.run("UPDATE devices SET last_seen_at = ? WHERE id = ?", [.text(at), .text(id)]) }
    }

    public func devices(user: Int64) async throws -> [DeviceInfo] {
        try await reading {
            try reader.query("""
                SELECT id, name, created_at, last_seen_at FROM devices WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id
                """, [.int(user)]).map {
                DeviceInfo(id: $0[0].string ?? "", name: $0[1].string ?? "", createdAt: $0[2].string ?? "", lastSeenAt: $0[3].string)
            }
        }
    }

    public func revokeDevice(user: Int64, id: String, at: String) async throws -> Bool {
        try await locked {
            try db.run("UPDATE devices SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                       [.text(at), .text(id), .int(user)])
            return db.changes > 0
        }
    }

    public func addPairingCode(user: Int64, codeHash: String, at: String, expiresAt: String) async throws {
        try await locked {
            try db.transaction {
                // Codes expired a day ago are of no use to anyone (until then a late one is told "expired"):
                // each new code clears them.
                try db.run("DELETE FROM pairing_codes WHERE expires_at < ?", [.text(PairingCode.forgottenBefore(at))])
                try db.run("INSERT INTO pairing_codes(code_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                           [.text(codeHash), .int(user), .text(at), .text(expiresAt)])
            }
        }
    }

    public func redeemPairingCode(codeHash: String, now: String, deviceName: String, tokenHash: String) async throws -> PairingOutcome {
        try await locked {
            try db.transaction {
                guard let row = try db.query("""
                    SELECT p.user_id, p.used_at, p.expires_at, u.revoked_at FROM pairing_codes p JOIN users u ON u.id = p.user_id
                    WHERE p.code_hash = ?
                    """, [.text(codeHash)]).first, row[3].string == nil
                else { return .unknown }
                if row[1].string != nil { return .used }
                // Fixed-width UTC timestamps: text order is time order.
                if (row[2].string ?? "") <= now { return .expired }
                let user = row[0].int ?? 0
                let id = Identifier.make()
                try db.run("UPDATE pairing_codes SET used_at = ? WHERE code_hash = ?", [.text(now), .text(codeHash)])
                try db.run("INSERT INTO devices(id, user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                           [.text(id), .int(user), .text(deviceName), .text(tokenHash), .text(now)])
                return .paired(user: user, device: id)
            }
        }
    }

    public func quota(user: Int64) async throws -> Quota {
        try await reading {
            try reader.query("SELECT records, audio_bytes FROM quotas WHERE user_id = ?", [.int(user)]).first
                .map { Quota(records: $0[0].int, audioBytes: $0[1].int) } ?? Quota()
        }
    }

    public func setQuota(user: Int64, _ quota: Quota) async throws {
        try await locked {
            try db.run("""
                INSERT INTO quotas(user_id, records, audio_bytes) VALUES (?, ?, ?)
                ON CONFLICT(user_id) DO UPDATE SET records = excluded.records, audio_bytes = excluded.audio_bytes
                """, [.int(user), SQLValue(quota.records), SQLValue(quota.audioBytes)])
        }
    }

    public func usage(user: Int64) async throws -> Usage {
        try await reading {
            let records = try reader.scalar(Self.liveRecordCount, [.int(user)]).int ?? 0
            let audio = try reader.scalar(Self.liveAudioBytes, [.int(user), .text("")]).int ?? 0
            return Usage(records: records, audioBytes: audio)
        }
    }

    public func audioBytes(user: Int64, excluding sermonId: String) async throws -> Int64 {
        try await reading { try reader.scalar(Self.liveAudioBytes, [.int(user), .text(sermonId)]).int ?? 0 }
    }

    static let liveRecordCount = "SELECT count(*) FROM records WHERE user_id = ? AND deleted_at IS NULL"
    /// A sermon's audio counts unless the sermon is deleted: deleting it frees the bytes; audio uploaded for a
    /// sermon with no record (yet) counts, so uploads to made-up ids cannot pass the quota.
    static let liveAudioBytes = """
        SELECT coalesce(sum(a.size_bytes), 0) FROM audio a
        LEFT JOIN records r ON r.user_id = a.user_id AND r.collection = 'sermons' AND r.id = a.sermon_id
        WHERE a.user_id = ? AND a.sermon_id <> ? AND (r.id IS NULL OR r.deleted_at IS NULL)
        """
}

extension SQLiteServerStorage.Transaction {
    func liveRecords() async throws -> Int64 {
        try db.scalar(SQLiteServerStorage.liveRecordCount, [.int(user)]).int ?? 0
    }
}
