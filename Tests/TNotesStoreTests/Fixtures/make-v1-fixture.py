#!/usr/bin/env python3
"""Generates v1.sqlite: a tnotes database at schema version 1, as a device running the first release
would have left it. MigrationTests open a copy of it and check that the upgrade keeps every row.

The schema is taken verbatim from step 1 of Sources/TNotesStore/Migrations.swift (released steps never
change). Bodies are canonical JSON (sorted keys, no spaces, raw UTF-8), as the store writes them.

Usage: python3 make-v1-fixture.py [OUTPUT]   (default: v1.sqlite beside this script)
"""
import hashlib
import json
import os
import re
import sqlite3
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
MIGRATIONS = os.path.join(HERE, "..", "..", "..", "Sources", "TNotesStore", "Migrations.swift")


def migration_v1_sql():
    """The SQL of `Migration(version: 1, ...)`, with Swift's multi-line string indentation removed."""
    src = open(MIGRATIONS, encoding="utf-8").read()
    m = re.search(r'Migration\(version: 1,.*?sql: """\n(.*?)\n([ \t]*)"""', src, re.S)
    if not m:
        sys.exit("cannot find migration 1 in " + MIGRATIONS)
    body, indent = m.group(1), m.group(2)
    lines = []
    for line in body.split("\n"):
        if line.strip() == "":
            lines.append("")
        elif line.startswith(indent):
            lines.append(line[len(indent):])
        else:
            sys.exit("bad indentation in migration 1: %r" % line)
    return "\n".join(lines)


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def derived(parent, kind):
    """Identifier.derived(from:kind:): UUID v8 layout over SHA-256("tnotes:<kind>:<parent>")."""
    b = bytearray(hashlib.sha256(("tnotes:%s:%s" % (kind, parent)).encode()).digest()[:16])
    b[6] = (b[6] & 0x0F) | 0x80
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


LOCAL = "7d0c7f4e-2f1a-4c59-9a7e-0b7f3f1f6a01"   # this device
OTHER = "c3a1b2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d"   # another device of the same user

S1 = "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c01"
S2 = "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c02"
S3 = "4f9c2a51-8d3e-4b7a-9c1f-2e6d8a0b1c03"

records = []  # (collection, body, device_id, sync_state)

s1 = {
    "id": S1, "title": "Walking in the Spirit", "date": "2025-11-02T10:00:00.000Z",
    "serviceType": "Sunday Service", "speaker": "Pastor John Müller", "isArchived": False,
    "transcriptionStatus": "complete", "summaryStatus": "complete",
    "audio": {"fileName": "2025-11-02-walking.m4a", "sizeBytes": 18734221,
              "sha256": hashlib.sha256(b"walking in the spirit").hexdigest()},
    "createdAt": "2025-11-02T09:58:12.345Z", "updatedAt": "2025-11-02T13:40:00.120Z", "deletedAt": None,
}
s2 = {
    "id": S2, "title": "Grace Upon Grace — John 1:16", "date": "2025-11-09T10:30:00.000Z",
    "serviceType": "Sunday Service", "speaker": None, "isArchived": False,
    "transcriptionStatus": "pending", "summaryStatus": "pending", "audio": None,
    "createdAt": "2025-11-09T10:31:05.000Z", "updatedAt": "2025-11-09T11:15:42.007Z", "deletedAt": None,
}
s3 = {
    "id": S3, "title": "Midweek prayer (test recording)", "date": "2025-10-29T19:00:00.000Z",
    "serviceType": "Wednesday Prayer", "speaker": "Elder Ruth", "isArchived": True,
    "transcriptionStatus": "failed", "summaryStatus": "pending", "audio": None,
    "createdAt": "2025-10-29T19:02:00.000Z", "updatedAt": "2025-11-03T08:00:00.500Z",
    "deletedAt": "2025-11-03T08:00:00.500Z",
}
records += [("sermons", s1, OTHER, "synced"), ("sermons", s2, LOCAL, "pending"), ("sermons", s3, LOCAL, "pending")]


def note(n, sermon, text, ts, created, updated, deleted=None):
    return {"id": "9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c%02d" % n, "sermonId": sermon, "text": text,
            "timestamp": ts, "createdAt": created, "updatedAt": updated, "deletedAt": deleted}


n1 = note(1, S1, "Key point: the Spirit leads, we follow (Gal 5:25)", 120.5,
          "2025-11-02T10:02:00.500Z", "2025-11-02T10:02:00.500Z")
n2 = note(2, S1, "\"Fruit\" is singular — one fruit, nine aspects.\nLove first.", 300,
          "2025-11-02T10:05:00.000Z", "2025-11-02T10:06:10.000Z")
n3 = note(3, S1, "Application: daily examen 🙏", 845.25, "2025-11-02T10:14:05.250Z", "2025-11-02T10:14:05.250Z")
n4 = note(4, S2, "John 1:16 — χάριν ἀντὶ χάριτος", 42, "2025-11-09T10:35:00.000Z", "2025-11-09T11:15:42.007Z")
n5 = note(5, S3, "mic check", 3.5, "2025-10-29T19:03:00.000Z", "2025-11-03T08:00:00.500Z",
          "2025-11-03T08:00:00.500Z")
records += [("notes", n1, OTHER, "synced"), ("notes", n2, OTHER, "synced"), ("notes", n3, OTHER, "synced"),
            ("notes", n4, LOCAL, "pending"), ("notes", n5, LOCAL, "pending")]

segments = [
    {"start": 0, "end": 4.5, "text": "Good morning, church.", "speaker": "Pastor John"},
    {"start": 4.5, "end": 12.25, "text": "Turn with me to Galatians chapter five."},
    {"start": 12.25, "end": 19, "text": "\"Walk by the Spirit\", Paul writes — not run, walk.", "speaker": "Pastor John"},
]
transcript = {
    "id": derived(S1, "transcript"), "sermonId": S1,
    "text": " ".join(s["text"] for s in segments), "status": "complete", "segments": segments,
    "updatedAt": "2025-11-02T12:01:30.000Z", "deletedAt": None,
}
summary = {
    "id": derived(S1, "summary"), "sermonId": S1, "title": "Keeping in step",
    "text": "Life in the Spirit is a walk: steady, daily, together.\n\n• Love\n• Joy\n• Peace",
    "type": "devotional", "status": "complete", "updatedAt": "2025-11-02T13:39:59.000Z", "deletedAt": None,
}
records += [("transcripts", transcript, OTHER, "synced"), ("summaries", summary, OTHER, "synced")]

chat = [
    {"id": "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d01", "sermonId": S1, "role": "user",
     "content": "What verse was the sermon built on?", "createdAt": "2025-11-02T14:00:00.000Z", "deviceId": OTHER},
    {"id": "b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d02", "sermonId": S1, "role": "assistant",
     "content": "Galatians 5:25 — \"If we live by the Spirit, let us also keep in step with the Spirit.\"",
     "createdAt": "2025-11-02T14:00:02.400Z", "deviceId": OTHER},
]
records += [("chatMessages", c, OTHER, "synced") for c in chat]


def change(op_id, collection, body, op, device):
    upd = body.get("updatedAt", body.get("createdAt"))
    return {"opId": op_id, "collection": collection, "id": body["id"], "op": op, "updatedAt": upd,
            "deviceId": device, "record": body}


outbox = [
    # (op_id, collection, record, op, attempts, last_error, state, created_at)
    ("e0000000-0000-4000-8000-000000000001", "sermons", s2, "upsert", 0, None, "queued", "2025-11-09T10:31:05.010Z"),
    ("e0000000-0000-4000-8000-000000000002", "notes", n4, "upsert", 0, None, "queued", "2025-11-09T10:35:00.010Z"),
    ("e0000000-0000-4000-8000-000000000003", "sermons", s3, "delete", 3,
     "HTTP 503: service unavailable", "queued", "2025-11-03T08:00:00.510Z"),
    ("e0000000-0000-4000-8000-000000000004", "notes", n5, "delete", 8,
     "HTTP 500: internal server error", "failed", "2025-11-03T08:00:00.520Z"),
]


def millis(t):
    import datetime
    d = datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return int(round(d.timestamp() * 1000))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "v1.sqlite")
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(migration_v1_sql())
    db.execute("PRAGMA user_version = 1")
    for collection, body, device, state in records:
        sort_key = body["date"] if collection == "sermons" else None
        updated = body.get("updatedAt", body.get("createdAt"))
        db.execute(
            "INSERT INTO records(collection, id, sermon_id, updated_at, device_id, deleted_at, sort_key, sync_state, body)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (collection, body["id"], body.get("sermonId"), updated, device, body.get("deletedAt"), sort_key, state,
             canonical(body)))
    for op_id, collection, body, op, attempts, err, state, created in outbox:
        db.execute(
            "INSERT INTO outbox(op_id, collection, record_id, op, change, attempts, last_error, state, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (op_id, collection, body["id"], op, canonical(change(op_id, collection, body, op, LOCAL)), attempts, err,
             state, created))
    db.execute("INSERT INTO sync_cursor(id, cursor, updated_at) VALUES (1, ?, ?)",
               ("eyJzZXEiOjQyfQ", "2025-11-09T11:00:00.000Z"))
    newest = max(millis(b.get("updatedAt", b.get("createdAt"))) for _, b, _, _ in records)
    db.execute("INSERT INTO meta(key, value) VALUES ('deviceId', ?)", (LOCAL,))
    db.execute("INSERT INTO meta(key, value) VALUES ('hlc', ?)", (str(newest),))
    db.commit()
    db.execute("VACUUM")
    db.close()
    print("wrote", out)


if __name__ == "__main__":
    main()
