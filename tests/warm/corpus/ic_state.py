# The warm import cache: module state is the cold import's, in every call
# (each call marks the modules and compiles a pattern; the next must not see it).
import sys
import re
print("re", len(re._cache), sorted(map(repr, re._cache)), getattr(re, "eq_mark", None))
re.eq_mark = True
re.compile(r"eq-(mark)+")
import json
print("json", sorted(json.__dict__), getattr(json, "eq_mark", None))
print("decoder", sorted(vars(json._default_decoder)), json.decoder.scanstring is json.decoder.c_scanstring)
json.eq_mark = True
import copyreg
print("copyreg", sorted(t.__name__ for t in copyreg.dispatch_table))
print("re after", len(re._cache), sorted(map(repr, re._cache)))
import enum, functools, collections
print("enum", sorted(enum.__dict__)[:20], functools.lru_cache.__module__, collections.deque.__module__)
