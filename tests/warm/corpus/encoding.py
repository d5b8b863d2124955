import locale, sys
print(sys.getfilesystemencoding(), sys.stdout.encoding, sys.stdout.errors, locale.getpreferredencoding(False), sys.flags.utf8_mode)
print("caf\u00e9 \u2603", flush=True)
sys.stdout.buffer.write("\u00e9\n".encode("utf-8"))
print(sys.argv[1:])
