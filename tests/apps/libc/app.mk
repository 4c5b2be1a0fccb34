APP_CMDLINE := run=libc_exit
