import warnings
warnings.warn("plain warning")
def f():
    warnings.warn("deprecated", DeprecationWarning, stacklevel=2)
f()
print("after warnings")
