"""Python targets with distinct pass rates on the scripted suite (imported via spec `ref`)."""


def careful(record: dict[str, str]) -> float:
    return 2.0 if "UNSUPPORTED" in record["summary"] else 5.0


def spacey(record: dict[str, str]) -> float:
    """Notices unsupported claims but also punishes double spaces (fails invariance)."""
    if "  " in record["summary"] or "UNSUPPORTED" in record["summary"]:
        return 2.0
    return 5.0


def constant(record: dict[str, str]) -> float:
    return 3.0


def broken(record: dict[str, str]) -> float:
    raise RuntimeError("scorer crashed")
