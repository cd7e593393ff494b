"""scripts/run-app.sh serves a room: CHUNKVIZ_ADDRESS picks the address (127.0.0.1 unless told), 0.0.0.0 prints the
URLs students type, and a machine without `hostname -I` (or any way to list addresses) still starts.

Only `--print-urls` runs here: it prints what a start would print and starts nothing, so no traffic leaves loopback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "run-app.sh"
BASH = shutil.which("bash") or "/bin/bash"


def _run(env: dict[str, str], path: str | None = None) -> subprocess.CompletedProcess:
    full = {"PATH": path if path is not None else os.environ["PATH"], **env}
    return subprocess.run([BASH, str(SCRIPT), "--print-urls"], env=full, capture_output=True, text=True, timeout=30)


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
