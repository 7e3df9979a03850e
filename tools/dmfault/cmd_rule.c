// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmfault: rules on a live fault device (rule add, remove, enable, disable,
 * replace, list), sent as target messages without suspending the device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dmfault.h"

DMF_HANDLER(dmf_cmd_rule_add)
{
	struct dmf_buf msg = { 0 };
	char kreason[512], *reply;
	unsigned int i;
	int r, e = 0;

	(void)argc;
	if (!o->nr_rules)
		return dmf_usage_err(cmd, "no rule given (a RULE or --error, --drop, ...)");
	r = dmf_check_rules(cmd, o);
	if (r)
		return r;
	for (i = 0; i < o->nr_rules; i++) {
		msg.len = 0;
		dmf_buf_add(&msg, "rule add %s", o->rules[i]);
		if (msg.oom) {
			r = dmf_err("out of memory");
			break;
		}
		r = dmf_send(argv[0], msg.text, &reply, kreason, sizeof(kreason), &e);
		if (r > 0)
			break;
		if (r < 0) {
			if (e == -EINVAL)
				r = dmf_rule_refused(argv[0], o->rules[i], e,
						     dmf_reason_tail(kreason));
			else if (e == -E2BIG)
				r = dmf_err("%s: too many rules (%d at most)", argv[0],
					    DMF_MAX_RULES);
			else if (e == -EEXIST)
				r = dmf_err("%s: rule '%s': that id is already in use", argv[0],
					    o->rules[i]);
			else
				r = dmf_msg_failed(argv[0], "rule add", e, kreason);
			break;
		}
		printf("%s\n", reply);
		free(reply);
	}
	dmf_buf_free(&msg);
	return r;
}

int dmf_check_id(const struct dmf_cmd *cmd, const char *id)
{
	uint64_t v;

	if (dmf_parse_u64(id, &v) || !v || v > UINT32_MAX)
		return dmf_usage_err(cmd, "'%s' is not a rule id (a positive number)", id);
	return 0;
}

DMF_HANDLER(dmf_cmd_rule_id)
{
	const char *verb = cmd->name + strlen("rule ");
	char msg[64], kreason[512], *reply;
	int i, r, e = 0, ret = DMF_EXIT_OK;

	(void)o;
	for (i = 1; i < argc; i++) {
		r = dmf_check_id(cmd, argv[i]);
		if (r)
			return r;
	}
	for (i = 1; i < argc; i++) {
		snprintf(msg, sizeof(msg), "rule %s %s", verb, argv[i]);
		r = dmf_send(argv[0], msg, &reply, kreason, sizeof(kreason), &e);
		if (r > 0)
			return r;
		if (r < 0) {
			if (e == -ENOENT)
				ret = dmf_err("%s: no rule with id %s", argv[0], argv[i]);
			else
				ret = dmf_msg_failed(argv[0], msg, e, kreason);
			continue;
		}
		free(reply);
	}
	return ret;
}

DMF_HANDLER(dmf_cmd_rule_replace)
{
	struct dmf_buf msg = { 0 };
	char kreason[512], *reply;
	int r, e = 0;

	(void)argc;
	r = dmf_check_id(cmd, argv[1]);
	if (r)
		return r;
	if (o->nr_rules != 1)
		return dmf_usage_err(cmd, "give exactly one rule, not %u", o->nr_rules);
	r = dmf_check_rules(cmd, o);
	if (r)
		return r;
	dmf_buf_add(&msg, "rule replace %s %s", argv[1], o->rules[0]);
	if (msg.oom)
		return dmf_err("out of memory");
	r = dmf_send(argv[0], msg.text, &reply, kreason, sizeof(kreason), &e);
	dmf_buf_free(&msg);
	if (r > 0)
		return r;
	if (!r) {
		free(reply);
		return DMF_EXIT_OK;
	}
	if (e == -ENOENT)
		return dmf_err("%s: no rule with id %s", argv[0], argv[1]);
	if (e == -EINVAL)
		return dmf_rule_refused(argv[0], o->rules[0], e, dmf_reason_tail(kreason));
	return dmf_msg_failed(argv[0], "rule replace", e, kreason);
}

DMF_HANDLER(dmf_cmd_rule_list)
{
	char kreason[512], *reply, *s, *line;
	struct dmf_rule_info ri;
	struct dmf_json j;
	int r, e = 0;

	(void)cmd;
	(void)argc;
	r = dmf_send(argv[0], "rule list", &reply, kreason, sizeof(kreason), &e);
	if (r > 0)
		return r;
	if (r < 0)
		return dmf_msg_failed(argv[0], "rule list", e, kreason);
	if (o->json) {
		dmf_json_init(&j, stdout, false);
		dmf_json_begin(&j, NULL, '{');
		dmf_json_begin(&j, "devices", '[');
		dmf_json_begin(&j, NULL, '{');
		dmf_json_str(&j, "name", argv[0]);
		dmf_json_begin(&j, "rules", '[');
	} else if (*reply) {
		printf("%4s  %-8s %-7s %s\n", "ID", "ACTION", "ENABLED", "RULE");
	}
	s = reply;
	r = DMF_EXIT_OK;
	while ((line = strsep(&s, "\n")) != NULL) {
		if (!*line)
			continue;
		if (dmf_parse_rule(line, &ri)) {
			r = dmf_err("%s: cannot parse rule '%s' from the target", argv[0], line);
			continue;
		}
		if (o->json) {
			dmf_json_begin(&j, NULL, '{');
			dmf_json_u64(&j, "id", ri.id);
			dmf_json_str(&j, "action", ri.action);
			dmf_json_bool(&j, "enabled", ri.enabled);
			dmf_json_str(&j, "rule", line);
			dmf_json_end(&j, '}');
		} else {
			printf("%4u  %-8s %-7s %s\n", ri.id, ri.action, ri.enabled ? "yes" : "no",
			       line);
		}
	}
	if (o->json) {
		dmf_json_end(&j, ']');
		dmf_json_end(&j, '}');
		dmf_json_end(&j, ']');
		dmf_json_end(&j, '}');
		dmf_json_finish(&j);
	}
	free(reply);
	return r;
}
