# The warm import cache under threads: four threads import json, re and
# collections at once; every module once, ABC registrations made once.
import sys
import threading
import abc

go = threading.Event()


def work():
    go.wait()
    import json, re, collections
    json.dumps(re.findall(r"\w", "ab"))


ts = [threading.Thread(target=work) for _ in range(4)]
for t in ts:
    t.start()
go.set()
for t in ts:
    t.join()
print(sorted(sys.modules))
print("abc", abc.get_cache_token())
