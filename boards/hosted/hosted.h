/*
 * What the hosted board's files share (boards/hosted/).
 */
#ifndef GMK_BOARDS_HOSTED_HOSTED_H
#define GMK_BOARDS_HOSTED_HOSTED_H

#include <stdbool.h>

struct trapframe;

/* board.c: a device's own thread (console input, the network's epoll),
 * detached, taking none of the cores' signals; pthread_create's error. */
int hosted_device_thread(void *(*fn)(void *));

/* stdin.c: standard input as the console's receiver, from core 0's
 * board_cpu_init (its interrupt goes to core 0); the terminal's mode put
 * back (board_exit, exit, fatal signals); the device interrupt. */
void hosted_stdin_probe(void);		/* first thing in hosted_main */
void hosted_stdin_attach(void);
void hosted_stdin_restore(void);
void hosted_console_interrupt(struct trapframe *tf);
/* net.c: the network's events (epoll), from the device interrupt, before
 * the console's; true if it took some (board_irq then kicks the poller). */
bool hosted_net_interrupt(void);

#endif
