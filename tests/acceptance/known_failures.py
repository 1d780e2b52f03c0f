"""Acceptance cases that do not pass yet, each with its reason. This list only shrinks.

An issue that ports Volcano's behaviour is not resolved while this holds anything but cases we
argue are wrong (and then the reason says why, and the closing note repeats it).
"""

KNOWN_FAILURES: dict[str, str] = {}
