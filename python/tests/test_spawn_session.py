"""spawnkit.spawn(new_session=True): a session of the child's own, which
Process.kill_tree() kills whole through spawnkit_kill_tree(), also after
the child itself has exited and been reaped."""
import os

import pytest

import spawnkit
from spawnkit import PIPE
from conftest import is_dead, wait_dead


@pytest.mark.native  # the fallback's spawn() always starts a session
def test_spawn_shares_our_session_by_default():
    p = spawnkit.spawn(["sleep", "10"])
    try:
        assert os.getsid(p.pid) == os.getsid(0)
    finally:
        p.kill()
        p.wait()


def test_new_session_child_leads_its_session_and_group():
    p = spawnkit.spawn(["sleep", "10"], new_session=True)
    try:
        assert os.getsid(p.pid) == p.pid and os.getpgid(p.pid) == p.pid
    finally:
        p.kill()
        p.wait()


def test_kill_tree_after_the_child_was_reaped_kills_its_session():
    p = spawnkit.spawn(["sh", "-c", "sleep 100 >/dev/null 2>&1 & echo $!"], stdout=PIPE,
                       new_session=True)
    assert p.stdout is not None
    bg = int(p.stdout.readline())
    p.stdout.close()
    assert p.wait() == 0 and p.pidfd is None           # reaped
    assert not is_dead(bg)
    p.kill_tree()
    assert wait_dead([bg])
