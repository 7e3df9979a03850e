// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: rules on a live fault device (rule add, remove, enable, disable,
 * replace, list), sent as target messages without suspending the device,
 * and rule check, which asks only the target's parser (base/rule.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dev.h"

DFT_HANDLER(dft_cmd_rule_add)
{
	struct dft_buf msg = { 0 };
	char kreason[512], *reply;
	unsigned int i;
	int r, e = 0;

	(void)argc;
	if (!o->nr_rules)
		return dft_usage_err(cmd, "no rule given (a RULE or --error, --drop, ...)");
	r = dft_check_rules(cmd, o);
	if (r)
		return r;
	for (i = 0; i < o->nr_rules; i++) {
		msg.len = 0;
		dft_buf_add(&msg, "rule add %s", o->rules[i]);
		if (msg.oom) {
			r = dft_err("out of memory");
			break;
		}
		r = dft_send(argv[0], msg.text, &reply, kreason, sizeof(kreason), &e);
		if (r > 0)
			break;
		if (r < 0) {
			if (e == -EINVAL)
				r = dft_rule_refused(argv[0], o->rules[i], e,
						     dft_reason_tail(kreason));
			else if (e == -E2BIG)
				r = dft_err("%s: too many rules (%d at most)", argv[0],
					    DFT_MAX_RULES);
			else if (e == -EEXIST)
				r = dft_err("%s: rule '%s': that id is already in use", argv[0],
					    o->rules[i]);
			else
				r = dft_msg_failed(argv[0], "rule add", e, kreason);
			break;
		}
		printf("%s\n", reply);
		free(reply);
	}
	dft_buf_free(&msg);
	return r;
}

DFT_HANDLER(dft_cmd_rule_id)
{
	const char *verb = cmd->name + strlen("rule ");
	char msg[64], kreason[512], *reply;
	int i, r, e = 0, ret = DFT_EXIT_OK;

	(void)o;
	for (i = 1; i < argc; i++) {
		r = dft_check_id(cmd, argv[i]);
		if (r)
			return r;
	}
	for (i = 1; i < argc; i++) {
		snprintf(msg, sizeof(msg), "rule %s %s", verb, argv[i]);
		r = dft_send(argv[0], msg, &reply, kreason, sizeof(kreason), &e);
		if (r > 0)
			return r;
		if (r < 0) {
			if (e == -ENOENT)
				ret = dft_err("%s: no rule with id %s", argv[0], argv[i]);
			else
				ret = dft_msg_failed(argv[0], msg, e, kreason);
			continue;
		}
		free(reply);
	}
	return ret;
}

DFT_HANDLER(dft_cmd_rule_replace)
{
	struct dft_buf msg = { 0 };
	char kreason[512], *reply;
	int r, e = 0;

	(void)argc;
	r = dft_check_id(cmd, argv[1]);
	if (r)
		return r;
	if (o->nr_rules != 1)
		return dft_usage_err(cmd, "give exactly one rule, not %u", o->nr_rules);
	r = dft_check_rules(cmd, o);
	if (r)
		return r;
	dft_buf_add(&msg, "rule replace %s %s", argv[1], o->rules[0]);
	if (msg.oom)
		return dft_err("out of memory");
	r = dft_send(argv[0], msg.text, &reply, kreason, sizeof(kreason), &e);
	dft_buf_free(&msg);
	if (r > 0)
		return r;
	if (!r) {
		free(reply);
		return DFT_EXIT_OK;
	}
	if (e == -ENOENT)
		return dft_err("%s: no rule with id %s", argv[0], argv[1]);
	if (e == -EINVAL)
		return dft_rule_refused(argv[0], o->rules[0], e, dft_reason_tail(kreason));
	return dft_msg_failed(argv[0], "rule replace", e, kreason);
}

DFT_HANDLER(dft_cmd_rule_list)
{
	char kreason[512], *reply, *s, *line;
	struct dft_rule_info ri;
	struct dft_json j;
	int r, e = 0;

	(void)cmd;
	(void)argc;
	r = dft_send(argv[0], "rule list", &reply, kreason, sizeof(kreason), &e);
	if (r > 0)
		return r;
	if (r < 0)
		return dft_msg_failed(argv[0], "rule list", e, kreason);
	if (o->json) {
		dft_json_init(&j, stdout, false);
		dft_json_begin(&j, NULL, '{');
		dft_json_begin(&j, "devices", '[');
		dft_json_begin(&j, NULL, '{');
		dft_json_str(&j, "name", argv[0]);
		dft_json_begin(&j, "rules", '[');
	} else if (*reply) {
		printf("%4s  %-8s %-7s %s\n", "ID", "ACTION", "ENABLED", "RULE");
	}
	s = reply;
	r = DFT_EXIT_OK;
	while ((line = strsep(&s, "\n")) != NULL) {
		if (!*line)
			continue;
		if (dft_parse_rule(line, &ri)) {
			r = dft_err("%s: cannot parse rule '%s' from the target", argv[0], line);
			continue;
		}
		if (o->json) {
			dft_json_begin(&j, NULL, '{');
			dft_json_u64(&j, "id", ri.id);
			dft_json_str(&j, "action", ri.action);
			dft_json_bool(&j, "enabled", ri.enabled);
			dft_json_str(&j, "rule", line);
			dft_json_end(&j, '}');
		} else {
			printf("%4u  %-8s %-7s %s\n", ri.id, ri.action, ri.enabled ? "yes" : "no",
			       line);
		}
	}
	if (o->json) {
		dft_json_end(&j, ']');
		dft_json_end(&j, '}');
		dft_json_end(&j, ']');
		dft_json_end(&j, '}');
		dft_json_finish(&j);
	}
	free(reply);
	return r;
}

/*
 * rule check: each rule, raw or built from readable options, through the
 * target's own parser.  One line a rule: the rule, a tab, and "ok" or the
 * target's reason with the part it is about.  Exit 1 if any is refused.
 */
DFT_HANDLER(dft_cmd_rule_check)
{
	struct dft_rule_err rerr;
	unsigned int i;
	int r, ret = DFT_EXIT_OK;

	(void)argc;
	(void)argv;
	if (!o->nr_rules)
		return dft_usage_err(cmd, "no rule given (a RULE or --error, --drop, ...)");
	for (i = 0; i < o->nr_rules; i++) {
		memset(&rerr, 0, sizeof(rerr));
		r = dft_rule_check(o->rules[i], &rerr);
		if (r == -ENOMEM)
			return dft_err("out of memory");
		if (!r) {
			printf("%s\tok\n", o->rules[i]);
			continue;
		}
		printf("%s\t%s", o->rules[i], rerr.reason);
		if (rerr.word[0])
			printf(" (at '%s')", rerr.word);
		printf("\n");
		ret = DFT_EXIT_FAIL;
	}
	return ret;
}
