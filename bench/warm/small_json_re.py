"""small_json_re.py FILE - a small json/re tool: the words of a file, counted."""
import json
import re
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    words = re.findall(r"[A-Za-z_]\w*", f.read())
counts = {}
for w in words:
    counts[w] = counts.get(w, 0) + 1
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
print(json.dumps({"words": len(words), "top": top}))
