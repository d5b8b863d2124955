# Shadows the standard library's json when this directory is on PYTHONPATH.
print("shadow json imported")


def dumps(obj):
    return "shadow:" + repr(obj)
