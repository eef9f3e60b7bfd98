"""Check the links of a built site, without the network.

``python docs/check_links.py site`` reads every HTML page under the folder that ``mkdocs
build`` wrote: each internal ``href`` and ``src`` must name a file of the site (a folder
meaning its ``index.html``) and each ``#anchor`` an ``id`` of the page it points to.
External links (with a scheme, such as ``https:``) are listed, not fetched. Exit status 0
when every internal link resolves, 1 otherwise (each broken link on a line), 2 for a
folder that is not a built site.
"""

from __future__ import annotations

import argparse
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

LINK_ATTRIBUTES = {"href", "src"}
EXIT_BROKEN = 1
EXIT_USAGE = 2


class _Page(HTMLParser):
    """The ids and the links of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            elif name in LINK_ATTRIBUTES:
                self.links.append(value)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def _target(site: Path, page: Path, path: str) -> Path:
    """The file a link's path names, from the page that holds it."""
    base = site if path.startswith("/") else page.parent
    target = (base / unquote(path.lstrip("/"))).resolve()
    return target / "index.html" if target.is_dir() else target


def check(site: Path) -> tuple[list[str], list[str]]:
    """The broken internal links (as lines) and the external links of a built site."""
    site = site.resolve()
    pages = {path: _parse(path) for path in sorted(site.rglob("*.html"))}
    broken, external = [], set()
    for path, page in pages.items():
        where = path.relative_to(site)
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                external.add(link)
                continue
            target = _target(site, path, parts.path) if parts.path else path
            if not target.is_relative_to(site) or not target.is_file():
                broken.append(f"{where}: {link}: no such file in the site")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where}: {link}: no anchor #{parts.fragment} in "
                                  f"{target.relative_to(site)}")
    return broken, sorted(external)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the folder mkdocs build wrote (site/)")
    parser.add_argument("--quiet", action="store_true", help="do not list external links")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"check_links: {args.site} is not a built site (no index.html); "
              "run mkdocs build first", file=sys.stderr)
        return EXIT_USAGE
    broken, external = check(args.site)
    if not args.quiet:
        for link in external:
            print(f"external (not fetched): {link}")
    for line in broken:
        print(f"broken: {line}", file=sys.stderr)
    pages = len(list(args.site.rglob("*.html")))
    print(f"check_links: {pages} pages, {len(broken)} broken internal links, "
          f"{len(external)} external links")
    return EXIT_BROKEN if broken else 0


if __name__ == "__main__":
    sys.exit(main())
