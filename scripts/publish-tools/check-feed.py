#!/usr/bin/env python3
"""Reads a podcast feed with feedparser (PyPI) and prints what it found as JSON: whether it was well formed
(`bozo`), its version, and each entry's title, link and enclosures, in document order. The publishing tests
(contract §8.5) compare that with what the user published. Usage: check-feed.py URL"""
import json
import sys

import feedparser

d = feedparser.parse(sys.argv[1])
print(json.dumps({
    "bozo": bool(d.bozo),
    "bozoException": repr(d.get("bozo_exception")) if d.bozo else None,
    "version": d.version,
    "title": d.feed.get("title"),
    "entries": [
        {
            "title": e.get("title"),
            "link": e.get("link"),
            "published": e.get("published"),
            "enclosures": [{"href": x.get("href"), "length": x.get("length"), "type": x.get("type")} for x in e.get("enclosures", [])],
        }
        for e in d.entries
    ],
}))
