# SPDX-License-Identifier: GPL-2.0
# Local settings for the kernel's tdc.py (tools/testing/selftests/tc-testing),
# found on PYTHONPATH when selftests/tdc.sh runs it: tdc runs every command
# with the environment in ENVIR only, and tc must find the project's plugins.
import os

ENVIR = {"TC_LIB_DIR": os.environ["TC_LIB_DIR"],
         "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
EXTRA_NAMES = {"TC": "/sbin/tc", "IP": "/sbin/ip", "TIMEOUT": 24}
