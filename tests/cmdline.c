/*
 * The kernel command line (kernel/cmdline.c), on sample strings: every
 * option taken, bad ones refused naming the problem, a loader's image
 * path dropped only when it is one, lines up to CMDLINE_MAX bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/test.h"
#include "kernel/time.h"

TEST(cmdline_accepts_every_option)
{
	static struct kernel_options o;
	char err[160] = "";

	ASSERT(cmdline_parse("  test=boot_* slice=500us schedtrace=100 nprocs=3 "
			     "seed=42 run=demo bench=all fingerprint=on switchyield=on ", &o, err,
			     sizeof err));
	EXPECT(strcmp(o.test, "boot_*") == 0);
	EXPECT_EQ(o.slice_ns, 500 * NSEC_PER_USEC);
	EXPECT_EQ(o.schedtrace_ms, 100);
	EXPECT_EQ(o.nprocs, 3);
	EXPECT_EQ(o.seed, 42);
	EXPECT(o.seed_set);
	EXPECT(strcmp(o.run, "demo") == 0);
	EXPECT(o.fingerprint);
	EXPECT(o.switchyield);
	ASSERT(cmdline_parse("fingerprint=off switchyield=off", &o, err, sizeof err));
	EXPECT(!o.fingerprint);
	EXPECT(!o.switchyield);
	ASSERT(cmdline_parse("", &o, err, sizeof err));
	EXPECT(!o.fingerprint);
	EXPECT(!o.switchyield);
	EXPECT_EQ(o.slice_ns, 10 * NSEC_PER_MSEC);	/* Go's forcePreemptNS */
	ASSERT(cmdline_parse("slice=2ms", &o, err, sizeof err));
	EXPECT_EQ(o.slice_ns, 2 * NSEC_PER_MSEC);
}

TEST(cmdline_rejects_unknown_and_malformed_options)
{
	static const struct { const char *line, *must_name; } bad[] = {
		{ "frobnicate=1", "frobnicate" },
		{ "nprocs=abc", "nprocs" },
		{ "nprocs=0", "nprocs" },
		{ "nprocs=4x", "nprocs" },
		{ "nprocs=", "nprocs" },
		{ "nprocs=99999999999999999999999", "nprocs" },
		{ "slice=10", "unit" },
		{ "slice=5parsecs", "slice" },
		{ "slice=1ns", "range" },
		{ "schedtrace=-5", "schedtrace" },
		{ "seed=1 seed=2", "twice" },
		{ "fingerprint=yes", "fingerprint" },
		{ "fingerprint=1", "on or off" },
		{ "test", "key=value" },
		{ "=5", "unknown" },
	};
	static struct kernel_options o;

	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char err[160] = "";
		if (cmdline_parse(bad[i].line, &o, err, sizeof err)) {
			test_fail(__FILE__, __LINE__, "accepted \"%s\"", bad[i].line);
			continue;
		}
		if (!strstr(err, bad[i].must_name))
			test_fail(__FILE__, __LINE__, "\"%s\": error \"%s\" does not name \"%s\"",
				  bad[i].line, err, bad[i].must_name);
	}
}

/*
 * A loader's command line: the image path is dropped only when it is one.
 * GRUB's multiboot2 passes no path, so "bogus=1 run=squares" must reach the
 * parser whole and be refused, not lose its first word and run squares.
 */
TEST(cmdline_drops_only_an_image_path)
{
	static const struct { const char *line; bool path_first; const char *want; } c[] = {
		{ "bogus=1 run=squares", false, "bogus=1 run=squares" },
		{ "bogus=1 run=squares", true, "bogus=1 run=squares" },
		{ "test=* seed=1", false, "test=* seed=1" },
		{ "/boot/gmk.elf test=*", false, "test=*" },	/* GRUB multiboot1 */
		{ "build/pc/gmk.elf32 run=a", false, "run=a" },	/* QEMU -kernel */
		{ "gmk.elf32 run=a", true, "run=a" },		/* QEMU, no slash */
		{ "gmk.elf32 run=a", false, "gmk.elf32 run=a" },	/* reported */
		{ "  /boot/gmk.elf", false, "" },
		{ "", false, "" },
		{ "  test=x", true, "test=x" },
	};

	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
		const char *got = cmdline_skip_image_path(c[i].line, c[i].path_first);
		if (strcmp(got, c[i].want) != 0)
			test_fail(__FILE__, __LINE__, "\"%s\" (path_first=%d): got \"%s\", want \"%s\"",
				  c[i].line, c[i].path_first, got, c[i].want);
	}
}

/*
 * Every board takes a command line of up to CMDLINE_MAX bytes and refuses
 * a longer one, never cutting it and running what is left. A board keeps
 * CMDLINE_MAX + 1 bytes of a loader's line (cmdline_copy) so that the
 * parser sees it is too long. The longest line here is one long test=
 * list, as make test's replay hints write them.
 */
TEST(cmdline_takes_up_to_cmdline_max_bytes_and_refuses_longer)
{
	static char line[CMDLINE_MAX + 200], copy[CMDLINE_MAX + 2];
	static struct kernel_options o;
	char err[CMDLINE_ERR_MAX] = "";

	memcpy(line, "test=", 5);
	memset(line + 5, 'a', CMDLINE_MAX - 5);
	line[CMDLINE_MAX] = '\0';
	ASSERT(cmdline_parse(line, &o, err, sizeof err));
	EXPECT_EQ(strlen(o.test), CMDLINE_MAX - 5);

	line[CMDLINE_MAX] = 'a';
	line[CMDLINE_MAX + 1] = '\0';
	ASSERT(!cmdline_parse(line, &o, err, sizeof err));
	if (!strstr(err, "longer than 4095 bytes"))
		test_fail(__FILE__, __LINE__, "error \"%s\" does not say the line is too long", err);

	/* A board's copy of a longer line is still too long. */
	memset(line + 5, 'a', sizeof line - 6);
	line[sizeof line - 1] = '\0';
	cmdline_copy(copy, line, SIZE_MAX);
	EXPECT_EQ(strlen(copy), CMDLINE_MAX + 1);
	EXPECT(!cmdline_parse(copy, &o, err, sizeof err));
	cmdline_copy(copy, "run=squares", 6);	/* bounded by the loader's size */
	EXPECT(strcmp(copy, "run=sq") == 0);
}

/* The message for an unknown option lists every option there is: it is
 * made from the table, so an option added there is in it. */
TEST(cmdline_unknown_option_names_every_known_one)
{
	static struct kernel_options o;
	char err[CMDLINE_ERR_MAX] = "", word[40];
	unsigned n = 0;

	ASSERT(!cmdline_parse("frobnicate=1", &o, err, sizeof err));
	for (const char *k; (k = cmdline_option_key(n)); n++) {
		snprintf(word, sizeof word, " %s", k);
		const char *at = strstr(err, word);
		size_t len = strlen(word);
		if (!at || (at[len] != ' ' && at[len] != ')'))
			test_fail(__FILE__, __LINE__, "\"%s\" does not name '%s'", err, k);
	}
	EXPECT_GE(n, 13);	/* docs/cmdline.md's table has 13 */
	/* A long unknown key is cut, and the list still fits. */
	ASSERT(!cmdline_parse("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1",
			      &o, err, sizeof err));
	EXPECT(strstr(err, "...' (known:") != NULL);
	snprintf(word, sizeof word, " %s)", cmdline_option_key(n - 1));
	EXPECT(strstr(err, word) != NULL);
}

/* The words after "--" are the program's argv[1..], split as a shell
 * splits them (docs/cmdline.md); the options before it are unchanged. */
TEST(cmdline_passes_the_words_after_dashdash_to_the_program)
{
	static struct kernel_options o;
	static const char *const want[] = { "jobs=20000", "b c", "d'e", "fg hi", "", "--", "x" };
	char err[160] = "";

	ASSERT(cmdline_parse("run=workers seed=3 -- jobs=20000  'b c' \"d'e\" f\"g h\"i \"\" -- x",
			     &o, err, sizeof err));
	EXPECT(strcmp(o.run, "workers") == 0);
	EXPECT_EQ(o.seed, 3);
	ASSERT_EQ(o.nargs, sizeof want / sizeof want[0]);
	const char *a = o.args;
	for (unsigned i = 0; i < o.nargs; a += strlen(a) + 1, i++)
		if (strcmp(a, want[i]) != 0)
			test_fail(__FILE__, __LINE__, "argv[%u] is \"%s\", want \"%s\"", i + 1, a,
				  want[i]);
	ASSERT(cmdline_parse("run=workers --", &o, err, sizeof err));
	EXPECT_EQ(o.nargs, 0);
	ASSERT(cmdline_parse("run=workers", &o, err, sizeof err));
	EXPECT_EQ(o.nargs, 0);
}

TEST(cmdline_refuses_bad_program_arguments)
{
	static const struct { const char *line, *must_name; } bad[] = {
		{ "jobs=20000", "unknown option 'jobs'" },	/* an argument is not an option */
		{ "run=workers jobs=20000", "unknown option 'jobs'" },
		{ "-- jobs=20000", "no run=" },
		{ "test=* -- a", "no run=" },
		{ "run=x -- 'a b", "unterminated ' quote" },
		{ "run=x -- a\"b", "unterminated \" quote" },
	};
	static struct kernel_options o;
	static char many[CMDLINE_MAX];
	char err[160];

	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		if (cmdline_parse(bad[i].line, &o, err, sizeof err)) {
			test_fail(__FILE__, __LINE__, "accepted \"%s\"", bad[i].line);
			continue;
		}
		if (!strstr(err, bad[i].must_name))
			test_fail(__FILE__, __LINE__, "\"%s\": error \"%s\" does not name \"%s\"",
				  bad[i].line, err, bad[i].must_name);
	}
	int n = snprintf(many, sizeof many, "run=x --");
	for (int i = 0; i < CMDLINE_ARGS_MAX; i++)
		n += snprintf(many + n, sizeof many - (size_t)n, " a");
	ASSERT(cmdline_parse(many, &o, err, sizeof err));
	EXPECT_EQ(o.nargs, CMDLINE_ARGS_MAX);
	snprintf(many + n, sizeof many - (size_t)n, " b");
	ASSERT(!cmdline_parse(many, &o, err, sizeof err));
	EXPECT(strstr(err, "more than 64") != NULL);
}

/* A word that is no option, on a line that names a program, is most
 * likely one of its arguments put before the "--": the error says where
 * they go (and still lists every option); a line with no run= gets no
 * such hint, nor does an argument after "--". */
TEST(cmdline_unknown_word_after_run_says_arguments_go_after_dashdash)
{
	static const struct { const char *line, *must_name; bool hint; } cases[] = {
		{ "run=workers jobs=20000", "unknown option 'jobs' (a program's arguments go after '--'", true },
		{ "jobs=20000 run=workers", "unknown option 'jobs' (a program's arguments go after '--'", true },
		{ "run=blinky 1000", "'1000': expected key=value (a program's arguments go after '--'", true },
		{ "run=x -- a -- b jobs=1", NULL, false },
		{ "test=x frobnicate=1", "unknown option 'frobnicate' (known:", false },
		{ "test=x 1000", "'1000': expected key=value", false },
	};
	static struct kernel_options o;
	char err[CMDLINE_ERR_MAX];

	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		err[0] = 0;
		bool ok = cmdline_parse(cases[i].line, &o, err, sizeof err);
		if (ok != (cases[i].must_name == NULL)) {
			test_fail(__FILE__, __LINE__, "\"%s\": %s", cases[i].line,
				  ok ? "accepted" : err);
			continue;
		}
		if (cases[i].must_name && !strstr(err, cases[i].must_name))
			test_fail(__FILE__, __LINE__, "\"%s\": error \"%s\" does not say \"%s\"",
				  cases[i].line, err, cases[i].must_name);
		if (!cases[i].hint && strstr(err, "'--'"))
			test_fail(__FILE__, __LINE__, "\"%s\": error \"%s\" names '--'",
				  cases[i].line, err);
	}
	/* The longest key shown, the hint and every option still fit. */
	unsigned n = 0;
	while (cmdline_option_key(n))
		n++;
	char last[40];
	snprintf(last, sizeof last, " %s)", cmdline_option_key(n - 1));
	ASSERT(!cmdline_parse("run=x aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1",
			      &o, err, sizeof err));
	EXPECT(strstr(err, "...' (a program's arguments go after '--'") != NULL);
	EXPECT(strstr(err, last) != NULL);
}

/* A loader's options before "--" (a Raspberry Pi's firmware's) are
 * skipped; a line that starts with gmk's options keeps its "--" for the
 * program's arguments. */
TEST(cmdline_skips_a_loaders_options_before_dashdash)
{
	static const struct { const char *line, *gmk; } cases[] = {
		{ "coherent_pool=1M 8250.nr_uarts=1 console=ttyS0 -- run=x -- a b", "run=x -- a b" },
		{ "-- run=x", "run=x" },
		{ "  --  test=*", "test=*" },
		{ "run=x -- a -- b", "run=x -- a -- b" },
		{ "bogus=1 run=x", "bogus=1 run=x" },	/* no "--": refused whole */
		{ "video=hdmi --", "" },
		{ "", "" },
	};

	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = cmdline_after_loader(cases[i].line);
		if (strcmp(got, cases[i].gmk) != 0)
			test_fail(__FILE__, __LINE__, "\"%s\": gmk's part is \"%s\", want \"%s\"",
				  cases[i].line, got, cases[i].gmk);
	}
}

/* ip=: the network's address (docs/network.md), static or DHCP; a value
 * that is no address, prefix or gateway on its network is refused by
 * name, before anything runs. */
TEST(cmdline_ip_takes_a_static_address_or_dhcp_and_refuses_the_rest)
{
	static struct kernel_options o;
	char err[CMDLINE_ERR_MAX] = "";

	ASSERT(cmdline_parse("ip=10.0.2.15/24,10.0.2.2", &o, err, sizeof err));
	EXPECT(o.ip.static_addr);
	EXPECT_EQ(o.ip.addr, 0x0a00020fu);
	EXPECT_EQ(o.ip.mask, 0xffffff00u);
	EXPECT_EQ(o.ip.gw, 0x0a000202u);
	ASSERT(cmdline_parse("ip=192.168.1.7/32", &o, err, sizeof err));
	EXPECT_EQ(o.ip.mask, 0xffffffffu);
	EXPECT_EQ(o.ip.gw, 0);
	ASSERT(cmdline_parse("ip=dhcp", &o, err, sizeof err));
	EXPECT(!o.ip.static_addr);
	ASSERT(cmdline_parse("", &o, err, sizeof err));
	EXPECT(!o.ip.static_addr);
	static const struct { const char *line, *msg; } bad[] = {
		{ "ip=10.0.2.15", "ip=10.0.2.15: want dhcp or ADDR/PREFIX" },
		{ "ip=10.0.2/24", "ip=10.0.2/24: want dhcp or ADDR/PREFIX" },
		{ "ip=10.0.2.256/24", "want dhcp or ADDR/PREFIX" },
		{ "ip=10.0.2.15/33", "a prefix of 1..32" },
		{ "ip=10.0.2.15/0", "a prefix of 1..32" },
		{ "ip=10.0.2.15/24,", "after the prefix, want ,GATEWAY" },
		{ "ip=10.0.2.15/24;10.0.2.2", "after the prefix, want ,GATEWAY" },
		{ "ip=10.0.2.15/24,10.0.3.2", "the gateway is not another address" },
		{ "ip=10.0.2.15/24,10.0.2.15", "the gateway is not another address" },
		{ "ip=10.0.2.0/24", "the network's own address" },
		{ "ip=DHCP", "want dhcp or ADDR/PREFIX" },
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		EXPECT(!cmdline_parse(bad[i].line, &o, err, sizeof err));
		if (!strstr(err, bad[i].msg))
			printf("# %s: got \"%s\", want \"%s\"\n", bad[i].line, err, bad[i].msg);
		EXPECT(strstr(err, bad[i].msg) != NULL);
	}
}
