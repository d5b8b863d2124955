# A tool that puts its own directory in front of sys.path: its re.py
# shadows the standard library's, also for json's own `import re`.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "shadow"))
import json
