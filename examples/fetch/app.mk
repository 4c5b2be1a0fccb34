# fetch as an application (make APP=examples/fetch; docs/programs.md).
# With no URL there is nothing to fetch: its boot with no command line
# (run=fetch) prints its usage, and make test APP= passes it at that line
# (its TESTs fetch from a server of their own; tools/check-fetch, from the
# host's).
APP_READY := ^usage: run=fetch --
