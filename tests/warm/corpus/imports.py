import json, re, sys
import helper
from pkg import sub
print(json.dumps({"m": re.findall(r"\w+", "a bb ccc"), "h": helper.VALUE, "s": sub.NAME}))
print(helper.__file__, sub.__name__, sorted(m for m in sys.modules if m in ("helper", "pkg", "pkg.sub")))
