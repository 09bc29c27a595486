#!/usr/bin/env python3
"""The v2 fixture: v1.sqlite with migration step 2 applied exactly as Migrations.swift has it, plus a row
in the table v2 adds (audio_files). Regenerate only when adding a fixture; released fixtures never change."""
import re, shutil, sqlite3, sys, os
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, '../../../Sources/TNotesStore/Migrations.swift')).read()
steps = dict(re.findall(r'Migration\(version: (\d+), summary: "[^"]*", sql: """\n(.*?)"""\)', src, re.S))
out = os.path.join(here, 'v2.sqlite')
shutil.copy(os.path.join(here, 'v1.sqlite'), out)
db = sqlite3.connect(out)
db.executescript(steps['2'])
sid = db.execute("SELECT id FROM records WHERE collection='sermons' AND deleted_at IS NULL LIMIT 1").fetchone()[0]
db.execute("INSERT INTO audio_files(sermon_id,path,sha256,size_bytes,local_available,uploaded,updated_at) VALUES (?,?,?,?,?,?,?)",
           (sid, '/var/lib/tnotes/audio/%s.m4a' % sid, 'ab' * 32, 5242880, 1, 0, '2025-11-06T12:00:00.000Z'))
db.execute("PRAGMA user_version=2")
db.commit()
db.execute("VACUUM")
db.close()
