# changes its own process state; the next call must not see any of it
import os, sys, signal
print("seen", os.environ.get("EQ_LEAK"), sys.modules.get("eq_leak_mod"), hasattr(sys, "eq_leak"))
os.environ["EQ_LEAK"] = "1"
os.chdir("/")
sys.modules["eq_leak_mod"] = sys
sys.eq_leak = True
os.umask(0o077)
signal.signal(signal.SIGUSR2, signal.SIG_IGN)
fd = os.open("/dev/null", os.O_RDONLY)
os.set_inheritable(fd, True)
print("fds", sorted(int(x) for x in os.listdir("/proc/self/fd")))
