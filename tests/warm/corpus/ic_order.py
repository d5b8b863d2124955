# The warm import cache (docs/warm.md): sys.modules and the importer cache,
# in order, after each import of argv[1] (comma-separated, in that order).
import sys


def show(tag):
    print(tag, list(sys.modules))
    print(tag, "importer cache", list(sys.path_importer_cache))


show("start")
for name in sys.argv[1].split(","):
    __import__(name)
    show(name)
import abc, _collections, _collections_abc
print("abc", abc.get_cache_token(), issubclass(_collections.deque, _collections_abc.MutableSequence))
import json, re
print(json.dumps({"words": re.findall(r"\w+", "one two")}))
