import threading, time, sys
def late():
    time.sleep(0.2)
    print("thread done", threading.current_thread().name, flush=True)
threading.Thread(target=late, name="worker").start()
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
print("main done", threading.main_thread().name, threading.active_count() >= 2)
