"""Arguments as users write them (``range(0, 512)``, ``slice(100, None)``, ``(0, 512)``, ``7``,
``"0,2-5"``) turned into what the C++ calls take."""


def span(value, n, what):
    """``[begin, end)`` of ``value`` within ``[0, n)``: None is everything, an int one position;
    negative ends count from ``n`` as in Python slices. Raises ValueError for steps other than 1."""
    if value is None:
        return 0, n
    if isinstance(value, int):
        begin = value + n if value < 0 else value
        return begin, begin + 1
    if isinstance(value, (range, slice)):
        if value.step not in (None, 1):
            raise ValueError(f"{what}: only a step of 1 is supported")
        begin, end, _ = slice(value.start, value.stop).indices(n)
        return begin, end
    begin, end = value
    return span(slice(begin, end), n, what)


def index_list(value, what):
    """A list of layer or head indices: None (all), an int, an iterable of ints, or the CLI's
    ``"0,2,5-7"``."""
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, str):
        out = []
        for part in filter(None, (p.strip() for p in value.split(","))):
            first, _, last = part.partition("-")
            if not first.isdigit() or (last and not last.isdigit()):
                raise ValueError(f"{what}: {value!r} is not a list like 0,2,5-7")
            out.extend(range(int(first), int(last or first) + 1))
        return out
    return [int(v) for v in value]
