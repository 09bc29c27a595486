#!/usr/bin/env python3
"""Fails when a target imports a module that Package.swift does not declare as its dependency, or declares one it
never imports.

SwiftPM builds such code as long as the module happens to be built for another target, so a missing
declaration stays hidden until a product is built alone. Reads `swift package describe --type json`.
"""
import glob, json, os, re, subprocess, sys

# Toolchain and platform modules; names that appear in `import` lines of embedded Python snippets.
SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Darwin", "Dispatch",
          "Synchronization", "Testing", "XCTest", "PackagePlugin", "socket", "ctypes", "os", "sys"}
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
desc = json.loads(subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout)
bad = 0
kinds = {t["name"]: t["type"] for t in desc["targets"]}
for t in desc["targets"]:
    declared = set(t.get("target_dependencies", [])) | set(t.get("product_dependencies", []))
    imported = set()
    files = sorted(glob.glob(os.path.join(root, t["path"], "**/*.swift"), recursive=True))
    for f in files:
        text = open(f, encoding="utf-8").read()
        imported |= {m.group(1) for m in re.finditer(r"^\s*(?:@testable\s+)?import\s+(\w+)", text, re.M)}
    # The other way round: a declared dependency that no file imports is dead weight (it is built and linked
    # for nothing, and it hides which module a target really needs). Executables are declared by test targets
    # to have them built before the tests run them; build-tool plugins are used by the build, not imported; C
    # targets include their dependencies' headers instead.
    if files:
        for dep in sorted(declared - imported):
            if kinds.get(dep) in ("executable", "plugin"):
                continue
            print(f"{t['path']}: target {t['name']} declares {dep} but no file of it imports it")
            bad += 1
    for f in files:
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
