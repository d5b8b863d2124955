import multiprocessing, os, subprocess, sys
r = subprocess.run([sys.executable, "-c", "import os, sys; print(sys.argv, os.environ.get('EQ_VAR'))", "sub"],
                   capture_output=True, text=True)
print("subprocess", r.returncode, r.stdout.strip())
sys.stdout.flush()
os.system("echo system $EQ_VAR")
def sq(x):
    return x * x
if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as p:
        print("pool", p.map(sq, range(5)))
    pid = os.fork()
    if pid == 0:
        print("forked child")
        os._exit(0)
    os.waitpid(pid, 0)
    print("done")
