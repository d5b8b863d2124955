# re.py next to this script shadows the standard library's; json, which
# imports re, then fails: the traceback must be the cold one.
import sys
import re
print("re", re.__file__.rsplit("/", 2)[-2:], [n for n in sys.modules if n.startswith(("re", "json", "enum"))])
import json
