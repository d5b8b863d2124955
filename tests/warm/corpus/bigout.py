import sys
for i in range(60000):
    print("line %6d %s" % (i, "x" * 20))
    if i % 7000 == 0:
        print("err %d" % i, file=sys.stderr)
sys.stdout.write("tail-no-newline")
