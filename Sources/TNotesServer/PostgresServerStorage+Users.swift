import Logging
import PostgresNIO
import TNotesCore

/// Users, devices, pairing codes and quotas on PostgreSQL (the SQLite backend's twin: the same rules).
extension PostgresServerStorage {
    public func createUser(name: String, at: String) async throws -> Int64 {
        try await client.withTransaction(logger: logger) { conn in
            for try await _ in try await conn.query("SELECT 1 FROM users WHERE name = \(name)", logger: logger).decode(Int.self) {
                throw ServerError.conflict("user \(name) exists")
            }
            // A placeholder in the NOT NULL UNIQUE token_hash of step 1: tokens belong to devices now.
            let placeholder = "devices:" + Identifier.make()
            var id: Int64 = 0
            for try await v in try await conn.query(
                "INSERT INTO users(name, token_hash, created_at) VALUES (\(name), \(placeholder), \(at)) RETURNING id",
                logger: logger).decode(Int64.self) { id = v }
            try await conn.query("INSERT INTO user_seq(user_id, seq) VALUES (\(id), 0)", logger: logger)
            return id
        }
    }

    public func users() async throws -> [UserInfo] {
        var out = [UserInfo]()
        for try await (id, name, created, revoked) in try await client.query(
            "SELECT id, name, created_at, revoked_at FROM users ORDER BY id", logger: logger
        ).decode((Int64, String, String, String?).self) {
            out.append(UserInfo(id: id, name: name, createdAt: created, revokedAt: revoked))
        }
        return out
    }

    public func userId(name: String) async throws -> Int64? {
        for try await id in try await client.query("SELECT id FROM users WHERE name = \(name) AND revoked_at IS NULL", logger: logger)
            .decode(Int64.self) { return id }
        return nil
    }

    public func revokeUser(name: String, at: String) async throws -> Bool {
        try await client.withTransaction(logger: logger) { conn in
            var ids = [Int64]()
            for try await id in try await conn.query("""
                UPDATE users SET revoked_at = \(at), token_hash = 'revoked:' || id WHERE name = \(name) AND revoked_at IS NULL
                RETURNING id
                """, logger: logger).decode(Int64.self) { ids.append(id) }
            for id in ids {
                try await conn.query("UPDATE devices SET revoked_at = \(at) WHERE user_id = \(id) AND revoked_at IS NULL", logger: logger)
            }
            return !ids.isEmpty
        }
    }

    public func handle(user: Int64) async throws -> String? {
        for try await h in try await client.query("SELECT handle FROM users WHERE id = \(user)", logger: logger).decode(String?.self) {
            return h
        }
        return nil
    }

    public func setHandle(user: Int64, _ handle: String) async throws {
        for try await owner in try await client.query("SELECT id FROM users WHERE handle = \(handle)", logger: logger).decode(Int64.self)
        where owner != user {
            throw ServerError.conflict("the handle \(handle) is taken")
        }
        // One statement, not a transaction (whose errors PostgresNIO wraps): two users asking for the same handle
        // at once are told apart by the unique index.
        do {
            try await client.query("UPDATE users SET handle = \(handle) WHERE id = \(user)", logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw ServerError.conflict("the handle \(handle) is taken")
        }
    }

    public func user(handle: String) async throws -> Int64? {
        for try await id in try await client.query(
            "SELECT id FROM users WHERE handle = \(handle) AND revoked_at IS NULL", logger: logger
        ).decode(Int64.self) { return id }
        return nil
    }

    public func addDevice(user: Int64, name: String, tokenHash: String, at: String) async throws -> String {
        let id = Identifier.make()
        try await client.query("""
            INSERT INTO devices(id, user_id, name, token_hash, created_at) VALUES (\(id), \(user), \(name), \(tokenHash), \(at))
            """, logger: logger)
        return id
    }

    public func device(tokenHash: String) async throws -> DeviceCredential? {
        for try await (user, id, revoked, seen) in try await client.query("""
            SELECT d.user_id, d.id, d.revoked_at IS NOT NULL OR u.revoked_at IS NOT NULL, d.last_seen_at
            FROM devices d JOIN users u ON u.id = d.user_id WHERE d.token_hash = \(tokenHash)
            """, logger: logger).decode((Int64, String, Bool, String?).self)
        {
            return DeviceCredential(user: user, device: id, revoked: revoked, lastSeenAt: seen)
        }
        return nil
    }

    public func touchDevice(_ id: String, at: String) async throws {
        try await client.query("UPDATE devices SET last_seen_at = \(at) WHERE id = \(id)", logger: logger)
    }

    public func devices(user: Int64) async throws -> [DeviceInfo] {
        var out = [DeviceInfo]()
        for try await (id, name, created, seen) in try await client.query("""
            SELECT id, name, created_at, last_seen_at FROM devices WHERE user_id = \(user) AND revoked_at IS NULL ORDER BY created_at, id
            """, logger: logger).decode((String, String, String, String?).self)
        {
            out.append(DeviceInfo(id: id, name: name, createdAt: created, lastSeenAt: seen))
        }
        return out
    }

    public func revokeDevice(user: Int64, id: String, at: String) async throws -> Bool {
        var n = 0
        for try await _ in try await client.query("""
            UPDATE devices SET revoked_at = \(at) WHERE id = \(id) AND user_id = \(user) AND revoked_at IS NULL RETURNING id
            """, logger: logger).decode(String.self) { n += 1 }
        return n > 0
    }

    public func addPairingCode(user: Int64, codeHash: String, at: String, expiresAt: String) async throws {
        try await client.withTransaction(logger: logger) { conn in
            // Codes expired a day ago are of no use to anyone: each new code clears them.
            let forgotten = PairingCode.forgottenBefore(at)
            try await conn.query("DELETE FROM pairing_codes WHERE expires_at < \(forgotten)", logger: logger)
            try await conn.query("""
                INSERT INTO pairing_codes(code_hash, user_id, created_at, expires_at) VALUES (\(codeHash), \(user), \(at), \(expiresAt))
                """, logger: logger)
        }
    }

    public func redeemPairingCode(codeHash: String, now: String, deviceName: String, tokenHash: String) async throws -> PairingOutcome {
        try await client.withTransaction(logger: logger) { conn in
            // FOR UPDATE: two redeems of one code at once are serialized; the second sees it used.
            var found: (Int64, String?, String, String?)?
            for try await row in try await conn.query("""
                SELECT p.user_id, p.used_at, p.expires_at, u.revoked_at FROM pairing_codes p JOIN users u ON u.id = p.user_id
                WHERE p.code_hash = \(codeHash) FOR UPDATE OF p
                """, logger: logger).decode((Int64, String?, String, String?).self) { found = row }
            guard let (user, used, expires, revoked) = found, revoked == nil else { return .unknown }
            if used != nil { return .used }
            if expires <= now { return .expired }
            let id = Identifier.make()
            try await conn.query("UPDATE pairing_codes SET used_at = \(now) WHERE code_hash = \(codeHash)", logger: logger)
            try await conn.query("""
                INSERT INTO devices(id, user_id, name, token_hash, created_at) VALUES (\(id), \(user), \(deviceName), \(tokenHash), \(now))
                """, logger: logger)
            return .paired(user: user, device: id)
        }
    }

    public func quota(user: Int64) async throws -> Quota {
        for try await (records, audio) in try await client.query(
            "SELECT records, audio_bytes FROM quotas WHERE user_id = \(user)", logger: logger
        ).decode((Int64?, Int64?).self) { return Quota(records: records, audioBytes: audio) }
        return Quota()
    }

    public func setQuota(user: Int64, _ quota: Quota) async throws {
        try await client.query("""
            INSERT INTO quotas(user_id, records, audio_bytes) VALUES (\(user), \(quota.records), \(quota.audioBytes))
            ON CONFLICT (user_id) DO UPDATE SET records = excluded.records, audio_bytes = excluded.audio_bytes
            """, logger: logger)
    }

    public func usage(user: Int64) async throws -> Usage {
        var records: Int64 = 0, audio: Int64 = 0
        for try await n in try await client.query(
            "SELECT count(*) FROM records WHERE user_id = \(user) AND deleted_at IS NULL", logger: logger
        ).decode(Int64.self) { records = n }
        audio = try await audioBytes(user: user, excluding: "")
        return Usage(records: records, audioBytes: audio)
    }

    /// As SQLite's `liveAudioBytes`: every sermon's audio but the deleted ones' (and `excluding`'s).
    public func audioBytes(user: Int64, excluding sermonId: String) async throws -> Int64 {
        for try await n in try await client.query("""
            SELECT coalesce(sum(a.size_bytes), 0)::bigint FROM audio a
            LEFT JOIN records r ON r.user_id = a.user_id AND r.collection = 'sermons' AND r.id = a.sermon_id
            WHERE a.user_id = \(user) AND a.sermon_id <> \(sermonId) AND (r.id IS NULL OR r.deleted_at IS NULL)
            """, logger: logger).decode(Int64.self) { return n }
        return 0
    }
}

extension PostgresServerStorage.Transaction {
    func liveRecords() async throws -> Int64 {
        for try await n in try await conn.query(
            "SELECT count(*) FROM records WHERE user_id = \(user) AND deleted_at IS NULL", logger: logger
        ).decode(Int64.self) { return n }
        return 0
    }
}
