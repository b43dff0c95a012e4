// SPDX-License-Identifier: GPL-2.0
/*
 * Cases of tools/lint-params (not compiled): it must report exactly the
 * lines marked BAD.  tools/unit checks it.
 */
static unsigned int window __read_mostly = 32;
static struct pol pol __read_mostly = { .a = 1 };

CONGAVOID_PARAM_UINT(window, window, 1, 65535, 32, "the window");
CONGAVOID_PARAM_UINT(a, pol.a, 1, 100, 1, "a field");

static u32 good(struct pol *out)
{
	struct pol p;

	out->a = READ_ONCE(pol.a);
	p.a = READ_ONCE( pol.a);
	return min(READ_ONCE(window), p.a);	/* window, pol: comments */
}

static u32 bad(struct sock *sk)
{
	u32 w = window;				/* BAD */

	policy_ack(&pol, w);			/* BAD */
	return pol.a + READ_ONCE(pol.a);	/* BAD */
}
