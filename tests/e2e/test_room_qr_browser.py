"""The QR code on the teacher's room bar, in real Chromium against serve.py (1280×720, lecture mode, light and dark):
floating over the slide's top right corner, at least 240 px square, dark modules on white; Debian's zbarimg reads the
browser's own pixels (the whole screen, as a phone would the projector) back to exactly the printed link. The bar
itself stays one line (the code used to take ~270 px of the 720) and the slide below keeps its place whether the code
is shown or hidden; its button, a click on it and Escape hide it, the button shows it again.
Screenshots: room-teacher-qr-light.png, room-teacher-qr-dark.png."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import ROOM_CODE, ROOM_KEY, screenshot
from tests.e2e.room_pages import open_page
from tests.test_room_qr import zbar_decode
from ui.components.room import qr

pytestmark = pytest.mark.e2e
CHAPTER = "ch1-kitchen"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_teachers_bar_shows_the_students_link_as_a_qr_code(browser, room_server_url, theme):
    base = room_server_url
    teacher = open_page(browser, f"{base}/{CHAPTER}?room={ROOM_CODE}&teacher_key={ROOM_KEY}&present=1"
                                 f"&embed_options={theme}_theme")
    bar = teacher.locator(".st-key-room .cv-room")
    link = f"{base}/?room={ROOM_CODE}"
    assert bar.locator(".url").inner_text() == link
    fig = bar.locator(".qr")
    fig.wait_for()
    box = fig.bounding_box()
    assert box["width"] >= 240 and box["height"] >= 240 and box["y"] + box["height"] <= 720  # on the first screen
    sent = re.search(r' d="([^"]+)"', qr.svg(qr.encode(link, "M"))).group(1)
    assert fig.locator("svg path").count() == 1 and fig.locator("svg path").get_attribute("d") == sent
    shot = screenshot(teacher, f"room-teacher-qr-{theme}")
    view = shot.with_name(f"room-teacher-qr-{theme}-view.png")
    teacher.screenshot(path=str(view))  # the 1280×720 viewport only, the QR amid the page
    assert zbar_decode(view) == link

    bar_box = bar.bounding_box()
    assert bar_box["height"] <= 80, bar_box  # one line, not the code's height
    assert box["x"] >= bar_box["x"] + bar_box["width"] - box["width"] - 40  # at the right, over the slide
    stage_y = teacher.locator(".st-key-stage").bounding_box()["y"]

    toggle = bar.locator("button.qr-toggle")
    toggle.click()
    assert bar.locator(".qr").count() == 0 and bar.locator(".url").inner_text() == link
    assert teacher.locator(".st-key-stage").bounding_box()["y"] == stage_y  # the slide did not move
    toggle.click()
    bar.locator(".qr").wait_for()
    fig.click()  # a click on the code hides it
    teacher.wait_for_function("() => !document.querySelector('.cv-room .qr')")
    toggle.click()
    bar.locator(".qr").wait_for()
    teacher.keyboard.press("Escape")
    teacher.wait_for_function("() => !document.querySelector('.cv-room .qr')")
    teacher.context.close()
