#!/usr/bin/env python3
"""The v3 fixture: v2.sqlite with migration step 3 applied exactly as Migrations.swift has it.
Regenerate only when adding a fixture; released fixtures never change."""
import os, re, shutil, sqlite3
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, '../../../Sources/TNotesStore/Migrations.swift')).read()
steps = dict(re.findall(r'Migration\(version: (\d+), summary: "[^"]*", sql: """\n(.*?)"""\)', src, re.S))
out = os.path.join(here, 'v3.sqlite')
shutil.copy(os.path.join(here, 'v2.sqlite'), out)
db = sqlite3.connect(out)
db.executescript(steps['3'])
db.execute("PRAGMA user_version=3")
db.commit()
db.execute("VACUUM")
db.close()
