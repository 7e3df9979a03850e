#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make hunt, in the guest: load the modules and run dmfault hunt over the
# whole catalogue (or the paths named), each path's sweep bounded by
# HUNT_STEPS (default 150) steps.  The table goes to stdout, a row a path
# as it finishes.  The build tree's dmfault finds its catalogue and helper
# beside itself; its scratch directory is in /dev/shm, off the overlay
# root.
#
#   tests/vm/run --kernel 6.12 --mem 2048 --timeout 3000 -- tests/vm/hunt.sh [PATH...]
top=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$top/tools/dmfault:$PATH" TMPDIR=/dev/shm
"$top/tests/vm/load" >/dev/null || exit 1
dmesg -n 1
echo "# dmfault hunt on $(uname -r), --max-steps ${HUNT_STEPS:-150}"
# The guest's root is the host's / over 9p: the 9p client is kept out, as
# every hunt in the VM does (HUNT_VM in lib.sh).
dmfault hunt --set "reject-module=9p 9pnet" --max-steps "${HUNT_STEPS:-150}" "$@"
rc=$?
echo "# dmfault hunt: exit $rc"
exit $rc
