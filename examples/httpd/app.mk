# httpd as an application (make APP=examples/httpd; docs/programs.md).
# A server never ends by itself: its boot with no command line (run=httpd,
# on :8080) passes make test APP= at the line that says it serves.
APP_READY := ^httpd: listening on
