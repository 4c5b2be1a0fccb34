# No program to run: the image's own command line runs its tests.
APP_CMDLINE := test=*
