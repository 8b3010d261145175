"""The exception of the qdcache package."""


class QdcacheError(Exception):
    """A call into libqdcache failed, or an item of a batch did.

    code: the gRPC status code number (3 = INVALID_ARGUMENT, 14 = UNAVAILABLE, ...)
    code_name: its name ("INVALID_ARGUMENT")
    message: what went wrong, as the daemon or library said it
    """

    def __init__(self, code, code_name, message, what=None):
        self.code = code
        self.code_name = code_name
        self.message = message
        prefix = (what + ": ") if what else ""
        super().__init__("%s%s: %s" % (prefix, code_name, message))
