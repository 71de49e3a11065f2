"""Errors the user caused (bad paths, bad captures, bad options): reported as one line, exit code 2."""


class InputError(Exception):
    """A problem with what the user gave advisor. The message is shown as is, on one line."""
