"""Fixtures shared by every test module of a session (of an xdist worker): the browser tests'
table server and headless Chromium, started once rather than once a module
(``page_helpers``)."""

from page_helpers import session_browser, session_table_server  # noqa: F401  (fixtures)
