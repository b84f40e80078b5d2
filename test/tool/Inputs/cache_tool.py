"""cache_tool.py COMMAND CACHE_DIR: looks into a torch-tidy result cache.
  count      prints the number of entries
  leftovers  prints the number of files that are not entries (temporaries)
  corrupt    damages every entry: flips a byte in the middle of the first,
             truncates the second, empties the third, and so on
  fit N      prints a size that holds the N largest entries and no more"""
import os, sys

cmd, root = sys.argv[1], sys.argv[2]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)
entries = [f for f in files if f.endswith(".entry")]
if cmd == "count":
    print(len(entries))
elif cmd == "leftovers":
    print(len(files) - len(entries))
elif cmd == "corrupt":
    for i, path in enumerate(entries):
        data = bytearray(open(path, "rb").read())
        if i % 3 == 0:
            data[len(data) // 2] ^= 0x55
        elif i % 3 == 1:
            data = data[: len(data) // 2]
        else:
            data = b""
        open(path, "wb").write(data)
elif cmd == "fit":
    sizes = sorted((os.path.getsize(f) for f in entries), reverse=True)
    n = int(sys.argv[3])
    print(sum(sizes[:n]) + sizes[-1] // 2)
