import os, signal, sys
print("ignored", signal.getsignal(signal.SIGUSR1), signal.getsignal(signal.SIGINT))
sys.stdout.flush()
os.kill(os.getpid(), signal.SIGUSR1)
print("survived")
