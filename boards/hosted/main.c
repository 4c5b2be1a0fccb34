/*
 * The process's entry: the board's (boards/hosted/board.c). Its own file so
 * that the libFuzzer target (SAN=fuzz) and the host tests (tests/host), which
 * have a main of their own, link the board without it.
 */
#include "arch/x86_64-linux/host.h"

int main(int argc, char **argv)
{
	return hosted_main(argc, argv);
}
