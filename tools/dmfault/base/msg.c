// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: a message is checked with the target's own message parser
 * (fault_msg_parse() in drivers/md/dm-fault-args.c, compiled unchanged
 * against tools/kshim) before it is sent, so that what the tool refuses is
 * what the target would refuse, for the same reason.
 */
#include "dm-fault-args.h"
#include "base/rule.h"

/* @msg split at single spaces into a malloc()ed argv over the copy *@copy. */
static char **dft_msg_words(const char *msg, char **copy, unsigned int *n)
{
	unsigned int nr = 1;
	char **w, *s;
	const char *p;

	for (p = msg; *p; p++)
		nr += *p == ' ';
	*copy = strdup(msg);
	w = calloc(nr, sizeof(*w));
	if (!*copy || !w) {
		free(*copy);
		free(w);
		return NULL;
	}
	*n = 0;
	s = *copy;
	while ((p = strsep(&s, " ")) != NULL)
		if (*p)
			w[(*n)++] = (char *)p;
	return w;
}

/* 0 if the target takes @argv; else -EINVAL with *@why its reason. */
static int dft_msg_parse(unsigned int argc, char **argv, const char **why)
{
	struct fault_msg m;
	char *error = NULL;

	if (!fault_msg_parse(&m, argc, argv, &error))
		return 0;
	*why = error;
	return -EINVAL;
}

/*
 * Which word of a bad add or bad remove the target refuses on its own: the
 * message is asked again with only that word (and a range after a key), so
 * that the refusal can name it.  -1 when no single word is to blame.
 */
static int dft_msg_culprit(unsigned int argc, char **argv, const char *why)
{
	const char *why1;
	char *one[4];
	unsigned int i;

	if (argc < 3 || strcasecmp(argv[0], "bad"))
		return -1;
	for (i = 2; i < argc; i++) {
		one[0] = argv[0];
		one[1] = argv[1];
		one[2] = argv[i];
		one[3] = "0";
		if (dft_msg_parse(strchr(argv[i], '=') ? 4 : 3, one, &why1) && why1 == why)
			return i;
	}
	return -1;
}

/**
 * dft_msg_check - check a message as the fault target will read it
 * @msg: the words of the message separated by single spaces
 * @word: on failure, the word the target refuses ("" if it is the whole message)
 * @len: the size of @word
 * @why: on failure, the target's reason
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int dft_msg_check(const char *msg, char *word, size_t len, const char **why)
{
	unsigned int argc;
	char **argv, *copy;
	int r, i;

	word[0] = '\0';
	argv = dft_msg_words(msg, &copy, &argc);
	if (!argv)
		return -ENOMEM;
	r = dft_msg_parse(argc, argv, why);
	if (r) {
		i = dft_msg_culprit(argc, argv, *why);
		if (i >= 0)
			snprintf(word, len, "%s", argv[i]);
	}
	free(argv);
	free(copy);
	return r;
}

/**
 * dft_msg_name - which of the target's messages @msg is
 * @msg: the words of the message separated by single spaces
 *
 * Return: its name as the target logs it (fault_msg_name()), whether the
 * target takes the rest or not; NULL if its first words are none of the
 * target's, or for want of memory.
 */
const char *dft_msg_name(const char *msg)
{
	struct fault_msg m;
	unsigned int argc;
	char **argv, *copy, *error = NULL;

	argv = dft_msg_words(msg, &copy, &argc);
	if (!argv)
		return NULL;
	fault_msg_parse(&m, argc, argv, &error);
	free(argv);
	free(copy);
	return m.cmd == FAULT_MSG_NONE ? NULL : fault_msg_name(m.cmd);
}

/* The name of the target's message @i, from 0; NULL past the last. */
const char *dft_msg_table_name(unsigned int i)
{
	return i + 1 < FAULT_NR_MSGS ? fault_msg_name(i + 1) : NULL;
}
