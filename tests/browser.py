"""Headless Chromium (Debian's ``chromium`` + ``chromium-driver``) driven through selenium, for page tests.

``browser()`` yields a driver that logs the console; ``console_errors(driver)`` drains it. The pages are
opened from ``file://``; the driver process is stopped on exit, also when a test fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import Iterator

CHROMEDRIVER = os.environ.get("GUI_EVAL_CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM = os.environ.get("GUI_EVAL_CHROMIUM", "/usr/bin/chromium")


def missing() -> str | None:
    """Why no browser test can run here (None when one can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path in (CHROMEDRIVER, CHROMIUM):
        if not (os.path.isfile(path) or shutil.which(path)):
            return f"{path} not found (scripts/install_chromium.sh installs Debian's chromium and chromium-driver)"
    return None


@contextlib.contextmanager
def browser(width: int = 1280, height: int = 1000) -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions", "--disable-background-networking"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver) -> list[str]:
    """Console messages of level SEVERE since the last call (CSP violations, script errors, failed loads)."""
    return [f"{m.get('level')}: {m.get('message')}" for m in driver.get_log("browser") if m.get("level") == "SEVERE"]
