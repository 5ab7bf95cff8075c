"""aclAppLog: a program's own lines in the CANN application log.

On a board, ``acl.app_log(level, message)`` writes one line to the application log files
(plog), under ``$ASCEND_PROCESS_LOG_PATH``, else ``$ASCEND_WORK_PATH``, else ``$HOME/ascend/log``
(docs/zh/env_vars/ASCEND_PROCESS_LOG_PATH.md; API reference, "aclAppLog",
docs/zh/api_ref/24_other_APIs.md), and only lines at the configured level or above are kept.
The binding passes the message as the argument of a fixed ``"%s"``, so ``%`` in it is printed
as it is (python/pyACL/py_init_acl.cpp, WrapAclAppLog).

The sandbox writes no files: each line is the call's record in the trace log (level and
message), and goes to Python's ``logging`` under the logger ``"acl"`` at the matching level
(ACL_DEBUG 0, ACL_INFO 1, ACL_WARNING 2, ACL_ERROR 3: acl_base_rt.h:195-198; any other level
as ERROR), whose default shows WARNING and above on stderr, as a board's default log level
keeps errors.  ``logging.getLogger("acl").setLevel(logging.DEBUG)`` with a handler shows them all.
"""

from __future__ import annotations

import logging

from ..core.errors import describe
from ..core.gate import call

ACL_DEBUG, ACL_INFO, ACL_WARNING, ACL_ERROR = 0, 1, 2, 3
_LEVELS = {ACL_DEBUG: logging.DEBUG, ACL_INFO: logging.INFO, ACL_WARNING: logging.WARNING, ACL_ERROR: logging.ERROR}
LOGGER = logging.getLogger("acl")


def app_log(level, message) -> None:
    """aclAppLog: write ``message`` to the application log at ``level`` (ACL_DEBUG .. ACL_ERROR)."""
    if not isinstance(level, int):  # the binding's "is" format: an int, then a str, else TypeError
        raise TypeError(f"acl.app_log: level must be an int (ACL_DEBUG .. ACL_ERROR), got {describe(level)}")
    if not isinstance(message, str):
        raise TypeError(f"acl.app_log: message must be a str, got {describe(message)}")

    def body(m, th):
        LOGGER.log(_LEVELS.get(level, logging.ERROR), message)

    call("aclAppLog", body, cost="query", args=("level", int(level), "message", message))
