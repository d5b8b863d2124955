"""The agent harness: one worker process of the benchmark, on AutoGen Core.

Each worker process hosts a `SingleThreadedAgentRuntime` with `in_flight`
`ToolWorker` agents (RoutedAgent).  A driver keeps `in_flight` RPC requests
(`runtime.send_message`) outstanding, one per agent, pulling the worker's
share of the call list; each agent runs its call on the backend's blocking
run() in a thread pool of `in_flight` threads, which is how AutoGen runs a
synchronous tool (FunctionTool uses run_in_executor).  The driver checks every
result against the expected output before it counts the call.

The coordinator (agent_tools.py) starts the workers, waits until each has
built its runtime and made one untimed warm-up call per tool, then releases
them together and takes the wall time until the last one finishes.
"""

from __future__ import annotations

import asyncio
import os
import resource
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from autogen_core import AgentId, MessageContext, RoutedAgent, SingleThreadedAgentRuntime, rpc

import backends
from workload import Call


@dataclass
class ToolCall:
    """An agent's request to run one tool: argv and working directory."""
    argv: list[str]
    cwd: str


@dataclass
class ToolResult:
    returncode: int
    stdout: bytes
    stderr: bytes


class ToolWorker(RoutedAgent):
    """Runs tool calls on one backend; one instance per in-flight lane."""

    def __init__(self, run: backends.RunFn, pool: ThreadPoolExecutor) -> None:
        super().__init__("runs shell tools for the agent")
        self._run = run
        self._pool = pool

    @rpc
    async def on_tool_call(self, message: ToolCall, ctx: MessageContext) -> ToolResult:
        loop = asyncio.get_running_loop()
        rc, out, err = await loop.run_in_executor(self._pool, self._run, message.argv, message.cwd)
        return ToolResult(rc, out, err)


class CallFailed(Exception):
    pass


async def _drive(runtime: SingleThreadedAgentRuntime, calls: list[Call], in_flight: int,
                 progress: Any, slot: int, per_tool: dict[str, list[int]]) -> None:
    """Keep in_flight requests outstanding until calls are done."""
    todo = iter(calls)   # shared by the lanes; safe: one event loop thread
    done = 0
    failures: list[str] = []

    async def lane(j: int) -> None:
        nonlocal done
        agent = AgentId("tool_worker", f"lane{j}")
        for call in todo:
            if failures:     # stop taking calls; let the ones in flight end
                return
            t = time.perf_counter_ns()
            res = await runtime.send_message(ToolCall(list(call.argv), call.cwd), agent)
            dt = time.perf_counter_ns() - t
            err = call.check(res.returncode, res.stdout, res.stderr)
            if err:
                failures.append(f"{call.tool}: {' '.join(call.argv)} (cwd {call.cwd}): {err}")
                return
            acc = per_tool[call.tool]
            acc[0] += 1
            acc[1] += dt
            done += 1
            if progress is not None:
                progress[slot] = done

    await asyncio.gather(*(lane(j) for j in range(in_flight)))
    if failures:
        raise CallFailed(failures[0])


async def _worker(conn: Any, go: Any, backend: str, in_flight: int, calls: list[Call],
                  warmup: list[Call], progress: Any, slot: int, unset: tuple[str, ...]) -> dict[str, Any]:
    # The tool environment of this trial (agent_tools.py: configured or
    # clean): set here, as workers fork from a server started earlier.
    for var in unset:
        os.environ.pop(var, None)
    run = backends.make_runner(backend)
    pool = ThreadPoolExecutor(max_workers=in_flight, thread_name_prefix="tool")
    runtime = SingleThreadedAgentRuntime()
    await ToolWorker.register(runtime, "tool_worker", lambda: ToolWorker(run, pool))
    runtime.start()
    try:
        # Untimed: instantiate the agents, start the pool's threads, and make
        # one call per tool (spawnkit makes its per-tool templates here; both
        # backends get the same warm caches).
        await _drive(runtime, warmup, in_flight, None, slot, {c.tool: [0, 0] for c in warmup})
        conn.send(("ready", os.getpid()))
        go.wait()
        per_tool = {c.tool: [0, 0] for c in calls}
        warm0 = _warm_spawns(backend)
        ru0, rc0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        await _drive(runtime, calls, in_flight, progress, slot, per_tool)
        t1 = time.monotonic()
        warm = _warm_spawns(backend) - warm0
        if backend == "spawnkit-warm":
            # reap the warm interpreters, so their own CPU (start-up and
            # every fork) is in RUSAGE_CHILDREN with the tools'
            import spawnkit
            spawnkit.warm_shutdown()
        ru1, rc1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU seconds of this worker process (harness + starting and reaping
        # the tools) and of the tools themselves, over the timed section.
        cpu = {"self_s": (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime),
               "children_s": (rc1.ru_utime + rc1.ru_stime) - (rc0.ru_utime + rc0.ru_stime)}
        return {"t0": t0, "t1": t1, "calls": len(calls), "per_tool": per_tool, "cpu": cpu,
                "warm_spawns": warm}
    finally:
        await runtime.stop()
        pool.shutdown()


def _warm_spawns(backend: str) -> int:
    """Calls this process has started warm so far (0 for other backends)."""
    if backend != "spawnkit-warm":
        return 0
    import spawnkit
    return int(spawnkit.warm_stats()["warm_spawns"])


def worker_main(conn: Any, go: Any, backend: str, in_flight: int, calls: list[Call],
                warmup: list[Call], progress: Any, slot: int, unset: tuple[str, ...] = ()) -> None:
    """Process entry point: reports ("done", result) or ("error", text)."""
    try:
        result = asyncio.run(_worker(conn, go, backend, in_flight, calls, warmup, progress, slot, unset))
        conn.send(("done", result))
    except BaseException as e:  # the coordinator must hear about any failure
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()
