/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a tc qdisc plugin (q_<kind>.so) uses of the tc binary that loads
 * it: the plugin's struct, and the functions of tc it calls.  The plugins
 * build against this header alone, so that the package builds with no
 * iproute2 source: Debian ships no iproute2 development headers.
 *
 * This is tc's plugin interface as iproute2 6.1 (Debian 12) has it; it has
 * not changed since iproute2 5.x.  tools/tc/abi_check.c holds it to the
 * real headers: built once against them and once against this file, it
 * prints the struct's layout and the enums' values, which must agree, and
 * the build against the real headers also sees the prototypes below,
 * which the compiler checks against tc's own (make unit, when the iproute2
 * source is there).
 */
#ifndef _CONGAVOID_TC_ABI_H
#define _CONGAVOID_TC_ABI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#ifndef CONGAVOID_TC_IPROUTE2
/* json_print.h */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

/* color.h: only the last value is used */
enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

/* tc_util.h: what tc finds as "<kind>_qdisc_util" in the plugin */
struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* utils.h */
#define SPRINT_BSIZE	64
#define SPRINT_BUF(x)	char x[SPRINT_BSIZE]
#define NEXT_ARG()	do { argv++; if (--argc <= 0) incomplete_command(); } while (0)

/* libnetlink.h */
#define parse_rtattr_nested(tb, max, rta) \
	(parse_rtattr_flags((tb), (max), RTA_DATA(rta), RTA_PAYLOAD(rta), \
			    NLA_F_NESTED))

static inline __u8 rta_getattr_u8(const struct rtattr *rta)
{
	return *(const __u8 *)RTA_DATA(rta);
}

static inline __u16 rta_getattr_u16(const struct rtattr *rta)
{
	return *(const __u16 *)RTA_DATA(rta);
}

static inline __u32 rta_getattr_u32(const struct rtattr *rta)
{
	return *(const __u32 *)RTA_DATA(rta);
}

static inline __u64 rta_getattr_u64(const struct rtattr *rta)
{
	__u64 v;

	memcpy(&v, RTA_DATA(rta), sizeof(v));
	return v;
}
#endif /* !CONGAVOID_TC_IPROUTE2 */

/* tc's functions the plugins call (the same prototypes as tc's) */
void incomplete_command(void) __attribute__((noreturn));
int get_u32(__u32 *val, const char *arg, int base);
int get_rate64(__u64 *rate, const char *str);
char *sprint_time64(__s64 time, char *buf);
unsigned ll_name_to_index(const char *name);
const char *ll_index_to_name(unsigned idx);
int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr16(struct nlmsghdr *n, int maxlen, int type, __u16 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate);
void open_json_array(enum output_type type, const char *delim);
void close_json_array(enum output_type type, const char *delim);
void print_nl(void);
int print_color_int(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, int value);
int print_color_bool(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, bool value);
int print_color_null(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, const char *value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, uint64_t value);
int print_color_0xhex(enum output_type t, enum color_attr color,
		      const char *key, const char *fmt,
		      unsigned long long value);
int print_color_float(enum output_type t, enum color_attr color,
		      const char *key, const char *fmt, double value);

#ifndef CONGAVOID_TC_IPROUTE2
/* json_print.h's wrappers: no colour */
#define CAV_PRINT(name, type)						\
static inline int print_##name(enum output_type t, const char *key,	\
			       const char *fmt, type value)		\
{									\
	return print_color_##name(t, COLOR_NONE, key, fmt, value);	\
}
CAV_PRINT(int, int)
CAV_PRINT(bool, bool)
CAV_PRINT(null, const char *)
CAV_PRINT(string, const char *)
CAV_PRINT(uint, unsigned int)
CAV_PRINT(u64, uint64_t)
CAV_PRINT(0xhex, unsigned long long)
CAV_PRINT(float, double)
#undef CAV_PRINT
#endif /* !CONGAVOID_TC_IPROUTE2 */

#endif /* _CONGAVOID_TC_ABI_H */
