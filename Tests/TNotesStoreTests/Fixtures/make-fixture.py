#!/usr/bin/env python3
"""Makes the fixture of schema version N (N >= 2): v(N-1).sqlite with migration step N applied exactly as
Sources/TNotesStore/Migrations.swift has it, plus rows for what that step adds. Usage: make-fixture.py N.
Regenerate only when adding a fixture; released fixtures never change. (v1 comes from make-v1-fixture.py.)"""
import os, re, shutil, sqlite3, sys

# Rows that exercise what a step adds, so the upgrade test has data to keep.
EXTRA_ROWS = {
    2: lambda db: db.execute(
        "INSERT INTO audio_files(sermon_id,path,sha256,size_bytes,local_available,uploaded,updated_at) VALUES (?,?,?,?,?,?,?)",
        (sid(db), '/var/lib/tnotes/audio/%s.m4a' % sid(db), 'ab' * 32, 5242880, 1, 0, '2025-11-06T12:00:00.000Z')),
    4: lambda db: db.execute(
        "INSERT INTO history(collection,id,updated_at,device_id,body,replaced_at,reason) "
        "SELECT collection,id,'2025-11-01T09:00:00.000Z',device_id,body,'2025-11-06T12:00:00.000Z','edit' "
        "FROM records WHERE collection='notes' LIMIT 2"),
    5: lambda db: db.executemany(
        "INSERT INTO jobs(id,kind,sermon_id,params,state,attempts,last_error,not_before,created_at,updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
        [('00000000-0000-4000-8000-00000000a001', 'transcribe', sid(db), '{}', 'done', 1, None, 0,
          '2025-11-06T12:00:00.000Z', '2025-11-06T12:05:00.000Z'),
         ('00000000-0000-4000-8000-00000000a002', 'summarize', sid(db), '{"type":"bullet","explicit":false}', 'running', 1,
          None, 0, '2025-11-06T12:05:00.000Z', '2025-11-06T12:05:01.000Z')]),
    12: lambda db: db.execute("UPDATE jobs SET engine='pocketsphinx', model='/usr/share/pocketsphinx/model/en-us' "
                              "WHERE kind='transcribe'"),
    13: lambda db: db.execute("UPDATE audio_files SET last_used_at='2025-11-06T12:00:00.000Z'"),
}

def edit_table(db, table, text, replacement):
    """SQLiteConnection.editTableDefinition, as in Sources/TNotesSQLite/TableDefinitionEdit.swift."""
    sql = db.execute("SELECT sql FROM sqlite_schema WHERE type='table' AND name=?", (table,)).fetchone()[0]
    assert sql.count(text) == 1, (table, text)
    version = db.execute("PRAGMA schema_version").fetchone()[0]
    db.execute("PRAGMA writable_schema=ON")
    db.execute("UPDATE sqlite_schema SET sql=? WHERE type='table' AND name=?", (sql.replace(text, replacement), table))
    db.execute("PRAGMA schema_version=%d" % (version + 1))
    db.execute("PRAGMA writable_schema=OFF")

# Steps whose work is a Swift `edit` (Migrations.swift), done here the same way.
EDITS = {
    11: lambda db: (
        edit_table(db, "records", "CHECK(json_valid(body) AND json_type(body) = 'object')", "CHECK(substr(body, 1, 1) = '{')"),
        edit_table(db, "records", "CHECK(sync_state IN ('pending','synced','error'))",
                   "CHECK(sync_state = 'pending' OR sync_state = 'synced' OR sync_state = 'error')"),
        edit_table(db, "outbox", "CHECK(json_valid(change))", "CHECK(substr(change, 1, 1) = '{')"),
        edit_table(db, "history", "CHECK(reason IN ('edit','remote','merge','restore','delete'))",
                   "CHECK(reason = 'edit' OR reason = 'remote' OR reason = 'merge' OR reason = 'restore' OR reason = 'delete')"),
        edit_table(db, "jobs", "CHECK(kind IN ('transcribe','summarize','chat'))",
                   "CHECK(kind = 'transcribe' OR kind = 'summarize' OR kind = 'chat')"),
        edit_table(db, "jobs", "CHECK(state IN ('queued','running','done','failed'))",
                   "CHECK(state = 'queued' OR state = 'running' OR state = 'done' OR state = 'failed')")),
}

def sid(db):
    return db.execute("SELECT id FROM records WHERE collection='sermons' AND deleted_at IS NULL LIMIT 1").fetchone()[0]

def main(n):
    here = os.path.dirname(os.path.abspath(__file__))
    src = open(os.path.join(here, '../../../Sources/TNotesStore/Migrations.swift')).read()
    steps = dict(re.findall(r'Migration\(version: (\d+), summary: "[^"]*", sql: """\n(.*?)"""\)', src, re.S))
    out = os.path.join(here, 'v%d.sqlite' % n)
    shutil.copy(os.path.join(here, 'v%d.sqlite' % (n - 1)), out)
    db = sqlite3.connect(out)
    db.executescript(steps.get(str(n), ""))
    if n in EDITS:
        EDITS[n](db)
    if n in EXTRA_ROWS:
        EXTRA_ROWS[n](db)
    db.execute("PRAGMA user_version=%d" % n)
    db.commit()
    db.execute("VACUUM")
    db.close()

if __name__ == '__main__':
    main(int(sys.argv[1]))
