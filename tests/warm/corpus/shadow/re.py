# Shadows the standard library's re for scripts next to it (the warm import
# cache must not be used for them).
print("shadow re imported from", __name__)
VERBOSE = 64
