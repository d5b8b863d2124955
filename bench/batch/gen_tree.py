#!/usr/bin/env python3
"""gen_tree.py DIR NFILES - a deterministic tree for the mdu benchmark.

Shape of a source checkout plus a few oddities du must get right: about
NFILES regular files of 0..4 KiB in 3 levels of directories (fan-out 16 x 16,
files spread over the leaves), 1% extra hard links, 1% symlinks, a few sparse
files.  Written once to DIR.tmp and renamed, and DIR/.complete marks it done,
so an interrupted run never leaves a half tree that looks whole.
"""
import os
import random
import shutil
import sys


def main():
    root, nfiles = sys.argv[1], int(sys.argv[2])
    if os.path.exists(os.path.join(root, ".complete")):
        return
    tmp = root + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)
    rnd = random.Random(4)
    leaves = []
    for a in range(16):
        for b in range(16):
            d = os.path.join(tmp, "pkg%02d" % a, "mod%02d" % b)
            os.makedirs(d)
            leaves.append(d)
    data = bytes(range(256)) * 16
    files = []
    for i in range(nfiles):
        d = leaves[i % len(leaves)]
        p = os.path.join(d, "file_%06d.py" % i)
        with open(p, "wb") as f:
            f.write(data[: rnd.randrange(0, 4096)])
        files.append(p)
    for i in range(nfiles // 100):
        src = files[rnd.randrange(len(files))]
        os.link(src, os.path.join(leaves[rnd.randrange(len(leaves))], "hl_%05d" % i))
        os.symlink(src, os.path.join(leaves[rnd.randrange(len(leaves))], "sl_%05d" % i))
    for i in range(8):
        with open(os.path.join(leaves[i], "sparse_%d.img" % i), "wb") as f:
            f.truncate(64 << 20)
            f.seek(1 << 20)
            f.write(b"x")
    open(os.path.join(tmp, ".complete"), "w").close()
    os.rename(tmp, root)


if __name__ == "__main__":
    main()
