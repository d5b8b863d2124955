"""aio.spawn()/aio.Process: asyncio streams over the child's pipes, waits
through the pidfd, signals and the tree kill."""
import asyncio
import os
import signal
import subprocess

import pytest

import spawnkit
from spawnkit import PIPE, aio
from conftest import children_of, is_dead, wait_dead


def arun(coro):
    return asyncio.run(coro)


def fds():
    """Our open fds, without the executables' fds the template cache keeps."""
    cached = {str(t.fd) for t in list(spawnkit.template_cache._map.values()) if not t.closed}
    return sorted(set(os.listdir("/proc/self/fd")) - cached, key=int)


def test_streams_are_asyncio_streams():
    async def main():
        p = await aio.spawn(["cat"], stdin=PIPE, stdout=PIPE, stderr=PIPE)
        assert isinstance(p.stdin, asyncio.StreamWriter)
        assert isinstance(p.stdout, asyncio.StreamReader)
        assert isinstance(p.stderr, asyncio.StreamReader)
        p.stdin.close()
        assert await p.wait() == 0
        await p.wait_closed()
        q = await aio.spawn(["true"])
        assert (q.stdin, q.stdout, q.stderr) == (None, None, None)
        assert await q.wait() == 0
    arun(main())


def test_write_then_readline_interactively():
    async def main():
        p = await aio.spawn(["cat"], stdin=PIPE, stdout=PIPE)
        assert p.stdin is not None
        assert p.stdout is not None
        for word in (b"one", b"two"):
            p.stdin.write(word + b"\n")
            await p.stdin.drain()
            assert await p.stdout.readline() == word + b"\n"
        p.stdin.close()
        await p.stdin.wait_closed()
        assert await p.stdout.read() == b""            # EOF after stdin closed
        assert p.stdout.at_eof()
        assert await p.wait() == 0
        await p.wait_closed()
    arun(main())


def test_readexactly_and_eof_error():
    async def main():
        p = await aio.spawn(["printf", "abcdef"], stdout=PIPE)
        assert p.stdout is not None
        assert await p.stdout.readexactly(4) == b"abcd"
        with pytest.raises(asyncio.IncompleteReadError) as ei:
            await p.stdout.readexactly(4)
        assert ei.value.partial == b"ef"
        assert await p.wait() == 0
        await p.wait_closed()
    arun(main())


def test_stderr_separate_and_limit_for_readline():
    async def main():
        p = await aio.spawn(["sh", "-c", "head -c 300 /dev/zero | tr '\\0' x; echo; echo e >&2"],
                            stdout=PIPE, stderr=PIPE, limit=100)
        assert p.stdout is not None
        assert p.stderr is not None
        with pytest.raises(ValueError):            # longer than limit: as asyncio's
            await p.stdout.readline()
        assert await p.stderr.readline() == b"e\n"
        await p.stdout.read()
        await p.wait()
        await p.wait_closed()
    arun(main())


def test_communicate_1mib_stdin_10mb_output_no_deadlock():
    data = os.urandom(1 << 20)

    async def main():
        p = await aio.spawn(["sh", "-c", "cat; head -c 10000000 /dev/zero; echo done >&2"],
                            stdin=PIPE, stdout=PIPE, stderr=PIPE)
        return await asyncio.wait_for(p.communicate(data), 60), p.returncode
    (out, err), rc = arun(main())
    assert rc == 0 and err == b"done\n"
    assert len(out) == len(data) + 10_000_000
    assert out[:len(data)] == data and out[len(data):].count(0) == 10_000_000


def test_communicate_child_that_does_not_read_stdin():
    async def main():
        p = await aio.spawn(["sh", "-c", "exec <&-; echo ok"], stdin=PIPE, stdout=PIPE)
        return await p.communicate(b"x" * (1 << 20))
    assert arun(main()) == (b"ok\n", None)


def test_communicate_text_and_timeout_resumes():
    async def main():
        p = await aio.spawn(["sh", "-c", "cat; sleep 0.3; echo y"], stdin=PIPE, stdout=PIPE,
                            text=True)
        with pytest.raises(subprocess.TimeoutExpired):
            await p.communicate("x\r\n", timeout=0.05)
        return await p.communicate()
    assert arun(main()) == ("x\ny\n", None)


def test_returncode_set_by_the_loop_without_wait():
    async def main():
        p = await aio.spawn(["sh", "-c", "exit 3"])
        for _ in range(500):
            if p.returncode is not None:
                break
            await asyncio.sleep(0.01)
        assert p.returncode == 3 and p.pidfd is None    # reaped, pidfd closed
        assert await p.wait() == 3
    arun(main())


def test_many_waiters_share_the_pidfd_watch():
    async def main():
        p = await aio.spawn(["sleep", "0.2"])
        w1 = asyncio.ensure_future(p.wait())
        w2 = asyncio.ensure_future(p.wait())
        w3 = asyncio.ensure_future(p.wait())
        await asyncio.sleep(0.05)
        w3.cancel()                                  # a cancelled waiter harms no other
        assert list(await asyncio.gather(w1, w2)) == [0, 0]
        assert w3.cancelled()
    arun(main())


def test_wait_timeout_leaves_child_running():
    async def main():
        p = await aio.spawn(["sleep", "10"])
        with pytest.raises(subprocess.TimeoutExpired):
            await p.wait(timeout=0.05)
        assert p.returncode is None and not is_dead(p.pid)
        p.kill()
        assert await p.wait() == -signal.SIGKILL
    arun(main())


@pytest.mark.parametrize("how,sig", [("terminate", signal.SIGTERM), ("kill", signal.SIGKILL),
                                     ("send_signal", signal.SIGUSR1)])
def test_signals(how, sig):
    async def main():
        p = await aio.spawn(["sleep", "10"])
        if how == "send_signal":
            p.send_signal(sig)
        else:
            getattr(p, how)()
        assert await p.wait() == -sig
        getattr(p, "kill")()                          # after the end: harmless
    arun(main())


def test_kill_tree_new_session_kills_the_session_even_after_exit():
    async def main():
        p = await aio.spawn(["sh", "-c", "sleep 100 >/dev/null & echo $!; read x; true"],
                            stdin=PIPE, stdout=PIPE, new_session=True)
        assert p.stdin is not None
        assert p.stdout is not None
        bg = int(await p.stdout.readline())
        assert os.getsid(p.pid) == p.pid              # leads its own session
        p.stdin.close()
        assert await p.wait() == 0
        assert not is_dead(bg)                         # the job outlived sh
        p.kill_tree()
        await p.wait_closed()
        return bg
    assert wait_dead([arun(main())])


def test_kill_tree_running_child_and_grandchildren():
    async def main():
        p = await aio.spawn(["sh", "-c", "sleep 100 & echo $!; sleep 100 & echo $!; wait"],
                            stdout=PIPE, new_session=True)
        assert p.stdout is not None
        pids = [int(await p.stdout.readline()) for _ in range(2)]
        p.kill_tree()
        assert await p.wait() == -signal.SIGKILL
        await p.stdout.read()
        await p.wait_closed()
        return pids
    assert wait_dead(arun(main()))


def test_no_fd_leak_and_no_zombie_after_close():
    async def main():
        before = fds()
        p = await aio.spawn(["sh", "-c", "cat; sleep 0.05"], stdin=PIPE, stdout=PIPE,
                            stderr=PIPE)
        assert p.stdin is not None
        # 3 pipe ends and the pidfd (the fallback has none)
        assert len(fds()) == len(before) + 3 + (p.pidfd is not None)
        p.stdin.write(b"x")
        p.close()                                      # streams shut before the end
        await p.wait_closed()
        await p.wait()
        assert fds() == before
        assert children_of(os.getpid()) == []          # reaped, not a zombie
    arun(main())


def test_dropped_process_is_reaped_by_the_loop():
    async def main():
        p = await aio.spawn(["true"], stdout=PIPE)
        pid = p.pid
        del p                                          # nobody waits
        for _ in range(500):
            if pid not in children_of(os.getpid()):
                break
            await asyncio.sleep(0.01)
        assert pid not in children_of(os.getpid())
    arun(main())


def test_spawn_errors():
    async def main():
        with pytest.raises(FileNotFoundError):
            await aio.spawn(["no-such-program-spawnkit"], stdout=PIPE)
        with pytest.raises(ValueError, match="limit"):
            await aio.spawn(["true"], limit=0)
        with pytest.raises(ValueError, match="STDOUT"):
            await aio.spawn(["true"], stdout=subprocess.STDOUT)
    before = fds()
    arun(main())
    assert fds() == before


def test_process_belongs_to_its_loop():
    async def make():
        return await aio.spawn(["sleep", "0.1"])
    p = arun(make())

    async def other():
        with pytest.raises(RuntimeError, match="event loop"):
            await p.wait()
    arun(other())
    p._proc.wait()                                     # the sync side still reaps it
