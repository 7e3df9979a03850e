#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernels we can build for: every /lib/modules/*/build, oldest first.
for d in /lib/modules/*/build; do
	[ -e "$d/Makefile" ] && basename "$(dirname "$d")"
done 2>/dev/null | sort -V | xargs
