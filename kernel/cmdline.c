/*
 * The kernel command line: "key=value key=value ...". Every option is in the
 * table below with its type; anything else stops the boot with a message
 * that names the option and what was wrong with it.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/time.h"

#define DEFAULT_SLICE_NS (10 * NSEC_PER_MSEC)	/* Go's forcePreemptNS */
#define MIN_SLICE_NS	 (100 * NSEC_PER_USEC)
#define MAX_SLICE_NS	 (10 * NSEC_PER_SEC)

struct kernel_options kopts;

enum opt_type { OPT_STRING, OPT_U64, OPT_U32, OPT_DURATION, OPT_BOOL, OPT_IPV4CONF };

struct option {
	const char *key;
	enum opt_type type;
	size_t offset;
	size_t size;		/* strings: buffer size */
	uint64_t min, max;	/* numbers and durations */
	const char *help;
};

#define OPT(k, t, field, lo, hi, h)                                          \
	{ k, t, offsetof(struct kernel_options, field),                     \
	  sizeof(((struct kernel_options *)0)->field), lo, hi, h }

static const struct option options[] = {
	OPT("test", OPT_STRING, test, 0, 0, "glob of tests to run"),
	OPT("bench", OPT_STRING, bench, 0, 0, "benchmarks: all or a,b; name/N divides its counts"),
	OPT("run", OPT_STRING, run, 0, 0, "program to run"),
	OPT("slice", OPT_DURATION, slice_ns, MIN_SLICE_NS, MAX_SLICE_NS,
	    "time slice, with a unit: 10ms, 500us"),
	OPT("schedtrace", OPT_U64, schedtrace_ms, 1, 3600000,
	    "milliseconds between SCHED lines"),
	OPT("nprocs", OPT_U32, nprocs, 1, MAX_CPUS, "number of Ps"),
	OPT("seed", OPT_U64, seed, 0, UINT64_MAX, "random seed"),
	OPT("fingerprint", OPT_BOOL, fingerprint, 0, 0,
	    "on: print a hash of the scheduling history at the end"),
	OPT("switchyield", OPT_BOOL, switchyield, 0, 0,
	    "on: yield the vCPU at every switch (deterministic replay under QEMU)"),
	OPT("trace", OPT_STRING, trace, 0, 0, "execution trace: on, off or bytes per P"),
	OPT("traceout", OPT_STRING, traceout, 0, 0, "auto or hex: where the trace goes"),
	OPT("traceback", OPT_STRING, traceback, 0, 0,
	    "none, single or all: goroutine stacks a fatal error prints"),
	OPT("input", OPT_U32, input, 0, 1,
	    "1: the harness answers '# send:' lines (console input tests)"),
	OPT("txcheck", OPT_U32, txcheck, 0, 1,
	    "1: the harness checks the serial output (console output tests)"),
	OPT("ip", OPT_IPV4CONF, ip, 0, 0,
	    "network address: dhcp, or ADDR/PREFIX[,GATEWAY] (10.0.2.15/24,10.0.2.2)"),
};

/* An unknown key is quoted up to this many characters. */
#define KEY_SHOWN 40

#define NOPTIONS (sizeof options / sizeof options[0])
_Static_assert(NOPTIONS <= 32, "cmdline_parse's `seen` has a bit per option");

const char *cmdline_option_key(unsigned i)
{
	return i < NOPTIONS ? options[i].key : NULL;
}

static bool parse_u64(const char *s, size_t n, uint64_t *out, size_t *used)
{
	uint64_t v = 0;
	size_t i = 0;

	if (n == 0 || s[0] < '0' || s[0] > '9')
		return false;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;		/* overflow */
		v = v * 10 + d;
	}
	*out = v;
	*used = i;
	return true;
}

/* A dotted-quad IPv4 address at s (n bytes at most): its value, and the
 * bytes it took; false if it is not one. */
static bool parse_ipv4(const char *s, size_t n, uint32_t *out, size_t *used)
{
	uint32_t a = 0;
	size_t i = 0, u;

	for (int k = 0; k < 4; k++) {
		uint64_t v;
		if (k > 0) {
			if (i >= n || s[i] != '.')
				return false;
			i++;
		}
		if (!parse_u64(s + i, n - i, &v, &u) || v > 255 || u > 3)
			return false;
		a = a << 8 | (uint32_t)v;
		i += u;
	}
	*out = a;
	*used = i;
	return true;
}

/* ip=dhcp | ADDR/PREFIX[,GATEWAY]: the gateway on the address's network. */
static bool parse_ipconf(const char *val, size_t n, struct ipv4_conf *c,
			 char *err, unsigned errlen)
{
	uint64_t prefix;
	size_t u, i;

	memset(c, 0, sizeof *c);
	if (n == 4 && memcmp(val, "dhcp", 4) == 0)
		return true;
	if (!parse_ipv4(val, n, &c->addr, &i) || i >= n || val[i] != '/' ||
	    !parse_u64(val + i + 1, n - i - 1, &prefix, &u) || prefix < 1 ||
	    prefix > 32) {
		snprintf(err, errlen, "ip=%.*s: want dhcp or ADDR/PREFIX[,GATEWAY] with "
			 "a prefix of 1..32 (ip=10.0.2.15/24,10.0.2.2)", (int)n, val);
		return false;
	}
	i += 1 + u;
	c->mask = prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> prefix);
	if (i < n) {
		if (val[i] != ',' || !parse_ipv4(val + i + 1, n - i - 1, &c->gw, &u) ||
		    i + 1 + u != n) {
			snprintf(err, errlen, "ip=%.*s: after the prefix, want ,GATEWAY "
				 "(an IPv4 address) or nothing", (int)n, val);
			return false;
		}
		if ((c->gw & c->mask) != (c->addr & c->mask) || c->gw == c->addr) {
			snprintf(err, errlen, "ip=%.*s: the gateway is not another "
				 "address on the interface's network", (int)n, val);
			return false;
		}
	}
	if ((c->addr & ~c->mask) == 0 && prefix < 31) {
		snprintf(err, errlen, "ip=%.*s: that is the network's own address, "
			 "not a host's", (int)n, val);
		return false;
	}
	c->static_addr = true;
	return true;
}

static bool set_option(const struct option *o, const char *val, size_t n,
		       struct kernel_options *ko, char *err, unsigned errlen)
{
	char *field = (char *)ko + o->offset;
	uint64_t v = 0;	/* every case sets it; gcc 12 on aarch64 cannot tell */
	size_t used;

	switch (o->type) {
	case OPT_IPV4CONF:
		return parse_ipconf(val, n, (struct ipv4_conf *)field, err, errlen);
	case OPT_STRING:
		if (n >= o->size) {
			snprintf(err, errlen, "%s: value is longer than %zu characters",
				 o->key, o->size - 1);
			return false;
		}
		memcpy(field, val, n);
		field[n] = '\0';
		return true;
	case OPT_BOOL:
		if (n == 2 && memcmp(val, "on", 2) == 0)
			*(bool *)field = true;
		else if (n == 3 && memcmp(val, "off", 3) == 0)
			*(bool *)field = false;
		else {
			snprintf(err, errlen, "%s=%.*s: expected on or off", o->key,
				 (int)n, val);
			return false;
		}
		return true;
	case OPT_U32:
	case OPT_U64:
		if (!parse_u64(val, n, &v, &used) || used != n) {
			snprintf(err, errlen, "%s=%.*s: not a whole number", o->key,
				 (int)n, val);
			return false;
		}
		break;
	case OPT_DURATION: {
		static const struct { const char *unit; uint64_t ns; } units[] = {
			{ "ns", 1 }, { "us", NSEC_PER_USEC }, { "ms", NSEC_PER_MSEC },
			{ "s", NSEC_PER_SEC },
		};
		if (!parse_u64(val, n, &v, &used)) {
			snprintf(err, errlen, "%s=%.*s: not a duration (e.g. 10ms, 500us)",
				 o->key, (int)n, val);
			return false;
		}
		const char *u = val + used;
		size_t ulen = n - used;
		uint64_t mult = 0;
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strlen(units[i].unit) == ulen && memcmp(u, units[i].unit, ulen) == 0)
				mult = units[i].ns;
		if (!mult) {
			snprintf(err, errlen, "%s=%.*s: needs a unit: ns, us, ms or s",
				 o->key, (int)n, val);
			return false;
		}
		if (v > UINT64_MAX / mult) {
			snprintf(err, errlen, "%s=%.*s: too large", o->key, (int)n, val);
			return false;
		}
		v *= mult;
		break;
	}
	}
	if (v < o->min || v > o->max) {
		snprintf(err, errlen, "%s=%.*s: out of range (%llu..%llu%s)", o->key,
			 (int)n, val, (unsigned long long)o->min,
			 (unsigned long long)o->max, o->type == OPT_DURATION ? " ns" : "");
		return false;
	}
	if (o->type == OPT_U32)
		*(uint32_t *)field = (uint32_t)v;
	else
		*(uint64_t *)field = v;
	return true;
}

void cmdline_copy(char *dst, const char *src, size_t srcmax)
{
	size_t n = src ? strnlen(src, srcmax < CMDLINE_MAX + 1 ? srcmax : CMDLINE_MAX + 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

const char *cmdline_skip_image_path(const char *line, bool path_first)
{
	const char *p = line, *w;
	bool eq = false, slash = false;

	while (*p == ' ' || *p == '\t')
		p++;
	for (w = p; *p && *p != ' ' && *p != '\t'; p++) {
		eq |= *p == '=';
		slash |= *p == '/';
	}
	if (p == w || eq || !(path_first || slash))
		return w;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Is the word w (n bytes) exactly "--"? */
static bool is_dashdash(const char *w, size_t n)
{
	return n == 2 && w[0] == '-' && w[1] == '-';
}

/* Is word w (n bytes) one of gmk's options, key=value with a known key? */
static bool is_option_word(const char *w, size_t n)
{
	const char *eq = memchr(w, '=', n);

	for (unsigned i = 0; eq && i < NOPTIONS; i++)
		if (strlen(options[i].key) == (size_t)(eq - w) &&
		    memcmp(options[i].key, w, (size_t)(eq - w)) == 0)
			return true;
	return false;
}

/* Does the line name a program (a run= word before any "--")? Then a word
 * that is no option is most likely one of the program's arguments, put
 * before the "--" that would make it one. */
static bool names_a_program(const char *line)
{
	const char *p = line, *w;

	while (*p) {
		while (is_space(*p))
			p++;
		for (w = p; *p && !is_space(*p); p++)
			;
		if (is_dashdash(w, (size_t)(p - w)))
			return false;
		if (p - w > 4 && memcmp(w, "run=", 4) == 0)
			return true;
	}
	return false;
}

/* The hint after an unknown word on a line that names a program. */
#define ARGS_HINT "a program's arguments go after '--': run=NAME -- ARGS"

const char *cmdline_after_loader(const char *line)
{
	const char *p = line, *w;

	if (!line)
		return line;
	while (is_space(*p))
		p++;
	for (w = p; *p && !is_space(*p); p++)
		;
	if (p == w || (!is_dashdash(w, (size_t)(p - w)) && is_option_word(w, (size_t)(p - w))))
		return line;
	for (p = line; *p;) {
		while (is_space(*p))
			p++;
		for (w = p; *p && !is_space(*p); p++)
			;
		if (is_dashdash(w, (size_t)(p - w))) {
			while (is_space(*p))
				p++;
			return p;
		}
	}
	return line;
}

/*
 * The program's arguments, after "--": words split at spaces, as a shell
 * splits them; a part in '...' or "..." keeps its spaces (and the other
 * kind of quote), quotes join with the text around them (a"b c" is one
 * word, ab c), and "" is an empty argument. No escapes: a quote of one kind
 * is written inside the other. Appends to ko->args; false with a message
 * on an unterminated quote or too many arguments.
 */
static bool parse_args(const char *p, struct kernel_options *ko, char *err,
		       unsigned errlen)
{
	char *out = ko->args;

	for (;;) {
		while (is_space(*p))
			p++;
		if (!*p)
			return true;
		if (ko->nargs == CMDLINE_ARGS_MAX) {
			snprintf(err, errlen, "more than %d program arguments after '--'",
				 CMDLINE_ARGS_MAX);
			return false;
		}
		while (*p && !is_space(*p)) {
			if (*p != '"' && *p != '\'') {
				*out++ = *p++;
				continue;
			}
			char q = *p++;
			const char *end = strchr(p, q);
			if (!end) {
				snprintf(err, errlen, "program arguments: unterminated %c quote "
					 "(a quote of one kind goes inside the other)", q);
				return false;
			}
			memcpy(out, p, (size_t)(end - p));
			out += end - p;
			p = end + 1;
		}
		*out++ = '\0';	/* fits: the text is shorter than the line */
		ko->nargs++;
	}
}

bool cmdline_parse(const char *line, struct kernel_options *ko, char *err,
		   unsigned errlen)
{
	uint32_t seen = 0;

	memset(ko, 0, sizeof *ko);
	ko->slice_ns = DEFAULT_SLICE_NS;
	if (!line)
		return true;
	if (strnlen(line, CMDLINE_MAX + 1) > CMDLINE_MAX) {
		snprintf(err, errlen, "longer than %d bytes, the most gmk takes",
			 CMDLINE_MAX);
		return false;
	}
	for (const char *p = line; *p;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		const char *w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		size_t wlen = (size_t)(p - w);
		if (is_dashdash(w, wlen)) {
			/* The rest is the program's: no option follows it. */
			if (!parse_args(p, ko, err, errlen))
				return false;
			if (!ko->run[0]) {
				snprintf(err, errlen, "arguments after '--' but no run=<program> "
					 "before it to take them");
				return false;
			}
			break;
		}
		const char *eq = memchr(w, '=', wlen);
		if (!eq) {
			snprintf(err, errlen, "'%.*s': expected key=value%s", (int)wlen, w,
				 names_a_program(line) ? " (" ARGS_HINT ")" : "");
			return false;
		}
		size_t klen = (size_t)(eq - w);
		const char *val = eq + 1;
		size_t vlen = wlen - klen - 1;
		const struct option *o = NULL;
		unsigned idx = 0;
		for (unsigned i = 0; i < NOPTIONS; i++)
			if (strlen(options[i].key) == klen &&
			    memcmp(options[i].key, w, klen) == 0) {
				o = &options[i];
				idx = i;
			}
		if (!o) {
			/* The known ones from the table: a new option is in. */
			int k = snprintf(err, errlen, "unknown option '%.*s%s' (%sknown:",
					 klen > KEY_SHOWN ? KEY_SHOWN : (int)klen, w,
					 klen > KEY_SHOWN ? "..." : "",
					 names_a_program(line) ? ARGS_HINT "; " : "");
			for (unsigned i = 0; i < NOPTIONS && k >= 0 && (unsigned)k < errlen; i++)
				k += snprintf(err + k, errlen - (unsigned)k, " %s", options[i].key);
			if (k >= 0 && (unsigned)k < errlen)
				snprintf(err + k, errlen - (unsigned)k, ")");
			return false;
		}
		if (vlen == 0) {
			snprintf(err, errlen, "%s: empty value", o->key);
			return false;
		}
		if (seen & (1u << idx)) {
			snprintf(err, errlen, "%s: given twice", o->key);
			return false;
		}
		seen |= 1u << idx;
		if (!set_option(o, val, vlen, ko, err, errlen))
			return false;
		if (strcmp(o->key, "seed") == 0)
			ko->seed_set = true;
	}
	return true;
}
