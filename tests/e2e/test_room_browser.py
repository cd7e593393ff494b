"""A class in a room, in real Chromium against serve.py: a teacher (with the key) and two students (three pages,
1280×720, lecture mode). The students land on the teacher's chapter from the bare room link, follow its cursor
within 1 s, vote (one changes its vote), the teacher's tally (keyed `tally`) counts them, the reveal reaches both
students at once with the simulator's verdict; a student cannot drive (403) and may explore on its own and rejoin.
Screenshots: room-teacher-tally.png, room-student-revealed.png."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import ROOM_CODE, ROOM_KEY, screenshot, wait_for_app
from tests.e2e.room_pages import LANES, cursor as _cursor, follows as _follows, poll as _poll, open_page

pytestmark = pytest.mark.e2e
CHAPTER = "ch1-kitchen"


def _open(browser, url: str):
    return open_page(browser, url)


def test_two_students_follow_the_teacher_vote_and_see_the_reveal(browser, room_server_url):
    base = room_server_url
    teacher = _open(browser, f"{base}/{CHAPTER}?room={ROOM_CODE}&teacher_key={ROOM_KEY}&present=1")
    students = [_open(browser, f"{base}/?room={ROOM_CODE}&present=1") for _ in range(2)]
    for s in students:  # the bare room link lands on the teacher's chapter
        s.wait_for_url(f"**/{CHAPTER}?**", timeout=30000)
        wait_for_app(s, timeout_ms=120000)
        s.locator(LANES).wait_for()
        assert "following the teacher" in s.locator(".st-key-room .cv-room").inner_text()
    assert "you drive" in teacher.locator(".st-key-room .cv-room").inner_text()
    assert f"?room={ROOM_CODE}" in teacher.locator(".st-key-room .cv-room").inner_text()

    # The teacher steps back twice (the question holds the cursor ahead): both students follow within 1 s.
    teacher.locator(f"{LANES} .plot canvas").click(position={"x": 400, "y": 60})
    for _ in range(2):
        teacher.keyboard.press("ArrowLeft")
        for s in students:
            _follows(s, teacher)

    # A student's page cannot drive the room: the route refuses it, and its own step moves only itself.
    status = students[0].evaluate(
        "async (room) => (await fetch('/_room/teacher', {method: 'POST', headers: {'Content-Type': "
        "'application/json'}, body: JSON.stringify({room, cursor: 0})})).status", ROOM_CODE)
    assert status == 403
    before = _cursor(teacher)
    students[0].locator(f"{LANES} .plot canvas").click(position={"x": 400, "y": 60})
    students[0].keyboard.press("Home")
    students[0].wait_for_timeout(1200)
    assert _cursor(teacher) == before and abs(_cursor(students[1]) - before) < 0.01

    # Votes: the first student the first option, the second the first then (changed) the second.
    votes = [s.locator(".st-key-room_vote") for s in students]
    options = [b.get_attribute("data-option") for b in votes[0].locator("button.opt").all()]
    votes[0].locator(f'button.opt[data-option="{options[0]}"]').click()
    votes[1].locator(f'button.opt[data-option="{options[0]}"]').click()
    _poll(lambda: votes[1].locator(".cv-room").get_attribute("data-mine") == options[0], students[1], 3000)
    votes[1].locator(f'button.opt[data-option="{options[1]}"]').click()
    tally = teacher.locator(".st-key-tally")
    _poll(lambda: tally.locator(f'.bar-row[data-option="{options[1]}"]').get_attribute("data-count") == "1",
          teacher, 3000)
    assert tally.locator(".cv-room").get_attribute("data-votes") == "2"
    counts = {o: tally.locator(f'.bar-row[data-option="{o}"]').get_attribute("data-count") for o in options}
    shares = {o: tally.locator(f'.bar-row[data-option="{o}"]').get_attribute("data-share") for o in options}
    assert counts == {options[0]: "1", options[1]: "1", **{o: "0" for o in options[2:]}}
    assert shares[options[0]] == shares[options[1]] == "50"
    for v in votes:  # no student sees the tally nor the answer before the reveal
        assert v.locator(".bar-row").count() == 0 and v.locator(".verdict").count() == 0
    tally.scroll_into_view_if_needed()
    screenshot(teacher, "room-teacher-tally")

    # The reveal reaches both students within 1 s; each sees the verdict on its own vote and the class's tally.
    tally.locator("button.reveal").click()
    for s in students:
        _poll(lambda s=s: s.locator(".st-key-room_vote .cv-room").get_attribute("data-revealed") == "1", s, 1000)
    correct = students[0].locator(".st-key-room_vote .bar-row.correct").get_attribute("data-option")
    assert correct in options
    for s, mine in zip(students, options[:2]):
        assert s.locator(f".st-key-room_vote .verdict.{'right' if mine == correct else 'wrong'}").count() == 1
        assert s.locator(LANES).get_attribute("data-held") == "0"  # the question's hold is lifted
    wait_for_app(teacher)
    assert teacher.locator(".st-key-predict").get_by_text("Revealed:").count() >= 1
    # The student's slide at the reveal: verdict and the class's tally on one screen without squeezing the stage
    # (three tally rows used to leave the lanes 55 % of their height, the kitchen's tables cut off).
    student = students[1]
    _poll(lambda: (student.locator(".st-key-room_vote").bounding_box() or {"y": 9e9})["y"]
          + student.locator(".st-key-room_vote").bounding_box()["height"] <= 720, student, 3000)
    tally_rows = student.locator(".st-key-room_vote .bar-row").all()
    assert len({round(r.bounding_box()["y"]) for r in tally_rows}) == 1  # one line
    lanes = student.locator(LANES)
    if lanes.get_attribute("data-fit-px"):
        assert int(lanes.get_attribute("data-fit-px")) >= 200, lanes.get_attribute("data-fit-px")
    screenshot(student, "room-student-revealed")

    # Explore on my own, then rejoin with one click: the cursor comes back to the teacher's.
    detach = students[1].locator(".st-key-room button.detach")
    detach.click()
    students[1].locator(f"{LANES} .plot canvas").click(position={"x": 400, "y": 60})
    students[1].keyboard.press("Home")
    teacher.locator(f"{LANES} .plot canvas").click(position={"x": 400, "y": 60})
    teacher.keyboard.press("ArrowRight")
    teacher.wait_for_timeout(1000)
    assert _cursor(students[1]) == 0 != _cursor(teacher)
    students[1].locator(".st-key-room button.rejoin").click()
    _follows(students[1], teacher)
    for p in (teacher, *students):
        p.context.close()
