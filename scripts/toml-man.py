#!/usr/bin/env python3
"""Writes tnotesd.toml(5) in mdoc from the documented example config (Config/tnotesd.toml): every key with
the comment above it, grouped by table. The example is the one place the keys are documented, and a test
checks that it is a valid config, so the page cannot describe keys the daemon does not read.
Usage: toml-man.py Config/tnotesd.toml > tnotesd.toml.5"""
import datetime, os, re, sys

def esc(text):
    # mdoc: a line starting with a dot or a quote is a request; backslashes are escapes.
    text = text.replace("\\", "\\e")
    return ("\\&" + text) if text[:1] in (".", "'") else text

def main(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    intro, sections, table, comment, started = [], [], "", [], False
    for raw in lines:
        line = raw.strip()
        if line.startswith("#"):
            text = line[1:].strip()
            # A commented-out key ("# token_file = ...") documents an optional key.
            m = re.match(r"^([a-z_]+) = (.*)$", text)
            if m and started:
                sections.append((table, m.group(1), m.group(2), comment, True))
                comment = []
            else:
                comment.append(text)
            continue
        if not line:
            if not started and comment:
                intro += comment + [""]
                comment = []
            continue
        started = True
        m = re.match(r"^\[([a-z_.]+)\]$", line)
        if m:
            table = m.group(1)
            if comment:
                sections.append((table, None, None, comment, False))
            comment = []
            continue
        m = re.match(r"^([a-z_]+) = (.*)$", line)
        if m:
            sections.append((table, m.group(1), m.group(2), comment, False))
            comment = []
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None
    date = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc) if epoch else datetime.datetime.now(datetime.timezone.utc)
    out = [".Dd " + date.strftime("%B %-d, %Y"), ".Dt TNOTESD.TOML 5", ".Os",
           ".Sh NAME", ".Nm tnotesd.toml", ".Nd configuration of the tnotesd daemon",
           ".Sh SYNOPSIS", ".Pa ~/.config/tnotes/tnotesd.toml",
           ".Sh DESCRIPTION",
           "TOML, read strictly: an unknown key, a wrong type or a bad value makes",
           ".Xr tnotesd 8",
           "exit 78 with one line naming the file and the key. Every key is optional; no file at all is valid."]
    for para in "\n".join(intro).strip().split("\n\n"):
        if para.strip():
            out += [".Pp"] + [esc(t) for t in para.split("\n") if t.strip()]
    current = None
    for table, key, value, comment, optional in sections:
        if table != current:
            out += [".Sh " + ("[" + table + "]" if table else "TOP-LEVEL KEYS").upper()]
            current = table
            if key is None:
                out += [esc(t) for t in comment if t]
                continue
            out += [".Bl -tag -width Ds"]
        if key is None:
            continue
        if out[-1].startswith(".Sh") or not any(l == ".Bl -tag -width Ds" for l in out[-40:]):
            out += [".Bl -tag -width Ds"]
        out += [".It Cm " + key + " Li " + esc(value) + (" (optional; unset by default)" if optional else "")]
        out += [esc(t) if t else ".Pp" for t in comment]
        # Close the list when the next entry is another table.
        nxt = sections[sections.index((table, key, value, comment, optional)) + 1:][:1]
        if not nxt or nxt[0][0] != table:
            out += [".El"]
    out += [".Sh FILES", ".Bl -tag -width Ds",
            ".It Pa /usr/share/doc/tnotes/examples/tnotesd.toml", "This page's source: every key with its default.", ".El",
            ".Sh SEE ALSO", ".Xr tnotes 1 ,", ".Xr tnotesd 8 ,", ".Xr tnotes-server 8"]
    print("\n".join(out))

if __name__ == "__main__":
    main(sys.argv[1])
