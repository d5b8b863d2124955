# On PYTHONPATH, shadows json's C accelerator: json.scanner catches the
# ImportError of a missing one, so the warm import cache must not record a
# json without it (the cold import runs this file).
print("shadow _json imported")
raise ImportError("no accelerator here")
