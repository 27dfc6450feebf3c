"""The built documentation site opens in headless Chromium and renders: the home page, a
user-guide page, an API page and a gallery example with its plot.

The site is built by the docs step of ``.ci/run`` (``sphinx-build -W --keep-going -b html docs
build/docs/html``), after the tests; building it here would add minutes to the default run.
So these tests skip when ``build/docs/html`` (or ``$FORECAST_DOCS_HTML``) holds no built site,
and when Chromium, chromedriver or selenium are missing. ``$FORECAST_DOCS_SCREENSHOTS``, when
set, is a folder that receives a PNG of each page (docs/img/docs-*.png were made so).
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("FORECAST_DOCS_HTML", ROOT / "build" / "docs" / "html"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (SITE / "index.html").is_file():
    pytest.skip(
        f"no built site in {SITE} (sphinx-build -W -b html docs build/docs/html)",
        allow_module_level=True,
    )
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip(
        "headless Chromium not installed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )
pytest.importorskip("selenium", reason="selenium not installed (pip install selenium)")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

PAGE_S = 60


@pytest.fixture(scope="module")
def browser():
    options = Options()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(PAGE_S)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(driver, relative: str, name: str):
    path = SITE / relative
    assert path.is_file(), f"{relative} is missing from the built site {SITE}"
    driver.get(path.as_uri())
    folder = os.environ.get("FORECAST_DOCS_SCREENSHOTS")
    if folder:
        driver.save_screenshot(str(Path(folder) / f"docs-{name}.png"))
    return driver


def visible_text(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").text


def stylesheets_applied(driver) -> bool:
    """The theme's CSS loaded: its header bar is laid out as a flex box, not as bare HTML."""
    header = driver.find_element(By.CSS_SELECTOR, "header.bd-header")
    return header.is_displayed() and header.value_of_css_property("display") == "flex"


def test_home_page_renders(browser):
    driver = open_page(browser, "index.html", "home")
    assert driver.title.startswith("forecast")
    assert stylesheets_applied(driver)
    text = visible_text(driver)
    for section in ("Getting started", "User guide", "API reference", "Gallery", "Results"):
        assert section in text
    assert "2.029" in text  # the headline table, from the Markdown source
    code = driver.find_element(By.CSS_SELECTOR, "div.highlight-python pre").text
    assert "GRUForecaster(" in code


def test_user_guide_page_renders(browser):
    driver = open_page(browser, "guide/probabilistic.html", "guide")
    assert stylesheets_applied(driver)
    assert driver.find_element(By.TAG_NAME, "h1").text.startswith("Probabilistic forecasts")
    sidebar = driver.find_element(By.CSS_SELECTOR, "nav.bd-docs-nav").text
    assert "Backtesting and the day-ahead protocol" in sidebar  # the guide's other pages
    code = " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, "div.highlight pre"))
    assert "ConformalForecaster(" in code


def test_api_page_renders(browser):
    driver = open_page(browser, "api/generated/forecast.GRUForecaster.html", "api")
    assert stylesheets_applied(driver)
    heading = driver.find_element(By.TAG_NAME, "h1").text
    assert "GRUForecaster" in heading
    signature = driver.find_element(By.CSS_SELECTOR, "dl.py.class > dt").text
    assert "forecast.GRUForecaster" in signature or "GRUForecaster(" in signature
    text = visible_text(driver)
    assert "Parameters" in text and "hidden_size" in text  # numpydoc sections rendered
    methods = {e.get_attribute("id") for e in driver.find_elements(By.CSS_SELECTOR, "dt[id]")}
    assert "forecast.GRUForecaster.fit" in methods
    assert "forecast.GRUForecaster.predict" in methods
    # cross-links: the page links back into the reference
    hrefs = [a.get_attribute("href") or "" for a in driver.find_elements(By.TAG_NAME, "a")]
    assert any(h.endswith("api/index.html") for h in hrefs)


def test_gallery_example_shows_its_plot(browser):
    driver = open_page(browser, "auto_examples/plot_first_forecast.html", "gallery")
    assert stylesheets_applied(driver)
    images = driver.find_elements(By.CSS_SELECTOR, "img.sphx-glr-single-img")
    assert images, "the example page has no plot"
    width = driver.execute_script("return arguments[0].naturalWidth", images[0])
    assert width > 100  # the PNG the build wrote loaded
    folder = os.environ.get("FORECAST_DOCS_SCREENSHOTS")
    if folder:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", images[0])
        driver.save_screenshot(str(Path(folder) / "docs-gallery-plot.png"))
    assert "GRUForecaster(" in visible_text(driver)
