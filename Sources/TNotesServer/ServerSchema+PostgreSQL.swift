/// The PostgreSQL backend's schema steps, in order (see `ServerSchema`).
extension ServerSchema {
    static let postgres: [String] = [
        """
        CREATE TABLE server_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE users(
            id BIGSERIAL PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
        -- One row per user; a push locks it (SELECT … FOR UPDATE) for the length of its transaction, which
        -- serializes that user's pushes, so sequence numbers commit in order and a pull never skips one.
        CREATE TABLE user_seq(user_id BIGINT PRIMARY KEY REFERENCES users(id), seq BIGINT NOT NULL);
        CREATE TABLE records(
            user_id BIGINT NOT NULL REFERENCES users(id),
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            sermon_id TEXT,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            deleted_at TEXT,
            seq BIGINT NOT NULL,
            body JSONB NOT NULL,
            PRIMARY KEY(user_id, collection, id)
        );
        CREATE INDEX records_by_sermon ON records(user_id, sermon_id, collection);
        CREATE TABLE changes(
            user_id BIGINT NOT NULL REFERENCES users(id),
            seq BIGINT NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            op TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            body JSONB NOT NULL,
            PRIMARY KEY(user_id, seq)
        );
        CREATE TABLE applied_ops(
            user_id BIGINT NOT NULL REFERENCES users(id),
            op_id TEXT NOT NULL,
            result TEXT NOT NULL,
            PRIMARY KEY(user_id, op_id)
        );
        CREATE TABLE audio(
            user_id BIGINT NOT NULL REFERENCES users(id),
            sermon_id TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            size_bytes BIGINT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY(user_id, sermon_id)
        );
        """,
        // 2: audio in the database, so any instance serves any blob (contract §6.4). A blob is a run of
        // 1 MiB chunks under a fresh blob id; the audio row names the blob whose digest matched.
        """
        ALTER TABLE audio ADD COLUMN blob_id TEXT;
        CREATE TABLE audio_chunks(
            blob_id TEXT NOT NULL,
            idx INT NOT NULL,
            user_id BIGINT NOT NULL REFERENCES users(id),
            sermon_id TEXT NOT NULL,
            data BYTEA NOT NULL,
            PRIMARY KEY(blob_id, idx)
        );
        CREATE INDEX audio_chunks_owner ON audio_chunks(user_id, sermon_id);
        """,
        // 3: as SQLite's 2.
        """
        CREATE TABLE merged_inputs(
            user_id BIGINT NOT NULL,
            collection TEXT NOT NULL,
            id TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            device_id TEXT NOT NULL,
            body JSONB NOT NULL,
            PRIMARY KEY(user_id, collection, id, updated_at, device_id)
        );
        """,
        // 4: as SQLite's 3.
        """
        CREATE UNIQUE INDEX records_by_public_id ON records((body->>'publicId')) WHERE collection = 'publications';
        """,
        // 5: the change log keeps each body as the canonical text the server wrote, so a pull splices it into
        // its page as it is. As jsonb every push parsed each body a second time and every pull printed it in
        // jsonb's layout and then parsed and re-serialized it (the pull ran at 9 k changes/s against 24 k on
        // SQLite). Rows logged before this step keep jsonb's layout: valid JSON, spliced the same way.
        """
        ALTER TABLE changes ALTER COLUMN body TYPE text USING body::text;
        """,
        // 6: the records' bodies as the canonical text too. As jsonb every push parsed each body once more,
        // inside the user's transaction, and every read printed it in jsonb's layout for the server to parse
        // again. Only a publication's public id is looked up inside a body: its index parses that one field.
        // And the foreign keys of the three tables a push writes go: each row's check was a trigger running
        // a query on users (18 % of PostgreSQL's time in a push, three per change). Every transaction that
        // writes these rows first locks its user's user_seq row, whose own key to users stays, and a user is
        // never deleted (a revoke keeps the row).
        """
        DROP INDEX records_by_public_id;
        ALTER TABLE records ALTER COLUMN body TYPE text USING body::text;
        CREATE UNIQUE INDEX records_by_public_id ON records(((body::jsonb)->>'publicId')) WHERE collection = 'publications';
        ALTER TABLE records DROP CONSTRAINT IF EXISTS records_user_id_fkey;
        ALTER TABLE changes DROP CONSTRAINT IF EXISTS changes_user_id_fkey;
        ALTER TABLE applied_ops DROP CONSTRAINT IF EXISTS applied_ops_user_id_fkey;
        """,
        // 7: a record's sermon index leads with the sermon. Led by the user, it was a second index the
        // planner could probe a push's (user, collection, id) lookups with: for a user that the statistics
        // still saw as empty (a new user's first push) both looked like one row, and it chose this one,
        // reading all of the user's records of the collection for every change of the batch (8.5 ms a
        // probe, 4.3 s a batch once the user had 650 k rows: the push went quadratic). Led by the sermon it
        // cannot serve that lookup at all; the children of one sermon, what it is for, find it as before.
        """
        DROP INDEX records_by_sermon;
        CREATE INDEX records_by_sermon ON records(sermon_id, user_id, collection);
        """,
        // 8: as SQLite's 5, a body stored once: a logged change that is its record's current version has
        // no body of its own, and the trigger copies the old body into the log when a record moves on.
        """
        ALTER TABLE changes ALTER COLUMN body DROP NOT NULL;
        CREATE FUNCTION records_keep_logged_body() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE changes SET body = OLD.body WHERE user_id = OLD.user_id AND seq = OLD.seq AND body IS NULL;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END
        $$;
        CREATE TRIGGER records_keep_logged_body BEFORE UPDATE OR DELETE ON records
            FOR EACH ROW EXECUTE FUNCTION records_keep_logged_body();
        """,
        // 9: identifiers compare as bytes. Keys are UUIDs, op ids and collection names, never shown in a
        // collation's order, but in a cluster with a locale (C.UTF-8 included, before PostgreSQL 17) every
        // comparison in their indexes went through strcoll: 6 % of the backends' time in a push. Only the
        // collation changes, so the tables are not rewritten; their indexes are rebuilt once.
        """
        ALTER TABLE records ALTER COLUMN collection TYPE text COLLATE "C", ALTER COLUMN id TYPE text COLLATE "C",
            ALTER COLUMN sermon_id TYPE text COLLATE "C";
        ALTER TABLE changes ALTER COLUMN collection TYPE text COLLATE "C", ALTER COLUMN id TYPE text COLLATE "C";
        ALTER TABLE applied_ops ALTER COLUMN op_id TYPE text COLLATE "C";
        ALTER TABLE merged_inputs ALTER COLUMN collection TYPE text COLLATE "C", ALTER COLUMN id TYPE text COLLATE "C";
        """,
        // 10: a push batch's whole write in one call (`PostgresPushBatch`): the user's lock, the check that
        // none of the batch's records was logged since its look-up (`p_seen`, the user's seq in that
        // look-up's snapshot), and the writes. Made from Swift as four statements and a commit, the lock was
        // held across five round trips and the server's turns between them: 14.6 ms a batch, of which
        // PostgreSQL worked 8 (statement log of the 1x bench push; 93 % of the push under the lock). A
        // VOLATILE function's statements each take a new snapshot, so everything after the lock sees every
        // push committed before it. Returns the seq before the batch, or -1 when a record of the batch was
        // logged since the look-up (nothing written; the caller decides the batch again under the lock).
        // An op id of the batch taken meanwhile (the same change pushed twice at once, the other copy not
        // applied, so nothing logged) breaks applied_ops' key: the call fails and nothing is kept.
        // The arrays: the logged changes (body '' when the record's row holds it), the new records, the
        // stored records updated (for both: '' for a NULL sermon id or deletion, and each one's place k among
        // the logged changes), the op results.
        """
        CREATE OR REPLACE FUNCTION tnotes_apply_batch(
            p_user bigint, p_seen bigint, p_keys text[],
            p_log_c text[], p_log_i text[], p_log_o text[], p_log_u text[], p_log_d text[], p_log_body text[],
            p_new_c text[], p_new_i text[], p_new_sid text[], p_new_u text[], p_new_d text[], p_new_del text[],
            p_new_k int8[], p_new_body text[],
            p_old_c text[], p_old_i text[], p_old_sid text[], p_old_u text[], p_old_d text[], p_old_del text[],
            p_old_k int8[], p_old_body text[],
            p_op_ids text[], p_op_results text[], p_channel text) RETURNS bigint
        LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            v_seq bigint;
            v_stale boolean;
            v_row record;
            v_logged bigint := coalesce(cardinality(p_log_c), 0);
        BEGIN
            SELECT seq INTO v_seq FROM user_seq WHERE user_id = p_user FOR UPDATE;
            IF v_seq IS NULL THEN
                RAISE EXCEPTION 'no user % to push for', p_user;
            END IF;
            IF v_seq < p_seen THEN
                RETURN -1;
            END IF;
            -- The changes committed since the look-up, read by the log's key, each one's key looked up in the
            -- batch's. Planned for its values (EXECUTE): the keys are then a constant array, which = ANY looks
            -- up in a hash, and there is no join for statistics to get wrong. As a join of the range with the
            -- keys, the function's cached generic plan saw ten keys and a one-row range and chose a nested
            -- loop: 43 ms for 1,000 changes against 500 keys.
            IF v_seq > p_seen THEN
                EXECUTE 'SELECT EXISTS (SELECT 1 FROM changes WHERE user_id = $1 AND seq > $2 AND seq <= $3
                                        AND collection || ''/'' || id = ANY($4))'
                    INTO v_stale USING p_user, p_seen, v_seq, p_keys;
                IF v_stale THEN
                    RETURN -1;
                END IF;
            END IF;
            INSERT INTO applied_ops(user_id, op_id, result) SELECT p_user, t.o, t.r FROM unnest(p_op_ids, p_op_results) AS t(o, r);
            IF v_logged > 0 THEN
                INSERT INTO changes(user_id, seq, collection, id, op, updated_at, device_id, body)
                SELECT p_user, v_seq + t.k, t.c, t.i, t.o, t.u, t.d, NULLIF(t.b, '')
                FROM unnest(p_log_c, p_log_i, p_log_o, p_log_u, p_log_d, p_log_body) WITH ORDINALITY AS t(c, i, o, u, d, b, k);
                -- New records are plain inserts and stored ones plain updates (the look-up said which exist):
                -- `INSERT … ON CONFLICT` would insert speculatively (a probe, a token and a confirmation WAL
                -- record per row) for rows that cannot conflict.
                INSERT INTO records(user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body)
                SELECT p_user, t.c, t.i, NULLIF(t.sid, ''), t.u, t.d, NULLIF(t.del, ''), v_seq + t.k, t.b
                FROM unnest(p_new_c, p_new_i, p_new_sid, p_new_u, p_new_d, p_new_del, p_new_k, p_new_body)
                  AS t(c, i, sid, u, d, del, k, b);
                -- Stored records one at a time, each by its whole primary key: the only plan there is. As one
                -- `UPDATE … FROM unnest(…)`, the function's cached generic plan, made from statistics that saw
                -- the user as empty, read all of the user's records for every batch, even with nothing to
                -- update (the bench's push after its realtime phase: 13.6 k changes/s, and falling).
                FOR v_row IN SELECT * FROM unnest(p_old_c, p_old_i, p_old_sid, p_old_u, p_old_d, p_old_del, p_old_k, p_old_body)
                                       AS t(c, i, sid, u, d, del, k, b) LOOP
                    UPDATE records SET sermon_id = NULLIF(v_row.sid, ''), updated_at = v_row.u, device_id = v_row.d,
                      deleted_at = NULLIF(v_row.del, ''), seq = v_seq + v_row.k, body = v_row.b
                    WHERE user_id = p_user AND collection = v_row.c AND id = v_row.i;
                END LOOP;
                UPDATE user_seq SET seq = v_seq + v_logged WHERE user_id = p_user;
                -- Delivered to every listening instance when, and only if, the transaction commits.
                PERFORM pg_notify(p_channel, p_user::text);
            END IF;
            RETURN v_seq;
        END
        $$;
        """,
        // 11: step 10's call with each logged change's columns sent once. It took the log rows, then the new
        // and the stored records' rows again (collection, id, time, device and their place among the log
        // rows), and every key of the batch for the stale check: 17 array elements a change. Now one set of
        // columns, where `p_row` says whether a change is also a record's final version ('n' new, 'o' stored,
        // '' the log only; such a change's log row keeps no body, its record's row has it), and the stale
        // check makes the logged changes' keys itself, only when it runs: 11 elements a change, and the
        // unlogged changes' keys (`p_other_keys`: superseded, duplicates).
        """
        DROP FUNCTION tnotes_apply_batch(bigint, bigint, text[],
            text[], text[], text[], text[], text[], text[],
            text[], text[], text[], text[], text[], text[], int8[], text[],
            text[], text[], text[], text[], text[], text[], int8[], text[],
            text[], text[], text);
        CREATE FUNCTION tnotes_apply_batch(
            p_user bigint, p_seen bigint, p_other_keys text[],
            p_c text[], p_i text[], p_o text[], p_u text[], p_d text[], p_row text[], p_sid text[], p_del text[], p_body text[],
            p_op_ids text[], p_op_results text[], p_channel text) RETURNS bigint
        LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            v_seq bigint;
            v_stale boolean;
            v_row record;
            v_logged bigint := coalesce(cardinality(p_c), 0);
        BEGIN
            SELECT seq INTO v_seq FROM user_seq WHERE user_id = p_user FOR UPDATE;
            IF v_seq IS NULL THEN
                RAISE EXCEPTION 'no user % to push for', p_user;
            END IF;
            IF v_seq < p_seen THEN
                RETURN -1;
            END IF;
            -- As in step 10: planned for its values (EXECUTE), the keys a constant array that = ANY hashes.
            IF v_seq > p_seen THEN
                EXECUTE 'SELECT EXISTS (SELECT 1 FROM changes WHERE user_id = $1 AND seq > $2 AND seq <= $3
                                        AND collection || ''/'' || id = ANY($4))'
                    INTO v_stale USING p_user, p_seen, v_seq,
                        ARRAY(SELECT t.c || '/' || t.i FROM unnest(p_c, p_i) AS t(c, i)) || p_other_keys;
                IF v_stale THEN
                    RETURN -1;
                END IF;
            END IF;
            INSERT INTO applied_ops(user_id, op_id, result) SELECT p_user, t.o, t.r FROM unnest(p_op_ids, p_op_results) AS t(o, r);
            IF v_logged > 0 THEN
                -- Each unnest is a function scan that copies its rows into a tuplestore first: the log's rows
                -- leave the bodies out (only a version the batch replaces keeps one, fetched by its place), and
                -- the stored records' loop runs only when there are some. Unnested with the bodies for every
                -- statement, PostgreSQL's CPU over a 1x push grew by 8 %.
                INSERT INTO changes(user_id, seq, collection, id, op, updated_at, device_id, body)
                SELECT p_user, v_seq + t.k, t.c, t.i, t.o, t.u, t.d, CASE WHEN t.r = '' THEN p_body[t.k] END
                FROM unnest(p_c, p_i, p_o, p_u, p_d, p_row) WITH ORDINALITY AS t(c, i, o, u, d, r, k);
                -- As in step 10: new records plain inserts, stored ones updated one at a time by their key.
                INSERT INTO records(user_id, collection, id, sermon_id, updated_at, device_id, deleted_at, seq, body)
                SELECT p_user, t.c, t.i, NULLIF(t.sid, ''), t.u, t.d, NULLIF(t.del, ''), v_seq + t.k, t.b
                FROM unnest(p_c, p_i, p_u, p_d, p_row, p_sid, p_del, p_body) WITH ORDINALITY AS t(c, i, u, d, r, sid, del, b, k)
                WHERE t.r = 'n';
                IF 'o' = ANY(p_row) THEN
                    FOR v_row IN SELECT * FROM unnest(p_c, p_i, p_u, p_d, p_row, p_sid, p_del, p_body) WITH ORDINALITY
                                           AS t(c, i, u, d, r, sid, del, b, k) WHERE t.r = 'o' LOOP
                        UPDATE records SET sermon_id = NULLIF(v_row.sid, ''), updated_at = v_row.u, device_id = v_row.d,
                          deleted_at = NULLIF(v_row.del, ''), seq = v_seq + v_row.k, body = v_row.b
                        WHERE user_id = p_user AND collection = v_row.c AND id = v_row.i;
                    END LOOP;
                END IF;
                UPDATE user_seq SET seq = v_seq + v_logged WHERE user_id = p_user;
                PERFORM pg_notify(p_channel, p_user::text);
            END IF;
            RETURN v_seq;
        END
        $$;
        """,
        // 12: the batch call as `tnotes_push_batch`, which writes the op results first, before the user's lock,
        // and then makes step 11's call with none. A batch prepared before the lock is no longer looked up by
        // its op ids (`PostgresPushBatch.LookUpScope`): one the log already has breaks applied_ops' key here at
        // once, without waiting for the lock, and the caller decides the batch again under the lock. So a
        // batch the look-up no longer holds now raises `TNST1` (its op results must not stay) where step 11's
        // call returns -1. Two batches holding the same op id can deadlock (each waits for what the other
        // holds); PostgreSQL aborts one, which is decided again the same way. Step 11's `tnotes_apply_batch`
        // stays as it is, also for an instance of the previous build still running while its replacements
        // start (a rolling upgrade).
        """
        CREATE FUNCTION tnotes_push_batch(
            p_user bigint, p_seen bigint, p_other_keys text[],
            p_c text[], p_i text[], p_o text[], p_u text[], p_d text[], p_row text[], p_sid text[], p_del text[], p_body text[],
            p_op_ids text[], p_op_results text[], p_channel text) RETURNS bigint
        LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
            v_seq bigint;
        BEGIN
            INSERT INTO applied_ops(user_id, op_id, result) SELECT p_user, t.o, t.r FROM unnest(p_op_ids, p_op_results) AS t(o, r);
            v_seq := tnotes_apply_batch(p_user, p_seen, p_other_keys, p_c, p_i, p_o, p_u, p_d, p_row, p_sid, p_del, p_body,
                                        '{}'::text[], '{}'::text[], p_channel);
            IF v_seq < 0 THEN
                RAISE EXCEPTION 'the batch''s look-up no longer holds' USING ERRCODE = 'TNST1';
            END IF;
            RETURN v_seq;
        END
        $$;
        """,
        // 13: a logged change finds its record's body by its seq. A pull reads the log in seq order and takes
        // each current version's body from its record (`PostgresServerStorage.loggedBody`); probed by the
        // primary key, every change descended to a random leaf of (user_id, collection, id), since a push's
        // records come in any key order. Past shared_buffers (128 MB by default; the key index is 187 MB at
        // 1.92 M records) a 16x pull's 960 pages took 22.4-23.6 s of PostgreSQL's time (a plpgsql loop over a
        // copy of the 16x log); by seq the probes of one page walk a few adjacent leaves: 9.5-9.7 s. Inserting
        // 200 k records there took as long with this index as without (10.6-11.2 s, 10.7-11.4 s, alternated).
        // Led by seq, not by the user: an index led by the user also serves a push's (user, collection, id)
        // look-up, and for a user the statistics see as empty the planner would pick it and read all of the
        // user's records per change (as step 7 says of the sermon index). Built in the migration's
        // transaction, so pushes wait for it once (1.6 s at 1.92 M records).
        """
        CREATE INDEX records_by_seq ON records(seq, user_id);
        """,
        // 14: a user's public handle (contract §8.5: /u/{handle}), unique on the server; NULL until chosen.
        """
        ALTER TABLE users ADD COLUMN handle TEXT;
        CREATE UNIQUE INDEX users_by_handle ON users(handle);
        """,
        // 15: devices (contract §8.6), as SQLite's step 8 says: one token per device, pairing codes in the
        // database, each user's live token kept as a device named "legacy".
        """
        CREATE TABLE IF NOT EXISTS devices(
            id TEXT PRIMARY KEY,
            user_id BIGINT NOT NULL,
            name TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            last_seen_at TEXT,
            revoked_at TEXT
        );
        CREATE INDEX IF NOT EXISTS devices_by_user ON devices(user_id);
        CREATE TABLE IF NOT EXISTS pairing_codes(
            code_hash TEXT PRIMARY KEY,
            user_id BIGINT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            used_at TEXT
        );
        CREATE TABLE IF NOT EXISTS quotas(user_id BIGINT PRIMARY KEY, records BIGINT, audio_bytes BIGINT);
        INSERT INTO devices(id, user_id, name, token_hash, created_at)
            SELECT gen_random_uuid()::text, id, 'legacy', token_hash, created_at FROM users
            WHERE revoked_at IS NULL AND strpos(token_hash, ':') = 0
            ON CONFLICT DO NOTHING;
        """,
    ]
}
