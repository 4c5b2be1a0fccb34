# The kernel's tests stay in: an image with no TEST of its own does not
# link on the hosted board yet (__start_gmk_tests), which would hide the
# refusal this folder is for.
APP_WITH_TESTS := 1
