"""The class room: a teacher's chapter, cursor and reveal followed by every student's browser, and live votes.

`store.py` holds the room state (in memory, or in Redis for several replicas; `resp.py` speaks Redis's protocol),
`routes.py` the HTTP endpoints serve.py mounts beside the app (server-sent events, votes, the teacher's moves),
`mount.py` what a page draws (the room bar, a student's vote, the teacher's tally keyed `tally`), `room.{js,css}`
the browser side, `text.py` its texts. Invariant: only the teacher key drives a room; a student's browser sees the
teacher's position, its own vote, and the tally only once revealed.
"""
