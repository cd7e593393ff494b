"""Texts of the class room (bar, votes, tally) in English and 中文; one term per concept (see ui/glossary.py)."""

TEXTS: dict[str, tuple[str, str]] = {
    "room.off": ("Rooms need the app started by scripts/run-app.sh (serve.py); this server has no room endpoints, "
                 "so ?room= is ignored.",
                 "课堂房间需要用 scripts/run-app.sh（serve.py）启动应用；此服务器没有房间接口，已忽略 ?room=。"),
    "room.bad_code": ("?room={code} is not a room code: 4 to 12 capital letters and digits 2-9, as on the teacher's "
                      "screen.", "?room={code} 不是房间码：应为 4 到 12 位大写字母和数字 2-9，见老师的屏幕。"),
    "room.no_room": ("No room {code} yet: check the code on the teacher's screen (this page joins once the teacher "
                     "opens it).", "还没有房间 {code}：请核对老师屏幕上的房间码（老师开启后本页会自动加入）。"),
    "room.bad_key": ("This teacher key does not open rooms here: you follow the room as a student.",
                     "此教师密钥无效：你将以学生身份跟随房间。"),
    "room.no_key": ("Nobody can drive rooms on this server: it has no teacher key (CHUNKVIZ_TEACHER_KEY).",
                    "此服务器没有教师密钥（CHUNKVIZ_TEACHER_KEY），无人能主持房间。"),
    "room.store": ("The room store is unreachable: {error}", "无法连接房间状态存储：{error}"),
    "room.teacher": ("Room {code} · you drive", "房间 {code} · 由你主持"),
    "room.students_open": ("Students open", "学生打开"),
    "room.following": ("Room {code} · following the teacher", "房间 {code} · 跟随老师"),
    "room.detached": ("Room {code} · exploring on your own", "房间 {code} · 自行探索"),
    "room.detach": ("Explore on my own", "自行探索"),
    "room.rejoin": ("Rejoin the teacher", "回到老师的画面"),
    "room.lost": ("reconnecting…", "正在重新连接…"),
    "room.vote_help": ("Your vote counts once; change it until the teacher reveals.",
                       "每人一票；老师揭晓前可以改票。"),
    "room.your_vote": ("Your vote: {option}", "你的投票：{option}"),
    "room.votes": ("votes: {n}", "票数：{n}"),
    "room.closed": ("Voting is closed.", "投票已结束。"),
    "room.other_question": ("The teacher's question is on another chapter; rejoin to vote.",
                            "老师的问题在另一章；回到老师的画面即可投票。"),
    "room.right": ("Right!", "答对了！"),
    "room.wrong": ("The simulator says: {answer}.", "模拟器的答案是：{answer}。"),
    "room.reveal": ("Reveal to everyone", "向所有人揭晓"),
    "room.revealed": ("Revealed: {answer}", "已揭晓：{answer}"),
    "room.tally_title": ("Class votes, live", "全班投票（实时）"),
    "room.share": ("{count} · {share}%", "{count} · {share}%"),
    "room.nobody": ("No votes yet", "还没有投票"),
}
