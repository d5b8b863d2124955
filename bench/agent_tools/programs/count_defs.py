"""count_defs.py FILE - the "python-small" tool of the agent-tools mix.

A small, realistic Python program an agent runs: it reads one source file and
prints how many functions and classes it defines and how many lines it has.
Its cost is dominated by interpreter start-up, as in real agent workloads.
"""
import sys


def main(path: str) -> None:
    defs = classes = lines = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            lines += 1
            stripped = line.lstrip()
            if stripped.startswith("def "):
                defs += 1
            elif stripped.startswith("class "):
                classes += 1
    print(f"{path}: defs={defs} classes={classes} lines={lines}")


if __name__ == "__main__":
    main(sys.argv[1])
