/*
 * The globs of test= (kernel/test.c): one glob matches as the shell's
 * does, and a list is a union from which a -glob takes its matches out.
 */
#include "kernel/test.h"

TEST(glob_matches_like_the_shell)
{
	EXPECT(glob_match("*", "anything"));
	EXPECT(glob_match("boot_*", "boot_x"));
	EXPECT(!glob_match("boot_*", "sched_x"));
	EXPECT(glob_match("a?c*z", "abcdz"));
	EXPECT(!glob_match("a?c", "ac"));
	EXPECT(glob_match("*ab*ab", "xabyab"));
}

/* test=a,b is a union; a -glob leaves its matches out, wherever it is. */
TEST(glob_lists_union_and_exclusion)
{
	EXPECT(test_selects("chan_*,sync_*", "sync_x"));
	EXPECT(!test_selects("chan_*,sync_*", "sched_x"));
	EXPECT(test_selects("*,-sched_mi*", "sched_x"));
	EXPECT(!test_selects("*,-sched_mi*", "sched_million"));
	EXPECT(!test_selects("-sched_mi*,sched_*", "sched_million"));
	EXPECT(!test_selects("-chan_*", "sync_x"));	/* only exclusions: none */
}
