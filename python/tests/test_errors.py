"""The exceptions: one QdcacheError subclass per status code."""

import unittest

import qdcache

# Every status code but OK, with its name and the class raised for it.
CODES = [
    (1, "CANCELLED", qdcache.Cancelled),
    (2, "UNKNOWN", qdcache.Unknown),
    (3, "INVALID_ARGUMENT", qdcache.InvalidArgument),
    (4, "DEADLINE_EXCEEDED", qdcache.DeadlineExceeded),
    (5, "NOT_FOUND", qdcache.NotFound),
    (6, "ALREADY_EXISTS", qdcache.AlreadyExists),
    (7, "PERMISSION_DENIED", qdcache.PermissionDenied),
    (8, "RESOURCE_EXHAUSTED", qdcache.ResourceExhausted),
    (9, "FAILED_PRECONDITION", qdcache.FailedPrecondition),
    (10, "ABORTED", qdcache.Aborted),
    (11, "OUT_OF_RANGE", qdcache.OutOfRange),
    (12, "UNIMPLEMENTED", qdcache.Unimplemented),
    (13, "INTERNAL", qdcache.Internal),
    (14, "UNAVAILABLE", qdcache.Unavailable),
    (15, "DATA_LOSS", qdcache.DataLoss),
    (16, "UNAUTHENTICATED", qdcache.Unauthenticated),
]


class ErrorTest(unittest.TestCase):
    def test_each_code_has_its_subclass_of_qdcache_error(self):
        for code, name, cls in CODES:
            with self.subTest(name=name):
                error = qdcache.error_for(code, name, "what went wrong", "compile")
                self.assertIs(type(error), cls)
                self.assertIsInstance(error, qdcache.QdcacheError)
                self.assertEqual((error.code, error.code_name, error.message), (code, name, "what went wrong"))
                self.assertEqual(str(error), "compile: %s: what went wrong" % name)
                self.assertIn(cls.__name__, qdcache.__all__)

    def test_a_code_without_a_subclass_is_a_plain_qdcache_error(self):
        error = qdcache.error_for(99, "UNKNOWN", "a code from the future")
        self.assertIs(type(error), qdcache.QdcacheError)

    def test_qdcache_error_keeps_its_constructor(self):
        error = qdcache.QdcacheError(3, "INVALID_ARGUMENT", "bad")
        self.assertEqual(str(error), "INVALID_ARGUMENT: bad")
        self.assertEqual(error.code, 3)

    def test_the_status_names_agree_with_the_library(self):
        from qdcache import _lib

        for code, name, _ in CODES:
            self.assertEqual(_lib.lib.qdcache_status_name(code).decode(), name)


if __name__ == "__main__":
    unittest.main()
