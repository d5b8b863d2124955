"""spawnkit for asyncio: run(), spawn() and stream(), driven by pidfds in
the event loop.

    r = await aio.run(["make"], timeout=600)                 # as spawnkit.run()
    p = await aio.spawn(["cat"], stdin=PIPE, stdout=PIPE)    # asyncio streams
    async for chunk in aio.stream(["make"]):                 # output as it comes
        print(chunk.fd, chunk.data)

A child's end is seen by watching its pidfd with loop.add_reader() (a pidfd
becomes readable when the process exits): no thread per child, no SIGCHLD
handler, no child watcher, so hundreds of calls can be in flight on one
loop.  A run() call uses three fds while it runs (two output pipes and the
pidfd): raise RLIMIT_NOFILE for thousands of calls.

- run() (_aio_run.py): spawnkit.run()'s arguments, result and exceptions.
- spawn() and Process (_aio_process.py): asyncio.subprocess's shape, with
  StreamReader/StreamWriter pipes, wait(), communicate(), kill_tree().
- stream() and Chunk (_aio_stream.py): an async iterator of output chunks
  tagged with their fd, killing the tree if the consumer stops early.

The spawn itself is one short blocking call (vfork-style: it returns once the
child has exec'd), made from the loop thread.
"""
from ._aio_process import STREAM_LIMIT, Process, spawn
from ._aio_run import run
from ._aio_stream import Chunk, stream

__all__ = ["Chunk", "Process", "STREAM_LIMIT", "run", "spawn", "stream"]
