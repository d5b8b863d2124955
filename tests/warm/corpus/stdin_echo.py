import sys
data = sys.stdin.read()
print(repr(data[:200]), len(data), sys.stdin.isatty())
