# echo as an application (make APP=examples/echo; docs/programs.md).
# A server never ends by itself: its boot with no command line (run=echo,
# on :8080) passes make test APP= at the line that says it serves.
APP_READY := ^echo: listening on .*, tcp and udp
