"""scripts/run-app.sh serves a room: CHUNKVIZ_ADDRESS picks the address (127.0.0.1 unless told), 0.0.0.0 prints the
URLs students type, and a machine without `hostname -I` (or any way to list addresses) still starts. Every setting
(CHUNKVIZ_ADDRESS, _PORT, _WORKERS, _REDIS_URL, _TEACHER_KEY, _ROOM, --backend) is checked by scripts/launch_env.py
before anything is installed: a refusal is one line on stderr, exit status 2, nothing on stdout.

Only `--print-urls` or a refused start runs here: neither installs nor starts anything, so no traffic leaves loopback
(tests/test_class_proxy.py starts the real replicas).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "run-app.sh"
BASH = shutil.which("bash") or "/bin/bash"


def _run(env: dict[str, str], path: str | None = None, *args: str) -> subprocess.CompletedProcess:
    full = {"PATH": path if path is not None else os.environ["PATH"], **env}
    return subprocess.run([BASH, str(SCRIPT), "--print-urls", *args], env=full, capture_output=True, text=True,
                          timeout=30)


def test_the_default_stays_on_this_machine():
    proc = _run({})
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0] == "chunkviz is starting at http://127.0.0.1:8501"


def test_a_room_address_prints_the_machine_addresses_and_loopback(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "hostname").write_text("#!/bin/sh\necho '10.1.2.3 127.0.1.1 fe80::1 192.168.7.9 '\n")
    (fake / "hostname").chmod(0o755)
    proc = _run({"CHUNKVIZ_ADDRESS": "0.0.0.0", "CHUNKVIZ_PORT": "8600"}, f"{fake}:{os.environ['PATH']}")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[:4] == ["Students open one of these (same network as this machine):",
                                            "  http://10.1.2.3:8600", "  http://192.168.7.9:8600",
                                            "On this machine: http://127.0.0.1:8600"]


def test_no_way_to_list_addresses_still_says_what_to_type(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("dirname", "awk"):  # what the script needs besides bash; no hostname, ip or python3 here
        (fake / tool).symlink_to(shutil.which(tool))
    proc = _run({"CHUNKVIZ_ADDRESS": "0.0.0.0"}, str(fake))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == ("Could not list this machine's addresses; students open "
                                           "http://<this machine's IP>:8501")


@pytest.mark.parametrize("env, message", [
    ({"CHUNKVIZ_ADDRESS": "a b"}, "CHUNKVIZ_ADDRESS must be an IP address or host name such as 127.0.0.1 or "
                                  "0.0.0.0, got 'a b'"),
    ({"CHUNKVIZ_PORT": "99999"}, "CHUNKVIZ_PORT must be a port number from 1 to 65535, got '99999'"),
    ({"CHUNKVIZ_PORT": "80; rm"}, "CHUNKVIZ_PORT must be a port number from 1 to 65535, got '80; rm'"),
])
def test_bad_settings_are_refused_with_one_line(env, message):
    proc = _run(env)
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, message + "\n", "")


def _start(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """The real start (no --print-urls): a refused setting must stop it before anything is installed or started."""
    full = {"PATH": os.environ["PATH"], **env}
    return subprocess.run([BASH, str(SCRIPT), *args], env=full, capture_output=True, text=True, timeout=30)


ADDRESS_REFUSED = "CHUNKVIZ_ADDRESS must be an IP address or host name such as 127.0.0.1 or 0.0.0.0, got "
PORT_REFUSED = "CHUNKVIZ_PORT must be a port number from 1 to 65535, got "


@pytest.mark.parametrize("env, message", [
    ({"CHUNKVIZ_PORT": "08080"}, PORT_REFUSED + "'08080'"),  # bash read it as octal and printed :08080
    ({"CHUNKVIZ_PORT": "0"}, PORT_REFUSED + "'0'"),
    ({"CHUNKVIZ_PORT": "+80"}, PORT_REFUSED + "'+80'"),
    ({"CHUNKVIZ_PORT": "80\n81"}, PORT_REFUSED + "'80\\n81'"),
    ({"CHUNKVIZ_ADDRESS": "-1"}, ADDRESS_REFUSED + "'-1'"),
    ({"CHUNKVIZ_ADDRESS": "-h"}, ADDRESS_REFUSED + "'-h'"),
    ({"CHUNKVIZ_ADDRESS": "999.999.999.999"}, ADDRESS_REFUSED + "'999.999.999.999'"),
    ({"CHUNKVIZ_ADDRESS": "1.2.3.4.5"}, ADDRESS_REFUSED + "'1.2.3.4.5'"),
    ({"CHUNKVIZ_ADDRESS": "localhost:8501"}, ADDRESS_REFUSED + "'localhost:8501' (the port goes in CHUNKVIZ_PORT)"),
    ({"CHUNKVIZ_ADDRESS": "[::1]"}, ADDRESS_REFUSED + "'[::1]' (write an IPv6 address without brackets)"),
    ({"CHUNKVIZ_ADDRESS": "127.0.0.1\nevil"}, ADDRESS_REFUSED + "'127.0.0.1\\nevil'"),
    ({"CHUNKVIZ_ADDRESS": "fe80::1%eth0"}, ADDRESS_REFUSED + "'fe80::1%eth0'"),
    ({"CHUNKVIZ_WORKERS": "0"}, "CHUNKVIZ_WORKERS must be a whole number of server processes from 1 to 32, got '0'"),
    ({"CHUNKVIZ_WORKERS": "33"}, "CHUNKVIZ_WORKERS must be a whole number of server processes from 1 to 32, got '33'"),
    ({"CHUNKVIZ_WORKERS": "2x"}, "CHUNKVIZ_WORKERS must be a whole number of server processes from 1 to 32, got '2x'"),
    ({"CHUNKVIZ_REDIS_URL": "http://127.0.0.1:6379"}, "CHUNKVIZ_REDIS_URL must be redis://HOST:PORT/DB, "
                                                      "rediss://HOST:PORT/DB or unix:///PATH, "
                                                      "got 'http://127.0.0.1:6379'"),
    ({"CHUNKVIZ_REDIS_URL": "redis://127.0.0.1:99999/0"}, "CHUNKVIZ_REDIS_URL must be redis://HOST:PORT/DB, "
                                                          "rediss://HOST:PORT/DB or unix:///PATH, "
                                                          "got 'redis://127.0.0.1:99999/0'"),
    ({"CHUNKVIZ_REDIS_URL": "redis://-h:6379/x"}, "CHUNKVIZ_REDIS_URL must be redis://HOST:PORT/DB, "
                                                  "rediss://HOST:PORT/DB or unix:///PATH, got 'redis://-h:6379/x'"),
    ({"CHUNKVIZ_TEACHER_KEY": "short"}, "CHUNKVIZ_TEACHER_KEY must be 16 to 128 letters, digits, '-' or '_' "
                                        "(unset: one is generated), got 'short'"),
    ({"CHUNKVIZ_TEACHER_KEY": "a" * 20 + "&room=X"}, "CHUNKVIZ_TEACHER_KEY must be 16 to 128 letters, digits, '-' "
                                                     "or '_' (unset: one is generated), got 'aaaaaaaaaaaaaaaaaaaa…'"),
    ({"CHUNKVIZ_ROOM": "abc"}, "CHUNKVIZ_ROOM must be 4 to 12 capital letters and digits 2-9, got 'abc'"),
])
def test_bad_settings_stop_the_real_start_with_one_line(env, message):
    proc = _start(env)
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, message + "\n", "")


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "unknown argument '--bogus'; run-app.sh takes --print-urls and --backend HOST:PORT"),
    (["--backend"], "--backend needs a value: --backend HOST:PORT"),
    (["--backend", "127.0.0.2"], "--backend must be HOST:PORT (IPv6 as [ADDR]:PORT), got '127.0.0.2'"),
    (["--backend", "::1:8501"], "--backend must be HOST:PORT (IPv6 as [ADDR]:PORT), got '::1:8501'"),
    (["--backend", "127.0.0.2:08501"], "--backend must be HOST:PORT (IPv6 as [ADDR]:PORT), got '127.0.0.2:08501'"),
    (["--backend", "127.0.0.2:8501", "--backend", "127.0.0.2:8501"], "the same --backend is given twice"),
])
def test_bad_arguments_stop_the_real_start_with_one_line(args, message):
    proc = _start({}, *args)
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, message + "\n", "")


def test_ipv6_is_printed_in_brackets_and_a_room_with_its_teacher_link():
    proc = _run({"CHUNKVIZ_ADDRESS": "::1", "CHUNKVIZ_PORT": "8600", "CHUNKVIZ_ROOM": "ABC234",
                 "CHUNKVIZ_TEACHER_KEY": "k" * 24})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:3] == [
        "chunkviz is starting at http://[::1]:8600",
        "Room ABC234: students open http://[::1]:8600/?room=ABC234",
        f"Teacher (keep this link to yourself): http://[::1]:8600/?room=ABC234&teacher_key={'k' * 24}"]


def test_an_unset_teacher_key_is_generated_and_said_so():
    first, second = _run({}), _run({})
    keys = [next(line for line in p.stdout.splitlines() if line.startswith("Teacher")).rsplit("=", 1)[1]
            for p in (first, second)]
    assert keys[0] != keys[1] and all(len(k) >= 16 for k in keys)
    assert "(teacher key generated for this start; set CHUNKVIZ_TEACHER_KEY to keep one across starts)" in first.stdout
    room = next(line for line in first.stdout.splitlines() if line.startswith("Room ")).split()[1].rstrip(":")
    assert len(room) == 6 and all(c in "23456789ABCDEFGHJKMNPQRSTUVWXYZ" for c in room)


def test_workers_and_backends_are_announced():
    proc = _run({"CHUNKVIZ_WORKERS": "3"}, None, "--backend", "127.0.0.2:8501", "--backend=[::1]:8502")
    assert proc.returncode == 0, proc.stderr
    assert ("3 server process(es) on this machine and 127.0.0.2:8501 [::1]:8502 behind HAProxy; each is warmed up "
            "before the proxy opens") in proc.stdout.splitlines()
