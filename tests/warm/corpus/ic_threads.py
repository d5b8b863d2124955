# The warm import cache under threads: four threads import json, re and
# collections at once; every module once, ABC registrations made once.
import sys
import threading
import abc

start = threading.Barrier(4)


def work():
    start.wait()                   # all four reach the imports together
    import json, re, collections
    json.dumps(re.findall(r"\w", "ab"))


threads = [threading.Thread(target=work) for _ in range(4)]
list(map(threading.Thread.start, threads))
list(map(threading.Thread.join, threads))
print(sorted(sys.modules))
print("abc", abc.get_cache_token())
