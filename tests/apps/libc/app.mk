# The kernel's tests stay in: an image with no TEST of its own does not
# link on the hosted board yet (__start_gmk_tests).
APP_WITH_TESTS := 1
APP_CMDLINE := run=libc_exit
