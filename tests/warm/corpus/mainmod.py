import sys
print("mainmod", __name__, sys.argv, __file__, __spec__.name if __spec__ else None, sys.path[0])
raise SystemExit(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 0)
