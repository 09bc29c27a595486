#!/usr/bin/env python3
"""Fails when a target imports a module that Package.swift does not declare as its dependency.

SwiftPM builds such code as long as the module happens to be built for another target, so a missing
declaration stays hidden until a product is built alone. Reads `swift package describe --type json`.
"""
import glob, json, os, re, subprocess, sys

# Toolchain and platform modules; names that appear in `import` lines of embedded Python snippets.
SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Darwin", "Dispatch",
          "Synchronization", "Testing", "XCTest", "socket", "ctypes", "os", "sys"}
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
desc = json.loads(subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout)
bad = 0
for t in desc["targets"]:
    declared = set(t.get("target_dependencies", [])) | set(t.get("product_dependencies", []))
    for f in sorted(glob.glob(os.path.join(root, t["path"], "**/*.swift"), recursive=True)):
        text = open(f, encoding="utf-8").read()
        if re.search(r"^\s*@_exported\s+import", text, re.M):
            print(f"{os.path.relpath(f, root)}: @_exported import (import what you use where you use it)")
            bad += 1
        for m in re.finditer(r"^\s*(?:@testable\s+)?import\s+(\w+)", text, re.M):
            mod = m.group(1)
            if mod not in declared and mod not in SYSTEM and mod != t["name"]:
                print(f"{os.path.relpath(f, root)}: imports {mod}, which target {t['name']} does not declare")
                bad += 1
sys.exit(1 if bad else 0)
