"""Command line of du-lite."""

import argparse
import os
import sys

from core.units import format_size, parse_size


def size_arg(text):
    try:
        return parse_size(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from err


def parser():
    p = argparse.ArgumentParser(prog="du-lite", description="List files larger than a limit.")
    p.add_argument("--limit", type=size_arg, default="1MB", help="smallest size listed, e.g. 500kB or 2GB (default 1MB)")
    p.add_argument("paths", nargs="*", default=["."], help="folders to scan")
    return p


def large_files(paths, limit):
    """Yield ``(size, path)`` of every file under ``paths`` of at least ``limit`` bytes, sorted."""
    found = []
    for root in paths:
        for folder, _dirs, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                size = os.path.getsize(path)
                if size >= limit:
                    found.append((size, path))
    return sorted(found, reverse=True)


def main(argv=None, out=sys.stdout):
    args = parser().parse_args(argv)
    for size, path in large_files(args.paths, args.limit):
        print(f"{format_size(size):>8}  {path}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
