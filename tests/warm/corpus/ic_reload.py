# importlib.reload of modules the warm import cache restored
import importlib, sys
import re
r1, c1 = re, re.compile
re.compile("a+b")
importlib.reload(re)
print(re is r1, re.compile is c1, len(re._cache), list(sys.modules)[-6:])
import json
importlib.reload(json)
print(json.dumps({"k": [1, 2]}), list(sys.modules)[-6:])
